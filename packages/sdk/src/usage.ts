import { ErrorCode, SdkError } from "./errors.js";
import { emptyUsage } from "./step.js";
import type { UsageMetadata } from "./step.js";

/** The token counters of a {@link UsageMetadata} (every field but `serviceTier`). */
export const USAGE_COUNTERS = [
  "promptTokenCount",
  "candidatesTokenCount",
  "totalTokenCount",
  "cachedContentTokenCount",
  "thoughtsTokenCount",
] as const satisfies readonly (keyof UsageMetadata)[];
const FIELDS = USAGE_COUNTERS;

/**
 * Field-wise `a + b`. The service tier merges as upstream's `UsageMetadata.__add__`: one tier if
 * both agree or only one has one, `"standard"` when they differ.
 *
 * @example
 * const both = addUsage(first.turnUsage, second.turnUsage);
 */
export function addUsage(a: UsageMetadata, b: UsageMetadata): UsageMetadata {
  const out = emptyUsage();
  for (const f of FIELDS) out[f] = a[f] + b[f];
  const tier =
    a.serviceTier === undefined || b.serviceTier === undefined || a.serviceTier === b.serviceTier
      ? (a.serviceTier ?? b.serviceTier)
      : "standard";
  if (tier !== undefined) out.serviceTier = tier;
  return out;
}

/**
 * Field-wise `a - b`, floored at 0 (a counter that went backwards counts as no usage). Keeps
 * `a`'s service tier, the latest report (upstream's `__sub__` drops it, so its turn usage never
 * shows the tier its own example reads).
 */
export function subtractUsage(a: UsageMetadata, b: UsageMetadata): UsageMetadata {
  const out = emptyUsage();
  for (const f of FIELDS) out[f] = Math.max(0, a[f] - b[f]);
  if (a.serviceTier !== undefined) out.serviceTier = a.serviceTier;
  return out;
}

/**
 * The sum of `usages` (upstream `sum(usages, start=UsageMetadata())`, `UsageMetadata.__add__` /
 * `__radd__`, types.py Stars1233 @4bfe2531): counters added, tiers merged as {@link addUsage};
 * all zeros for none.
 *
 * @example
 * const spent = sumUsage(responses.map((response) => response.turnUsage));
 */
export function sumUsage(usages: Iterable<UsageMetadata>): UsageMetadata {
  let sum = emptyUsage();
  for (const usage of usages) sum = addUsage(sum, usage);
  return sum;
}

/**
 * `usage` with every counter scaled by `factor` and rounded half to even as Python's `round`
 * does (upstream `UsageMetadata.__mul__`, types.py Stars1233 @4bfe2531), the tier kept. `factor` must be a finite number ≥ 0
 * (`InvalidArgument` otherwise, as upstream raises `ValueError`).
 *
 * @example
 * const perRun = scaleUsage(sumUsage(runs), 1 / runs.length);
 */
export function scaleUsage(usage: UsageMetadata, factor: number): UsageMetadata {
  if (typeof factor !== "number" || !Number.isFinite(factor) || factor < 0)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `a usage scale factor must be a finite, non-negative number, got ${String(factor)}`,
    );
  const out = emptyUsage();
  for (const f of FIELDS) out[f] = roundHalfToEven(usage[f] * factor);
  if (usage.serviceTier !== undefined) out.serviceTier = usage.serviceTier;
  return out;
}

/** Python's `round(x)` for x >= 0: halves go to the even neighbour (4.5 → 4, 7.5 → 8). */
function roundHalfToEven(x: number): number {
  const rounded = Math.round(x);
  return rounded - x === 0.5 && rounded % 2 !== 0 ? rounded - 1 : rounded;
}

/** True when every counter is equal. */
export function usageEquals(a: UsageMetadata, b: UsageMetadata): boolean {
  return FIELDS.every((f) => a[f] === b[f]);
}

/** A copy with the five counters and the service tier only (drops anything else a connection may have attached). */
export function copyUsage(u: UsageMetadata): UsageMetadata {
  return addUsage(emptyUsage(), u);
}

/** Inputs of {@link computeTurnUsage}. */
export interface TurnUsageInput {
  /** The connection's `usage.total` when the turn started. */
  totalAtStart: UsageMetadata;
  /** The connection's `usage.total` when the turn ended. */
  totalAtEnd: UsageMetadata;
  /** Legacy per-step usage of the turn's steps: the latest `usageMetadata` of each step id. */
  stepUsages: Iterable<UsageMetadata>;
}

/** What a turn cost, and where the number came from. */
export interface TurnUsage {
  usage: UsageMetadata;
  /** True when the connection total did not move and the per-step usage was summed instead. */
  fromSteps: boolean;
}

/**
 * The usage of one turn. Harnesses ≈0.1.10+ report a cumulative total (§14 `usageUpdate`), so the
 * turn's usage is `totalAtEnd - totalAtStart`. Older harnesses attach usage to step updates
 * instead (§14, field 20) and the total never moves: then the per-step usages are summed.
 */
export function computeTurnUsage(input: TurnUsageInput): TurnUsage {
  if (!usageEquals(input.totalAtStart, input.totalAtEnd)) {
    return { usage: subtractUsage(input.totalAtEnd, input.totalAtStart), fromSteps: false };
  }
  let sum = emptyUsage();
  let any = false;
  for (const u of input.stepUsages) {
    sum = addUsage(sum, u);
    any = true;
  }
  return { usage: sum, fromSteps: any };
}
