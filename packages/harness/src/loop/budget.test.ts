import { TrajectoryStateUpdate_StopReason as StopReason } from "@antigravity-ts/sdk/wire";
import { describe, expect, it } from "vitest";
import { modelCallStop, toolCallStop } from "./budget.js";
import type { SessionBudget } from "./settings.js";
import { emptyUsage } from "../model/usage.js";

const none: SessionBudget = {
  maxModelCalls: 0,
  maxToolCalls: 0,
  maxInputTokens: 0,
  maxOutputTokens: 0,
  maxTotalTokens: 0,
  forwardLooking: false,
};
const calls = (modelCalls: number, toolCalls = 0) => ({ modelCalls, toolCalls });
const usage = (prompt: number, cached: number, candidates: number, thoughts: number) => ({
  ...emptyUsage(),
  promptTokens: prompt,
  cachedTokens: cached,
  candidatesTokens: candidates,
  thoughtsTokens: thoughts,
  totalTokens: prompt + candidates + thoughts,
});

describe("session budget checks (protocol.md BudgetConfig, upstream types.BudgetConfig)", () => {
  it("0 means unlimited", () => {
    expect(modelCallStop(none, calls(1e6, 1e6), usage(1e9, 0, 1e9, 1e9), 1e9)).toBeUndefined();
    expect(toolCallStop(none, calls(0, 1e6))).toBeUndefined();
  });

  it("maxModelCalls: the call that would exceed it is not made", () => {
    const budget = { ...none, maxModelCalls: 2 };
    expect(modelCallStop(budget, calls(1), emptyUsage(), 0)).toBeUndefined();
    expect(modelCallStop(budget, calls(2), emptyUsage(), 0)).toBe(StopReason.MAX_MODEL_CALLS_EXCEEDED);
  });

  it("maxInputTokens: net of cached tokens, with the next call's prompt counted before dispatch", () => {
    const budget = { ...none, maxInputTokens: 1000 };
    expect(modelCallStop(budget, calls(0), emptyUsage(), 1000)).toBeUndefined();
    expect(modelCallStop(budget, calls(0), emptyUsage(), 1001)).toBe(StopReason.MAX_INPUT_TOKENS_EXCEEDED);
    // 900 prompt tokens of which 500 cached: 400 net spent.
    expect(modelCallStop(budget, calls(1), usage(900, 500, 0, 0), 600)).toBeUndefined();
    expect(modelCallStop(budget, calls(1), usage(900, 500, 0, 0), 601)).toBe(StopReason.MAX_INPUT_TOKENS_EXCEEDED);
  });

  it("maxOutputTokens: candidates plus thoughts; no call once it is spent", () => {
    const budget = { ...none, maxOutputTokens: 100 };
    expect(modelCallStop(budget, calls(1), usage(10, 0, 60, 39), 10)).toBeUndefined();
    expect(modelCallStop(budget, calls(1), usage(10, 0, 60, 40), 10)).toBe(StopReason.MAX_OUTPUT_TOKENS_EXCEEDED);
  });

  it("maxTotalTokens: net input plus output, the next prompt and at least one output token included", () => {
    const budget = { ...none, maxTotalTokens: 1000 };
    expect(modelCallStop(budget, calls(1), usage(500, 100, 200, 0), 399)).toBeUndefined();
    expect(modelCallStop(budget, calls(1), usage(500, 100, 200, 0), 400)).toBe(StopReason.MAX_TOTAL_TOKENS_EXCEEDED);
  });

  it("maxToolCalls: checked before each tool call; a count already over it (a resume with a lower limit) stops model calls too", () => {
    const budget = { ...none, maxToolCalls: 2 };
    expect(toolCallStop(budget, calls(0, 1))).toBeUndefined();
    expect(toolCallStop(budget, calls(0, 2))).toBe(StopReason.MAX_TOOL_CALLS_EXCEEDED);
    expect(modelCallStop(budget, calls(0, 2), emptyUsage(), 0)).toBeUndefined();
    expect(modelCallStop(budget, calls(0, 3), emptyUsage(), 0)).toBe(StopReason.MAX_TOOL_CALLS_EXCEEDED);
  });
});
