/** What became of a reply the client sent. */
export type SettleResult = "delivered" | "stale" | "unknown";

const RETIRED_LIMIT = 1024;

/**
 * Requests sent to the client that wait for its answer, keyed by request id (tool call id, hook
 * request id, `trajectoryId:stepIndex` …). A wait lasts until the answer arrives or its signal
 * aborts (halt, disconnect): the real harness's behaviour when the SDK never answers is
 * UNCONFIRMED (§23.4), so we wait indefinitely rather than invent a timeout. Keys of abandoned
 * waits are remembered so that a late answer is recognised as stale, not as bad input.
 */
export class PendingReplies<T> {
  readonly #waiting = new Map<string, { resolve: (value: T) => void }>();
  readonly #retired = new Set<string>();

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
        this.#retire(key);
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
    if (waiter === undefined) return this.#retired.has(key) ? "stale" : "unknown";
    this.#waiting.delete(key);
    this.#retire(key);
    waiter.resolve(value);
    return "delivered";
  }

  /** Whether an answer to `key` is awaited. */
  has(key: string): boolean {
    return this.#waiting.has(key);
  }

  #retire(key: string): void {
    this.#retired.add(key);
    if (this.#retired.size > RETIRED_LIMIT) {
      const oldest = this.#retired.values().next().value;
      if (oldest !== undefined) this.#retired.delete(oldest);
    }
  }
}
