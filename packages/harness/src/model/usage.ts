import type { MessageInitShape, UsageMetadataSchema } from "@antigravity-ts/sdk/wire";
import { jsonForEstimate } from "./media.js";
import type { ModelRequest, ModelToolCall, ModelUsage } from "./provider.js";

/** Token estimate of a text: ceil(characters / 4), the usual rule of thumb. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Input tokens of a model request: the estimate of its system instruction, messages and tool
 * declarations. The scripted model reports exactly this as its prompt tokens, and the budget's
 * input limit is checked with it before a call is dispatched (protocol.md `BudgetConfig`).
 */
export function estimatePromptTokens(request: Pick<ModelRequest, "systemInstruction" | "messages" | "tools">): number {
  return estimateTextTokens(
    request.systemInstruction + jsonForEstimate(request.messages) + JSON.stringify(request.tools),
  );
}

/**
 * Usage of a model call by estimate: {@link estimatePromptTokens} in, the answer's text and
 * tool calls as candidates, its thinking as thoughts. The scripted model's usage; also what a
 * call counts when its provider reported nothing, or was halted before it could (a provider
 * sends its usage at the end of the stream).
 */
export function estimatedUsage(
  request: Pick<ModelRequest, "systemInstruction" | "messages" | "tools">,
  answer: { text: string; thinking: string; toolCalls: readonly ModelToolCall[] },
): ModelUsage {
  const promptTokens = estimatePromptTokens(request);
  const candidatesTokens = estimateTextTokens(
    answer.text + (answer.toolCalls.length > 0 ? JSON.stringify(answer.toolCalls) : ""),
  );
  const thoughtsTokens = estimateTextTokens(answer.thinking);
  return {
    promptTokens,
    candidatesTokens,
    thoughtsTokens,
    cachedTokens: 0,
    totalTokens: promptTokens + candidatesTokens + thoughtsTokens,
  };
}

/** Zero usage. */
export function emptyUsage(): ModelUsage {
  return { promptTokens: 0, candidatesTokens: 0, thoughtsTokens: 0, cachedTokens: 0, totalTokens: 0 };
}

/** `a + b`, field by field. */
export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    candidatesTokens: a.candidatesTokens + b.candidatesTokens,
    thoughtsTokens: a.thoughtsTokens + b.thoughtsTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** `a - b`, field by field. */
export function subtractUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    promptTokens: a.promptTokens - b.promptTokens,
    candidatesTokens: a.candidatesTokens - b.candidatesTokens,
    thoughtsTokens: a.thoughtsTokens - b.thoughtsTokens,
    cachedTokens: a.cachedTokens - b.cachedTokens,
    totalTokens: a.totalTokens - b.totalTokens,
  };
}

/** Wire `UsageMetadata` (§14; uint64 counters, sent as decimal strings). */
export function toUsageMetadata(usage: ModelUsage): MessageInitShape<typeof UsageMetadataSchema> {
  return {
    promptTokenCount: BigInt(usage.promptTokens),
    candidatesTokenCount: BigInt(usage.candidatesTokens),
    totalTokenCount: BigInt(usage.totalTokens),
    thoughtsTokenCount: BigInt(usage.thoughtsTokens),
    cachedContentTokenCount: BigInt(usage.cachedTokens),
  };
}
