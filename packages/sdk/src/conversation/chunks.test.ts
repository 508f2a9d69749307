import { describe, expect, it } from "vitest";
import { mockStep } from "../testing/mock-step.js";
import { StepSource, StepTarget, SYNTHETIC_STEP_INDEX_BASE } from "../step.js";
import type { StepSource as Source, StepTarget as Target, ToolCall } from "../step.js";
import { stepToChunks } from "./chunks.js";

const call = (id: string, name = "run_command"): ToolCall => ({ id, name, args: { command: "ls" } });

describe("stepToChunks", () => {
  it("emits thought then text for a MODEL→USER step with both deltas", () => {
    const step = mockStep({ stepIndex: 4, thinkingDelta: "hmm", contentDelta: "Hi" });
    expect(stepToChunks(step, new Set())).toEqual([
      { type: "thought", stepIndex: 4, text: "hmm" },
      { type: "text", stepIndex: 4, text: "Hi" },
    ]);
  });

  it("emits the delta, not the accumulated text", () => {
    const step = mockStep({ content: "Hello world", contentDelta: " world", thinking: "a b", thinkingDelta: "" });
    expect(stepToChunks(step, new Set())).toEqual([{ type: "text", stepIndex: 0, text: " world" }]);
  });

  it("emits nothing for empty deltas", () => {
    expect(stepToChunks(mockStep({ content: "done", contentDelta: "" }), new Set())).toEqual([]);
  });

  const others: [Source, Target][] = [
    [StepSource.User, StepTarget.User],
    [StepSource.System, StepTarget.User],
    [StepSource.Unknown, StepTarget.User],
    [StepSource.Model, StepTarget.Unspecified],
    [StepSource.Model, StepTarget.Unknown],
  ];
  it.each(others)("gives no text or thought for source %s → target %s", (source, target) => {
    const step = mockStep({ source, target, contentDelta: "x", thinkingDelta: "y" });
    expect(stepToChunks(step, new Set())).toEqual([]);
  });

  it("gives tool-call chunks for non-MODEL→USER steps that are not ENVIRONMENT", () => {
    const step = mockStep({
      source: StepSource.System,
      target: StepTarget.Unspecified,
      contentDelta: "x",
      toolCalls: [call("a")],
    });
    expect(stepToChunks(step, new Set())).toEqual([{ type: "toolCall", toolCall: call("a") }]);
  });

  it("filters ENVIRONMENT-targeted steps out entirely, tool calls included", () => {
    const step = mockStep({
      stepIndex: SYNTHETIC_STEP_INDEX_BASE,
      target: StepTarget.Environment,
      contentDelta: "x",
      thinkingDelta: "y",
      toolCalls: [call("a")],
    });
    const seen = new Set<string>();
    expect(stepToChunks(step, seen)).toEqual([]);
    expect(seen.size).toBe(0);
  });

  it("emits one chunk per tool call, after text, in order", () => {
    const step = mockStep({ contentDelta: "ok", toolCalls: [call("a"), call("b", "view_file")] });
    expect(stepToChunks(step, new Set()).map((c) => (c.type === "toolCall" ? c.toolCall.id : c.type))).toEqual([
      "text",
      "a",
      "b",
    ]);
  });

  it("de-duplicates tool calls by id across steps of one stream", () => {
    const seen = new Set<string>();
    const active = mockStep({ stepIndex: 1, status: "ACTIVE", toolCalls: [call("a")] });
    const done = mockStep({ stepIndex: 1, toolCalls: [call("a"), call("b")] });
    expect(stepToChunks(active, seen).length).toBe(1);
    expect(stepToChunks(done, seen)).toEqual([{ type: "toolCall", toolCall: call("b") }]);
    expect([...seen]).toEqual(["a", "b"]);
    // A new stream (fresh set) sees them again.
    expect(stepToChunks(done, new Set()).length).toBe(2);
  });

  it("de-duplicates within one step too", () => {
    expect(stepToChunks(mockStep({ toolCalls: [call("a"), call("a")] }), new Set()).length).toBe(1);
  });

  it("never de-duplicates empty ids", () => {
    const seen = new Set<string>();
    const step = mockStep({ toolCalls: [call(""), call("")] });
    expect(stepToChunks(step, seen).length).toBe(2);
    expect(stepToChunks(step, seen).length).toBe(2);
    expect(seen.has("")).toBe(false);
  });
});
