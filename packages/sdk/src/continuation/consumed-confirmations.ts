import { ErrorCode, SdkError } from "../errors.js";
import { canonicalJson } from "./canonical-json.js";
import type { PendingToolCall } from "./continuation.js";

/** Consumed keys remembered by {@link ConsumedConfirmations}; the oldest are forgotten past this. */
const LIMIT = 4096;

/**
 * The replay guard of `agent.resume` (the agent's `resumeGuard` option): remembers the
 * confirmations resumed, so a continuation is resumed once. Across processes the harness is the
 * other half of the guard — once answered, the step no longer waits and `agent.resume` refuses
 * with `NotFound` — and a server that keeps its guard in a shared store (a database, a Durable
 * Object) refuses replays across its processes before anything is sent.
 */
export interface ResumeGuard {
  /** Marks `key` consumed; throws (or rejects with) `FailedPrecondition`, `details.reason` `"replayed"`, when it already was. */
  consume(key: string): void | Promise<void>;
}

/**
 * A {@link ResumeGuard} in memory, keeping the newest 4,096 keys. Agents share
 * {@link processResumeGuard} unless given their own.
 */
export class ConsumedConfirmations implements ResumeGuard {
  readonly #keys = new Set<string>();

  consume(key: string): void {
    if (this.#keys.has(key)) throw replayed(key);
    this.#keys.add(key);
    if (this.#keys.size > LIMIT) {
      const oldest = this.#keys.values().next().value;
      if (oldest !== undefined) this.#keys.delete(oldest);
    }
  }

  /** Whether the confirmation was consumed here. */
  has(key: string): boolean {
    return this.#keys.has(key);
  }
}

/** The guard of every agent in this process that was given none (`resumeGuard`). */
export const processResumeGuard: ResumeGuard = new ConsumedConfirmations();

/** The error a {@link ResumeGuard} throws for a key it has seen. */
export function replayed(key: string): SdkError {
  return new SdkError(
    ErrorCode.FailedPrecondition,
    `the confirmation ${key} was already resumed: a continuation can be resumed once`,
    { details: { reason: "replayed" } },
  );
}

/**
 * What a {@link ResumeGuard} keys a resumed call by: the conversation, a SHA-256 of the signed
 * call (tool and canonical arguments, so another call that a re-created conversation holds at the
 * same step is not taken for a replay of this one), and the step.
 */
export async function signedCallKey(conversationId: string, call: PendingToolCall): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson([call.name, call.args ?? null]));
  const subtle = (
    globalThis as {
      crypto?: { subtle?: { digest(algorithm: "SHA-256", data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> } };
    }
  ).crypto?.subtle;
  if (subtle === undefined)
    throw new SdkError(
      ErrorCode.FailedPrecondition,
      "this runtime has no WebCrypto (globalThis.crypto.subtle); continuations cannot be resumed here",
    );
  const digest = new Uint8Array(await subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return `${conversationId}/${hex}/${call.trajectoryId}:${call.stepIndex}`;
}
