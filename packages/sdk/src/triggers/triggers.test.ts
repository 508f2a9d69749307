import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { every } from "./every.js";
import type { SendTriggerOptions, Trigger, TriggerContext } from "./trigger.js";
import { TriggerRunner } from "./trigger-runner.js";

function fakeContext(): {
  context: Omit<TriggerContext, "signal">;
  sent: string[];
  idle: { value: boolean; waiters: (() => void)[] };
} {
  const sent: string[] = [];
  const idle = { value: true, waiters: [] as (() => void)[] };
  const context: Omit<TriggerContext, "signal"> = {
    conversationId: "c",
    isIdle: () => idle.value,
    waitForIdle: () => (idle.value ? Promise.resolve() : new Promise<void>((resolve) => idle.waiters.push(resolve))),
    sendTrigger: async (message: string, options?: SendTriggerOptions) => {
      if (options?.delivery === "whenIdle") await context.waitForIdle();
      sent.push(message);
    },
  };
  return { context, sent, idle };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("every()", () => {
  it("sends its message once per interval until the runner stops", async () => {
    vi.useFakeTimers();
    const { context, sent } = fakeContext();
    const runner = new TriggerRunner([every(1_000, "tick")]);
    await runner.start(context);
    await vi.advanceTimersByTimeAsync(999);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_001);
    expect(sent).toEqual(["tick", "tick", "tick"]);
    await runner.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sent).toHaveLength(3);
  });

  it("waits for idle with delivery whenIdle, and skips ticks whose message function returns undefined", async () => {
    vi.useFakeTimers();
    const { context, sent, idle } = fakeContext();
    let n = 0;
    const runner = new TriggerRunner([
      every(100, () => (++n % 2 === 0 ? undefined : `m${n}`), { delivery: "whenIdle" }),
    ]);
    idle.value = false;
    await runner.start(context);
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toEqual([]);
    idle.value = true;
    idle.waiters.splice(0).forEach((resolve) => resolve());
    await vi.advanceTimersByTimeAsync(200);
    expect(sent).toEqual(["m1", "m3"]);
    await runner.stop();
  });

  it("refuses a non-positive interval", () => {
    expect(() => every(0, "x")).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
  });
});

describe("TriggerRunner", () => {
  it("starts triggers with the context, aborts run signals and calls stop() on stop", async () => {
    const events: string[] = [];
    let runSignal: AbortSignal | undefined;
    const trigger: Trigger = {
      start: (ctx) => void events.push(`start:${ctx.conversationId}`),
      stop: () => void events.push("stop"),
      run: (_ctx, signal) => {
        runSignal = signal;
        return new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
      },
    };
    const runner = new TriggerRunner([trigger]);
    await runner.start(fakeContext().context);
    expect(runner.running).toBe(true);
    await expect(runner.start(fakeContext().context)).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    await runner.stop();
    await runner.stop();
    expect(events).toEqual(["start:c", "stop"]);
    expect(runSignal?.aborted).toBe(true);
    expect(runner.running).toBe(false);
  });

  it("stops the triggers already started when a start() fails, and reports run() failures", async () => {
    const events: string[] = [];
    const errors: SdkError[] = [];
    const ok: Trigger = { start: () => void events.push("ok start"), stop: () => void events.push("ok stop") };
    const bad: Trigger = {
      start: () => {
        throw new Error("no watcher");
      },
    };
    await expect(new TriggerRunner([ok, bad]).start(fakeContext().context)).rejects.toThrow("no watcher");
    expect(events).toEqual(["ok start", "ok stop"]);
    const failing: Trigger = {
      run: async () => {
        throw new Error("poll failed");
      },
    };
    const runner = new TriggerRunner([failing], { onError: (error) => errors.push(error) });
    await runner.start(fakeContext().context);
    await vi.waitFor(() => expect(errors.map((e) => e.message)).toEqual(["poll failed"]));
    await runner.stop();
  });
});
