import { ErrorCode, SdkError } from "../errors.js";

/** Consumed keys remembered per guard; the oldest are forgotten past this (a guard lives as long as its agent). */
const LIMIT = 4096;

/**
 * The confirmations a process has already resumed, keyed by the awaited
 * `(trajectoryId, stepIndex)` (§8: what a `toolConfirmation` answers). Resuming one twice is a
 * replay and is refused before anything is sent. Across processes the harness is the other half
 * of the guard: once answered, the step no longer waits, and `agent.resume` refuses with
 * `NotFound`.
 */
export class ConsumedConfirmations {
  readonly #keys = new Set<string>();

  /** Marks the confirmation consumed; throws `FailedPrecondition` (details.reason `"replayed"`) when it already was. */
  consume(trajectoryId: string, stepIndex: number): void {
    const key = `${trajectoryId}:${stepIndex}`;
    if (this.#keys.has(key)) {
      throw new SdkError(ErrorCode.FailedPrecondition, `the confirmation of step ${key} was already resumed: a continuation can be resumed once`, { details: { reason: "replayed" } });
    }
    this.#keys.add(key);
    if (this.#keys.size > LIMIT) {
      const oldest = this.#keys.values().next().value;
      if (oldest !== undefined) this.#keys.delete(oldest);
    }
  }

  /** Whether the confirmation was consumed here. */
  has(trajectoryId: string, stepIndex: number): boolean {
    return this.#keys.has(`${trajectoryId}:${stepIndex}`);
  }
}
