import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { mockStep } from "../testing/mock-step.js";
import { seededRandom } from "../testing/seeded-random.js";
import { emptyUsage, StepStatus } from "../step.js";
import type { Step } from "../step.js";
import type { CallOptions } from "../call-options.js";
import { Turn, UsageMark, type TurnOutcome } from "./turn.js";
import { Interrupt, STEP_MAPPER, TurnView, latestTurnView, viewOf } from "./turn-view.js";

const receiveTurnSteps = (current: () => Turn | undefined, options?: CallOptions) =>
  latestTurnView(
    () => viewOf(current()),
    () => STEP_MAPPER,
    options,
  );

async function readAll<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of iterable) out.push(value);
  return out;
}

const stepsOf = (turn: Turn): TurnView<Step> => new TurnView({ turn }, STEP_MAPPER);
const step = (content: string, stepIndex = 0, status: Step["status"] = StepStatus.Done): Step =>
  mockStep({ content, stepIndex, status }, { trajectoryId: "t" });

describe("Turn", () => {
  it("is one buffer read by independent cursors, each from the start, however late they come", async () => {
    const turn = new Turn({ solicited: true });
    const early = readAll(stepsOf(turn));
    turn.push(step("a", 1));
    const middle = readAll(stepsOf(turn));
    turn.push(step("b", 2));
    turn.end();
    const late = await readAll(stepsOf(turn));
    for (const steps of [await early, await middle, late]) expect(steps.map((s) => s.content)).toEqual(["a", "b"]);
  });

  it("gives every reader the turn's error after the last step", async () => {
    const turn = new Turn({ solicited: false });
    const error = new SdkError(ErrorCode.ExecutionError, "boom");
    turn.push(step("a"));
    turn.end({ error });
    for (let i = 0; i < 2; i++) {
      const seen: string[] = [];
      await expect(
        (async () => {
          for await (const s of stepsOf(turn)) seen.push(s.content);
        })(),
      ).rejects.toBe(error);
      expect(seen).toEqual(["a"]);
    }
  });

  it("calls its recorder before any reader sees a step, and lets it add steps while ending", async () => {
    const turn = new Turn({ solicited: true });
    const events: string[] = [];
    turn.record({
      step: (s) => events.push(`record ${s.content}`),
      ending: (outcome: TurnOutcome) => {
        events.push(`ending ${outcome.error?.code ?? "ok"}`);
        turn.push(step("closing", 9));
      },
      late: (s) => events.push(`late ${s.content}`),
    });
    expect(() => turn.record({ step: () => undefined, ending: () => undefined, late: () => undefined })).toThrow(
      expect.objectContaining({ code: ErrorCode.FailedPrecondition }),
    );
    const reading = (async () => {
      for await (const s of stepsOf(turn)) events.push(`read ${s.content}`);
    })();
    turn.push(step("a", 1, StepStatus.Active));
    turn.end();
    await reading;
    expect(events).toEqual(["record a", "ending ok", "record closing", "read a", "read closing"]);
    // After the end, an update of one of its steps is late; any other step is refused.
    expect(turn.push(step("a!", 1))).toBe(true);
    expect(turn.push(step("stranger", 5))).toBe(false);
    expect(events.at(-1)).toBe("late a!");
    expect((await readAll(stepsOf(turn))).map((s) => s.content)).toEqual(["a", "closing"]);
  });

  it("keeps usage reports in order with the steps; halting aborts its tools' signal, ending aborts it too", async () => {
    const turn = new Turn({ solicited: true });
    turn.push(step("a"));
    turn.pushUsage({ ...emptyUsage(), totalTokenCount: 7 });
    turn.push(step("b", 1));
    turn.end();
    const marks: unknown[] = [];
    const view = new TurnView(
      { turn },
      {
        map: (entry, out: unknown[]) =>
          out.push(entry instanceof UsageMark ? entry.total.totalTokenCount : entry.content),
      },
    );
    for await (const item of view) marks.push(item);
    expect(marks).toEqual(["a", 7, "b"]);

    const halted = new Turn({ solicited: true });
    expect(halted.signal.aborted).toBe(false);
    halted.halt();
    expect([halted.halted, halted.signal.aborted, halted.settled]).toEqual([true, true, false]);
    expect(halted.signal.reason).toMatchObject({ code: ErrorCode.Canceled });
    const ended = new Turn({ solicited: true });
    ended.end();
    expect(ended.signal.aborted).toBe(true);
    expect(await ended.over()).toEqual({});
  });

  it("makes its signal when it is first read, aborted already with the reason it would have had", async () => {
    const reasonOf = (turn: Turn): unknown =>
      turn.signal.aborted ? (turn.signal.reason as SdkError).message : "running";
    const running = new Turn({ solicited: true });
    expect(reasonOf(running)).toBe("running");
    const halted = new Turn({ solicited: true });
    halted.halt();
    expect(reasonOf(halted)).toBe("the turn was halted");
    const haltedThenEnded = new Turn({ solicited: true });
    haltedThenEnded.halt();
    haltedThenEnded.end({ error: new SdkError(ErrorCode.ExecutionError, "model failed") });
    expect(reasonOf(haltedThenEnded)).toBe("the turn was halted");
    const failed = new Turn({ solicited: true });
    failed.end({ error: new SdkError(ErrorCode.ExecutionError, "model failed") });
    expect(reasonOf(failed)).toBe("model failed");
    const over = new Turn({ solicited: true });
    over.end();
    expect(reasonOf(over)).toBe("the turn is over");
    // Read while running, then ended: aborted at the end, once, with the same signal object.
    const watched = new Turn({ solicited: true });
    const signal = watched.signal;
    let aborts = 0;
    signal.addEventListener("abort", () => aborts++);
    watched.end();
    watched.halt();
    expect([watched.signal === signal, signal.aborted, aborts, (signal.reason as SdkError).message]).toEqual([
      true,
      true,
      1,
      "the turn is over",
    ]);
  });

  it("property: every update reads back exactly as it arrived, though superseded text is shared", async () => {
    const rand = seededRandom(42);
    for (let run = 0; run < 40; run++) {
      const turn = new Turn({ solicited: true });
      const pushed: Step[] = [];
      const texts = new Map<number, { content: string; thinking: string }>();
      for (let i = 0; i < 300; i++) {
        const index = Math.floor(rand() * 4);
        const before = texts.get(index) ?? { content: "", thinking: "" };
        // Mostly growing text (the harness's cumulative updates), sometimes a rewrite.
        const grow = (s: string): string =>
          rand() < 0.9 ? s + "x".repeat(1 + Math.floor(rand() * 40)) : "rewritten".repeat(Math.floor(rand() * 40));
        const next =
          rand() < 0.5
            ? { content: grow(before.content), thinking: before.thinking }
            : { content: before.content, thinking: grow(before.thinking) };
        texts.set(index, next);
        const s = { ...step("", index, StepStatus.Active), content: next.content, thinking: next.thinking };
        pushed.push(s);
        turn.push(s);
      }
      turn.end();
      expect(await readAll(stepsOf(turn))).toEqual(pushed);
      expect(turn.latestSteps().map((s) => [s.stepIndex, s.content, s.thinking])).toEqual(
        [...new Map(pushed.map((s) => [s.id, s])).values()].map((s) => [s.stepIndex, s.content, s.thinking]),
      );
    }
  });
});

