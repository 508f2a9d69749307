import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { mockStep } from "../testing/mock-step.js";
import { emptyUsage } from "../types.js";
import type { Step } from "../types.js";
import { AsyncQueue } from "../util/async-queue.js";
import { TurnReader } from "./turn-reader.js";
import type { TurnSummary } from "./turn-reader.js";

function harness() {
  const source = new AsyncQueue<Step>();
  const recorded: Step[] = [];
  const summaries: TurnSummary[] = [];
  const reader = new TurnReader(source, {
    record: async (step) => {
      recorded.push(step);
    },
    finish: async (summary) => {
      summaries.push(summary);
    },
  });
  return { source, recorded, summaries, reader };
}

describe("TurnReader", () => {
  it("records each step before returning it, and finishes once at the end", async () => {
    const { source, recorded, summaries, reader } = harness();
    const a = mockStep({ stepIndex: 0, usageMetadata: { ...emptyUsage(), totalTokenCount: 1 } });
    const a2 = mockStep({ stepIndex: 0, usageMetadata: { ...emptyUsage(), totalTokenCount: 2 } });
    source.push(a);
    source.push(a2);
    source.end();
    expect(await reader.next()).toEqual({ done: false, value: a });
    expect(recorded).toEqual([a]);
    await reader.next();
    expect(await reader.next()).toEqual({ done: true, value: undefined });
    expect(await reader.next()).toEqual({ done: true, value: undefined });
    expect(reader.finished).toBe(true);
    expect(summaries).toEqual([{ sawSteps: true, stepUsages: [{ ...emptyUsage(), totalTokenCount: 2 }] }]);
  });

  it("an aborted next loses no step: the drain picks up the pull in flight", async () => {
    const { source, recorded, summaries, reader } = harness();
    const controller = new AbortController();
    const pending = reader.next(controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.Canceled });
    expect(reader.finished).toBe(false);
    const drained = reader.drain();
    const step = mockStep({ content: "late" });
    source.push(step);
    source.end();
    await drained;
    expect(recorded).toEqual([step]);
    expect(summaries).toEqual([{ sawSteps: true, stepUsages: [] }]);
  });

  it("turns a source failure into an SdkError and finishes; drain swallows it", async () => {
    const first = harness();
    first.source.fail(new Error("socket reset"));
    await expect(first.reader.next()).rejects.toMatchObject({ code: ErrorCode.Internal, message: "socket reset" });
    expect(first.reader.finished).toBe(true);
    expect(first.summaries).toEqual([{ sawSteps: false, stepUsages: [] }]);

    const second = harness();
    second.source.push(mockStep());
    second.source.fail(new Error("boom"));
    await expect(second.reader.drain()).resolves.toBeUndefined();
    expect(second.recorded.length).toBe(1);
    expect(second.summaries.length).toBe(1);
  });

  it("drain waits for `before` first, and survives it rejecting", async () => {
    const { source, recorded, reader } = harness();
    let release!: () => void;
    const before = new Promise<void>((_, reject) => (release = () => reject(new Error("halt failed"))));
    const drained = reader.drain(before);
    source.push(mockStep());
    source.end();
    await new Promise((r) => setTimeout(r, 0)); // every microtask has run
    expect(recorded).toEqual([]);
    release();
    await drained;
    expect(recorded.length).toBe(1);
  });
});
