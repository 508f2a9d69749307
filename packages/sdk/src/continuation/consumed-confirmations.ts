import { ErrorCode, SdkError } from "../errors.js";
import { canonicalJson } from "./canonical-json.js";
import type { PendingToolCall } from "./continuation.js";

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

/**
 * What a {@link ConsumedConfirmations} guard keys a resumed call by, besides its step: the
 * conversation and a SHA-256 of the signed call (tool and canonical arguments), so another call
 * that a re-created conversation holds at the same step is not taken for a replay of this one.
 */
export async function signedCallKey(conversationId: string, call: PendingToolCall): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson([call.name, call.args ?? null]));
  const subtle = (globalThis as { crypto?: { subtle?: { digest(algorithm: "SHA-256", data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> } } }).crypto?.subtle;
  if (subtle === undefined) throw new SdkError(ErrorCode.FailedPrecondition, "this runtime has no WebCrypto (globalThis.crypto.subtle); continuations cannot be resumed here");
  const digest = new Uint8Array(await subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return `${conversationId}/${hex}/${call.trajectoryId}`;
}
