/**
 * What became of a reply the client sent: delivered to its waiter; `late` (its wait was abandoned,
 * e.g. by a halt); `duplicate` (already answered); `unknown` (never asked).
 */
export type SettleResult = "delivered" | "late" | "duplicate" | "unknown";

const RETIRED_LIMIT = 1024;

/**
 * Requests sent to the client that wait for its answer, keyed by request id (tool call id, hook
 * request id, `trajectoryId:stepIndex` …). A wait lasts until the answer arrives or its signal
 * aborts (halt, disconnect): the real harness's behaviour when the SDK never answers is
 * UNCONFIRMED (§23.4), so we wait indefinitely rather than invent a timeout. Settled keys are
 * remembered so that a late or repeated answer is recognised as such, not as bad input.
 */
export class PendingReplies<T> {
  readonly #waiting = new Map<string, { resolve: (value: T) => void }>();
  readonly #retired = new Map<string, "late" | "duplicate">();

  /** Waits for the answer to `key`; rejects with the signal's reason when it aborts. */
  wait(key: string, signal: AbortSignal): Promise<T> {
    if (this.#waiting.has(key)) return Promise.reject(new Error(`already waiting for a reply to ${key}`));
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        this.#waiting.delete(key);
        this.#retire(key, "late");
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(key, {
        resolve: (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
      });
    });
  }

  /** Delivers an answer. */
  settle(key: string, value: T): SettleResult {
    const waiter = this.#waiting.get(key);
    if (waiter === undefined) return this.#retired.get(key) ?? "unknown";
    this.#waiting.delete(key);
    this.#retire(key, "duplicate");
    waiter.resolve(value);
    return "delivered";
  }

  /** Whether an answer to `key` is awaited. */
  has(key: string): boolean {
    return this.#waiting.has(key);
  }

  /** Remembers a settled key (the oldest are forgotten past {@link RETIRED_LIMIT}); `as` is what a later answer to it is. */
  #retire(key: string, as: "late" | "duplicate"): void {
    this.#retired.delete(key);
    this.#retired.set(key, as);
    if (this.#retired.size > RETIRED_LIMIT) {
      const oldest = this.#retired.keys().next().value;
      if (oldest !== undefined) this.#retired.delete(oldest);
    }
  }
}
