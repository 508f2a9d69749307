import { randomInt } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { pidOfArgv, processAlive, waitUntilGone } from "@antigravity-ts/test-kit";
import { finalSteps, harnessConfig, type Frame, type TestClient } from "../test-support/ws-client.js";

// Clients that vanish mid-turn, two connections racing for one session, and SIGTERM while
// sessions are busy: running commands die, nothing leaks, the process and the other sessions go
// on, and the session is saved so that it resumes.

/** The command's sleep, with a marker no other process has: the test finds it by its argv (a command runs in a PID namespace of its own, where `$$` is 1). */
const SLEEP = `60.${randomInt(100_000, 999_999)}`;
const SCRIPT = {
  turns: [
    {
      match: "sleep",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: `echo started; exec sleep ${SLEEP}` } }] },
        { text: "unreachable" },
      ],
    },
    { match: "ping", calls: [{ text: "pong to {{prompt}}" }] },
  ],
};
const CASCADE_ID = "disconnect-test-0123456789abcdef012345";
/** stderr lines that would mean a fault escaped a session. */
const FAULTS = /unhandled rejection|uncaught exception|session failure|internal harness error/;

/** Prompts the `sleep` script and returns the running command's step and pid. */
async function startSleeping(client: TestClient): Promise<{ step: Frame; pid: number }> {
  client.prompt("sleep");
  const running = (
    await client.next(
      (f) => (f["stepUpdate"]?.runCommand?.combinedOutput ?? "").includes("started"),
      "the command's output",
    )
  )["stepUpdate"] as Frame;
  const pid = await pidOfArgv(["sleep", SLEEP]);
  return { step: running, pid };
}

describe("disconnects and shutdown", () => {
  const fixture = useHarnessFixture({
    name: "disconnect",
    script: SCRIPT,
    args: (root) => ["--storage", path.join(root, "storage")],
  });

  it("kills the command of a client that drops mid-turn, keeps the process and other sessions, and saves the session for a reconnect", async () => {
    const other = await fixture.connect();
    const client = await fixture.connect({ cascadeId: CASCADE_ID });
    const { step, pid } = await startSleeping(client);
    // An abrupt drop: no close frame, the TCP connection just ends.
    client.socket.terminate();
    expect(await waitUntilGone(pid)).toBe(true);

    // Reconnecting at once waits until the dropped connection has saved the session.
    const again = await fixture.open();
    const resumed = await again.init(
      harnessConfig(fixture.workspace, { cascadeId: CASCADE_ID, sessionContinuationMode: "RESUME" }),
    );
    const abandoned = (resumed["history"] as Frame[]).find((s) => s["stepIndex"] === step["stepIndex"]);
    expect(abandoned).toMatchObject({
      state: "STATE_ERROR",
      errorMessage: "the client disconnected",
      runCommand: { commandLine: `echo started; exec sleep ${SLEEP}` },
    });
    again.prompt("ping back");
    expect(finalSteps(await again.turn()).at(-1)?.["text"]).toBe("pong to ping back");

    other.prompt("ping other");
    expect(finalSteps(await other.turn()).at(-1)?.["text"]).toBe("pong to ping other");
    expect(fixture.harness.child.exitCode).toBeNull();
    expect(fixture.harness.stderr()).not.toMatch(FAULTS);
    again.close();
    other.close();
  });

  it("lets exactly one of two connections that initialise the same cascadeId at once have the session", async () => {
    const id = "race-test-0123456789abcdef0123456789ab";
    const [a, b] = await Promise.all([fixture.open(), fixture.open()]);
    const config = harnessConfig(fixture.workspace, { cascadeId: id });
    a.send({ config });
    b.send({ config });
    const outcome = (client: TestClient): Promise<string> =>
      client
        .next((f) => f["initializeConversationResponse"] !== undefined, "initializeConversationResponse")
        .then(
          () => "ready",
          async () => `closed ${JSON.stringify(await client.closed)}`,
        );
    const outcomes = await Promise.all([outcome(a), outcome(b)]);
    expect([...outcomes].sort()).toEqual([
      `closed ${JSON.stringify({ code: 1008, reason: `session ${id} is already open on another connection` })}`,
      "ready",
    ]);
    const winner = outcomes[0] === "ready" ? a : b;
    winner.prompt("ping race");
    expect(finalSteps(await winner.turn()).at(-1)?.["text"]).toBe("pong to ping race");
    winner.close();
  });

  it("on SIGTERM with busy sessions: kills their commands, closes them with 1001, saves them and exits 0", async () => {
    const idle = await fixture.connect();
    const busy = await fixture.connect({ cascadeId: CASCADE_ID });
    const { step, pid } = await startSleeping(busy);
    const stopped = fixture.harness;

    expect(await fixture.restart()).toEqual({ code: 0, signal: null });
    expect(stopped.stderr()).toContain("SIGTERM received, cleaning up...");
    expect(stopped.stderr()).not.toMatch(FAULTS);
    expect(!processAlive(pid)).toBe(true);
    expect(await busy.closed).toEqual({ code: 1001, reason: "harness shutting down" });
    expect((await idle.closed).code).toBe(1001);

    const client = await fixture.open();
    const resumed = await client.init(
      harnessConfig(fixture.workspace, { cascadeId: CASCADE_ID, sessionContinuationMode: "RESUME" }),
    );
    expect((resumed["history"] as Frame[]).find((s) => s["stepIndex"] === step["stepIndex"])).toMatchObject({
      state: "STATE_ERROR",
      errorMessage: "the harness shut down",
    });
    client.close();
  });
});
