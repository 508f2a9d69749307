import type { MessageInitShape, UsageMetadataSchema } from "@antigravity-ts/sdk/wire";
import type { ModelUsage } from "./model/provider.js";

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
