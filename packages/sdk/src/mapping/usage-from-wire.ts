import type {
  TrajectoryStateUpdate,
  UsageMetadata as WireUsageMetadata,
} from "../gen/antigravity/localharness/localharness_pb.js";
import { TrajectoryStateUpdate_StopReason } from "../wire/wire-enums.gen.js";
import { emptyUsage, type StopReason, type UsageMetadata } from "../step.js";

/**
 * Token counts of a wire `UsageMetadata` (§14) as plain numbers. The wire counters are uint64
 * (bigint after decoding); unset counters and a missing message count as 0. Counts above
 * `Number.MAX_SAFE_INTEGER` lose precision, which no real token count reaches. A non-empty
 * `serviceTier` is kept as is.
 *
 * @example
 * usageFromWire(event.event.value.total).totalTokenCount; // 821
 */
export function usageFromWire(usage?: WireUsageMetadata): UsageMetadata {
  if (usage === undefined) return emptyUsage();
  return {
    promptTokenCount: toNumber(usage.promptTokenCount),
    candidatesTokenCount: toNumber(usage.candidatesTokenCount),
    totalTokenCount: toNumber(usage.totalTokenCount),
    cachedContentTokenCount: toNumber(usage.cachedContentTokenCount),
    thoughtsTokenCount: toNumber(usage.thoughtsTokenCount),
    // Upstream `parse_usage_metadata` (event_processor.py): the tier when non-empty, else none.
    ...(usage.serviceTier ? { serviceTier: usage.serviceTier } : {}),
  };
}

function toNumber(count: bigint | undefined): number {
  return count === undefined ? 0 : Number(count);
}

const STOP_REASONS: Readonly<Record<number, StopReason>> = {
  [TrajectoryStateUpdate_StopReason.MAX_MODEL_CALLS_EXCEEDED]: "MAX_MODEL_CALLS_EXCEEDED",
  [TrajectoryStateUpdate_StopReason.MAX_TOOL_CALLS_EXCEEDED]: "MAX_TOOL_CALLS_EXCEEDED",
  [TrajectoryStateUpdate_StopReason.MAX_INPUT_TOKENS_EXCEEDED]: "MAX_INPUT_TOKENS_EXCEEDED",
  [TrajectoryStateUpdate_StopReason.MAX_OUTPUT_TOKENS_EXCEEDED]: "MAX_OUTPUT_TOKENS_EXCEEDED",
  [TrajectoryStateUpdate_StopReason.MAX_TOTAL_TOKENS_EXCEEDED]: "MAX_TOTAL_TOKENS_EXCEEDED",
  [TrajectoryStateUpdate_StopReason.QUOTA_EXHAUSTED]: "QUOTA_EXHAUSTED",
};

/**
 * The SDK stop reason of a `trajectoryStateUpdate.stopReason` (§6.3, §16). Unset,
 * `STOP_REASON_UNSPECIFIED` and numbers this SDK does not know give `undefined`.
 */
export function stopReasonFromWire(reason?: TrajectoryStateUpdate["stopReason"]): StopReason | undefined {
  return reason === undefined ? undefined : STOP_REASONS[reason];
}