describe("TurnView and latestTurnView", () => {
  it("an interrupt ends its views at once, even with steps unread; the turn goes on", async () => {
    const turn = new Turn({ solicited: true });
    const interrupt = new Interrupt(turn);
    turn.push(step("a"));
    turn.push(step("b", 1));
    const view = new TurnView({ turn, interrupt }, STEP_MAPPER);
    expect((await view.next()).value?.content).toBe("a");
    const waiting = new TurnView({ turn, interrupt }, STEP_MAPPER);
    await waiting.next();
    await waiting.next();
    const pending = waiting.next(); // waits for a step that will not come before the interrupt
    interrupt.fire(new SdkError(ErrorCode.Canceled, "stop"));
    await expect(view.next()).rejects.toMatchObject({ message: "stop" });
    await expect(pending).rejects.toMatchObject({ message: "stop" });
    expect(turn.settled).toBe(false);
    expect(await interrupt.whenFired()).toMatchObject({ message: "stop" });
  });

  it("a view waiting for its turn to start fails with the start's error", async () => {
    const view = new TurnView(Promise.reject(new SdkError(ErrorCode.InvalidArgument, "blank")), STEP_MAPPER);
    await expect(view.next()).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    expect(await view.next()).toEqual({ done: true, value: undefined });
  });

  it("latestTurnView reads the turn current at its first next(), bounded by signal and timeout, and detaches its listeners", async () => {
    let current: Turn | undefined;
    const reader = receiveTurnSteps(() => current);
    const iterator = reader[Symbol.asyncIterator]();
    current = new Turn({ solicited: true });
    current.push(step("a"));
    expect((await iterator.next()).value?.content).toBe("a");
    await expect(readAll(receiveTurnSteps(() => undefined, { signal: AbortSignal.abort() }))).rejects.toMatchObject({
      code: ErrorCode.Canceled,
    });
    expect(await readAll(receiveTurnSteps(() => undefined))).toEqual([]);

    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((type: string, fn: EventListener, options?: AddEventListenerOptions) => (
      listeners++, add(type, fn, options)
    )) as typeof add;
    controller.signal.removeEventListener = ((type: string, fn: EventListener) => (
      listeners--, remove(type, fn)
    )) as typeof remove;
    const turn = current;
    await expect(
      readAll(receiveTurnSteps(() => turn, { signal: controller.signal, timeoutMs: 5 })),
    ).rejects.toMatchObject({ code: ErrorCode.DeadlineExceeded });
    expect(listeners).toBe(0);
    for await (const _ of receiveTurnSteps(() => turn, { signal: controller.signal })) break;
    expect(listeners).toBe(0);
    turn.end();
    await readAll(receiveTurnSteps(() => turn, { signal: controller.signal }));
    expect(listeners).toBe(0);
  });
});
