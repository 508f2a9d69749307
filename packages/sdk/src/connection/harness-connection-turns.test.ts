import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import {
  createFakeHarnessTransport,
  type FakeHarness,
  type FakeHarnessTransport,
} from "../transport/in-memory-harness.js";
import type { Step } from "../step.js";
import { StepUpdate_State, TrajectoryStateUpdate_State } from "../wire/index.js";
import { createHarnessConnection, type HarnessConnection } from "./harness-connection.js";
import type { Turn } from "./turn.js";
import { deferred, textStep } from "@antigravity-ts/test-kit";

// How HarnessConnection delimits turns for its observer: every turn reported as it starts, its
// steps pushed into it in order, late updates routed to the turn they belong to (§6.3), halts
// ended by FULLY_IDLE or CANCELLED (§13), and an aborted send that sends nothing.

const T = "traj-main";
const { FULLY_IDLE, RUNNING } = TrajectoryStateUpdate_State;
const transports: FakeHarnessTransport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.settled()));
});

async function open(
  script: (harness: FakeHarness) => Promise<void>,
): Promise<{ connection: HarnessConnection; turns: Turn[]; late: Step[] }> {
  const transport = createFakeHarnessTransport(async (harness) => {
    await harness.readInit();
    harness.respondInit({ cascadeId: T });
    await script(harness);
  });
  transports.push(transport);
  const connection = await createHarnessConnection({ transport, config: {}, timeoutMs: 5_000 });
  const turns: Turn[] = [];
  const late: Step[] = [];
  connection.observeTurns({
    turnStarted: (turn) => {
      turns.push(turn);
      turn.record({ step: () => undefined, ending: () => undefined, late: (step) => late.push(step) });
    },
  });
  return { connection, turns, late };
}

function text(harness: FakeHarness, stepIndex: number, delta: string, state: StepUpdate_State, full = delta): void {
  harness.step(textStep({ trajectoryId: T, stepIndex, state }, delta, full));
}

async function steps(connection: HarnessConnection): Promise<{ steps: Step[]; error?: SdkError }> {
  const out: Step[] = [];
  try {
    for await (const step of connection.receiveSteps()) out.push(step);
  } catch (error) {
    return { steps: out, error: SdkError.from(error) };
  }
  return { steps: out };
}

describe("HarnessConnection turns", () => {
  it("routes a DONE that arrives after FULLY_IDLE to its own ended turn, even once the next turn runs", async () => {
    const nextTurnRunning = deferred();
    const { connection, turns, late } = await open(async (harness) => {
      await harness.expect("userInput");
      harness.state(T, RUNNING);
      text(harness, 1, "Hel", StepUpdate_State.ACTIVE);
      harness.state(T, FULLY_IDLE); // one message early (seen in other Antigravity clients)
      await harness.expect("userInput");
      harness.state(T, RUNNING);
      await nextTurnRunning.promise;
      text(harness, 1, "lo", StepUpdate_State.DONE, "Hello"); // the first turn's straggler
      text(harness, 2, "next", StepUpdate_State.DONE);
      harness.state(T, FULLY_IDLE);
    });
    await connection.send("one");
    expect((await steps(connection)).steps.map((s) => s.content)).toEqual(["Hel"]);
    await connection.send("two");
    nextTurnRunning.resolve();
    expect((await steps(connection)).steps.map((s) => s.content)).toEqual(["next"]);
    expect(late.map((s) => [s.id, s.content, s.status])).toEqual([[`${T}:1`, "Hello", "DONE"]]);
    expect(turns.map((t) => [t.solicited, t.settled])).toEqual([
      [true, true],
      [true, true],
    ]);
    await connection.disconnect();
  });

  it("gives a finished step's id seen again in the next turn to that turn (a harness that numbers steps per turn)", async () => {
    const { connection, late } = await open(async (harness) => {
      for (const answer of ["one", "two"]) {
        await harness.expect("userInput");
        harness.state(T, RUNNING);
        text(harness, 1, answer, StepUpdate_State.DONE);
        harness.state(T, FULLY_IDLE);
      }
    });
    await connection.send("first");
    expect((await steps(connection)).steps.map((s) => s.content)).toEqual(["one"]);
    await connection.send("second");
    expect((await steps(connection)).steps.map((s) => s.content)).toEqual(["two"]);
    expect(late).toEqual([]);
    await connection.disconnect();
  });

  it("reports a turn the harness starts on its own (after a trigger) before its first step", async () => {
    const { connection, turns } = await open(async (harness) => {
      expect(await harness.expect("automatedTrigger")).toBe("ping");
      harness.state(T, RUNNING);
      text(harness, 1, "pong", StepUpdate_State.DONE);
      harness.state(T, FULLY_IDLE);
    });
    await connection.sendTrigger("ping");
    while (turns[0]?.settled !== true) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(turns.map((t) => t.solicited)).toEqual([false]);
    expect((await steps(connection)).steps.map((s) => s.content)).toEqual(["pong"]);
    await connection.disconnect();
  });

  it("ends a halted turn with Canceled on FULLY_IDLE (what the harness sends after a halt), and the next turn works", async () => {
    const { connection, turns } = await open(async (harness) => {
      await harness.expect("userInput");
      harness.state(T, RUNNING);
      text(harness, 1, "partial", StepUpdate_State.ACTIVE);
      expect(await harness.expect("haltRequest")).toBe(true);
      text(harness, 1, "", StepUpdate_State.ERROR, "partial");
      harness.state(T, FULLY_IDLE);
      await harness.expect("userInput");
      harness.state(T, RUNNING);
      text(harness, 2, "fine", StepUpdate_State.DONE);
      harness.state(T, FULLY_IDLE);
    });
    await connection.send("go");
    const reading = steps(connection);
    while ((turns[0]?.size ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    await connection.halt();
    const halted = await reading;
    expect(halted.error?.code).toBe(ErrorCode.Canceled);
    expect(halted.steps.map((s) => s.status)).toEqual(["ACTIVE", "ERROR"]);
    await connection.send("again");
    expect(await steps(connection)).toEqual({ steps: [expect.objectContaining({ content: "fine" })] });
    await connection.disconnect();
  });

  it("sends nothing for a send whose signal is already aborted", async () => {
    const { connection, turns } = await open(async (harness) => {
      expect((await harness.read()).event.case).toBe("userInput");
      harness.state(T, FULLY_IDLE, { error: "only the second prompt arrives" });
    });
    await expect(connection.send("never", { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: ErrorCode.Canceled,
    });
    expect(turns).toEqual([]);
    await connection.send("sent");
    expect((await steps(connection)).error?.message).toBe("only the second prompt arrives");
    await connection.disconnect();
  });
});
