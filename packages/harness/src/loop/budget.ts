import { TrajectoryStateUpdate_StopReason as StopReason } from "@antigravity-ts/sdk/internal";
import type { ModelUsage } from "../model/provider.js";
import type { SessionBudget } from "./settings.js";

/** Calls a session made, counted when they are dispatched (a halted or failed call counts). Stored with the session. */
export interface SessionCalls {
  modelCalls: number;
  toolCalls: number;
}

/**
 * The stop reason when the next model call would break a limit of `BudgetConfig`, else undefined.
 * Limits are session-level (protocol.md `BudgetConfig`; upstream `types.BudgetConfig`):
 * `calls` and `usage` count every turn of the session, resumes included (scope LIFETIME), or
 * since the resume (FORWARD_LOOKING; see `SessionState.budgetSpent`). It is checked
 * before every model call, the turn's first included, and the input limit is evaluated before
 * dispatch with `nextInputTokens`, the estimate of the call's prompt. Input tokens are net of
 * cached ones; output tokens are candidates plus thoughts; total = net input + output (upstream's
 * definitions). Tool calls are checked by {@link toolCallStop} before each tool call; here a
 * tool-call count already over its limit (a resume with a lower limit) stops too.
 */
export function modelCallStop(
  budget: SessionBudget,
  calls: SessionCalls,
  usage: ModelUsage,
  nextInputTokens: number,
): StopReason | undefined {
  const input = usage.promptTokens - usage.cachedTokens;
  const output = usage.candidatesTokens + usage.thoughtsTokens;
  if (over(budget.maxModelCalls, calls.modelCalls + 1)) return StopReason.MAX_MODEL_CALLS_EXCEEDED;
  if (over(budget.maxToolCalls, calls.toolCalls)) return StopReason.MAX_TOOL_CALLS_EXCEEDED;
  if (over(budget.maxInputTokens, input + nextInputTokens)) return StopReason.MAX_INPUT_TOKENS_EXCEEDED;
  // A call produces output: with none left, it would exceed.
  if (over(budget.maxOutputTokens, output + 1)) return StopReason.MAX_OUTPUT_TOKENS_EXCEEDED;
  if (over(budget.maxTotalTokens, input + output + nextInputTokens + 1)) return StopReason.MAX_TOTAL_TOKENS_EXCEEDED;
  return undefined;
}

/** The stop reason when one more tool call would break `maxToolCalls`, else undefined. */
export function toolCallStop(budget: SessionBudget, calls: SessionCalls): StopReason | undefined {
  return over(budget.maxToolCalls, calls.toolCalls + 1) ? StopReason.MAX_TOOL_CALLS_EXCEEDED : undefined;
}

/** Whether `value` is over `limit` (0 = unlimited). */
function over(limit: number, value: number): boolean {
  return limit > 0 && value > limit;
}
