import { usageFromWire } from "../mapping/index.js";
import { emptyUsage, type UsageMetadata } from "../step.js";
import type { TrajectoryUsageEntry, UsageMetadata as WireUsageMetadata } from "../wire/index.js";
import type { UsageSnapshot } from "./connection.js";

/**
 * Session usage as the harness reports it (§14): `total` replaces the session counter, each
 * per-trajectory entry replaces that trajectory's. Seeded by the init response on resume.
 */
export class UsageTracker {
  #total: UsageMetadata = emptyUsage();
  readonly #byTrajectory = new Map<string, UsageMetadata>();

  /** Applies an init response's `cumulativeUsage`/`trajectoryUsage` or a `usageUpdate`. */
  update(total: WireUsageMetadata | undefined, entries: readonly TrajectoryUsageEntry[]): void {
    if (total !== undefined) this.#total = usageFromWire(total);
    for (const entry of entries) this.#byTrajectory.set(entry.trajectoryId ?? "", usageFromWire(entry.usage));
  }

  /** A copy of the session total. */
  total(): UsageMetadata {
    return { ...this.#total };
  }

  /** A copy of the current counters. */
  snapshot(): UsageSnapshot {
    return { total: { ...this.#total }, byTrajectory: new Map(this.#byTrajectory) };
  }
}
