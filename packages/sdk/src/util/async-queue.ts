import { ErrorCode, SdkError } from "../errors.js";
import { abortError } from "./abort.js";

/** Options of {@link AsyncQueue}. */
export interface AsyncQueueOptions {
  /** Called once when the consumer releases the queue (iterator `return()` or {@link AsyncQueue.release}). */
  onRelease?: () => void;
}

interface Waiter<T> {
  resolve(result: IteratorResult<T, undefined>): void;
  reject(error: unknown): void;
}

type State = "open" | "ended" | "failed" | "released";

/**
 * An unbounded push queue read by one consumer, as an `AsyncIterable`. The producer calls
 * `push` / `end` / `fail`; the consumer iterates (or calls `read`). Values pushed before `end`
 * or `fail` are always delivered first; then iteration completes, or throws the `fail` error.
 *
 * Leaving a `for await` loop early (iterator `return()`) releases the queue: buffered values are
 * dropped, later pushes return `false`, and `onRelease` runs so the producer can stop.
 *
 * @example
 * const queue = new AsyncQueue<number>();
 * queue.push(1); queue.end();
 * for await (const n of queue) console.log(n);
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  readonly #buffer: T[] = [];
  #head = 0;
  #state: State = "open";
  #error: unknown;
  #waiter: Waiter<T> | undefined;
  #iterating = false;
  readonly #onRelease: (() => void) | undefined;

  constructor(options?: AsyncQueueOptions) {
    this.#onRelease = options?.onRelease;
  }

  /** Number of values waiting to be read. */
  get size(): number {
    return this.#buffer.length - this.#head;
  }

  /** True once `end`, `fail` or `release` was called: `push` no longer accepts values. */
  get closed(): boolean {
    return this.#state !== "open";
  }

  /** True once the consumer released the queue. */
  get released(): boolean {
    return this.#state === "released";
  }

  /** Adds a value. Returns `false` (and drops the value) when the queue is closed. */
  push(value: T): boolean {
    if (this.#state !== "open") return false;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter.resolve({ done: false, value });
    } else {
      this.#buffer.push(value);
    }
    return true;
  }

  /** Completes the queue after the buffered values. Ignored when already closed. */
  end(): void {
    if (this.#state !== "open") return;
    this.#state = "ended";
    this.#settleWaiter();
  }

  /** Makes the consumer throw `error` after the buffered values. Ignored when already closed. */
  fail(error: unknown): void {
    if (this.#state !== "open") return;
    this.#state = "failed";
    this.#error = error;
    this.#settleWaiter();
  }

  /** Drops buffered values and closes the queue from the consumer side; runs `onRelease` once. */
  release(): void {
    if (this.#state === "released") return;
    this.#state = "released";
    this.#error = undefined;
    this.#buffer.length = 0;
    this.#head = 0;
    this.#settleWaiter();
    this.#onRelease?.();
  }

  /**
   * Reads the next value, waiting if none is buffered. Rejects with `FailedPrecondition` if another
   * read is already waiting, and with the signal's `SdkError` if `signal` aborts (no value is lost).
   */
  read(signal?: AbortSignal): Promise<IteratorResult<T, undefined>> {
    if (this.size > 0) return Promise.resolve({ done: false, value: this.#shift() });
    if (this.#state === "failed") {
      this.#state = "ended";
      const error = this.#error;
      this.#error = undefined;
      return Promise.reject(error);
    }
    if (this.#state !== "open") return Promise.resolve({ done: true, value: undefined });
    if (this.#waiter !== undefined) {
      return Promise.reject(
        new SdkError(
          ErrorCode.FailedPrecondition,
          "AsyncQueue has a single consumer: wait for the pending read before reading again",
        ),
      );
    }
    if (signal === undefined) return new Promise((resolve, reject) => (this.#waiter = { resolve, reject })); // nothing to detach: the common read costs one promise
    if (signal.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (this.#waiter === waiter) this.#waiter = undefined;
        reject(abortError(signal));
      };
      const waiter: Waiter<T> = {
        resolve: (result) => {
          signal.removeEventListener("abort", onAbort);
          resolve(result);
        },
        reject: (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      this.#waiter = waiter;
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * The single consumer's iterator. `return()` (leaving a `for await` early) releases the queue.
   * Throws `FailedPrecondition` when called a second time.
   */
  [Symbol.asyncIterator](): AsyncIterator<T, undefined> {
    if (this.#iterating)
      throw new SdkError(
        ErrorCode.FailedPrecondition,
        "AsyncQueue has a single consumer: it is already being iterated",
      );
    this.#iterating = true;
    return {
      next: () => this.read(),
      return: () => {
        this.release();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  /**
   * An iterator over {@link read} whose `return()` leaves the queue open: for a consumer that
   * shares the queue between `for await` loops and direct reads (a session's `nextEvent()`).
   */
  readerIterator(): AsyncIterator<T, undefined> {
    return { next: () => this.read(), return: () => Promise.resolve({ done: true, value: undefined }) };
  }

  #shift(): T {
    const value = this.#buffer[this.#head] as T;
    this.#buffer[this.#head] = undefined as T;
    this.#head++;
    // Compact once the consumed prefix dominates: amortised O(1) per value.
    if (this.#head >= 1024 && this.#head * 2 >= this.#buffer.length) {
      this.#buffer.splice(0, this.#head);
      this.#head = 0;
    } else if (this.#head === this.#buffer.length) {
      this.#buffer.length = 0;
      this.#head = 0;
    }
    return value;
  }

  #settleWaiter(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    if (this.#state === "failed") {
      this.#state = "ended";
      const error = this.#error;
      this.#error = undefined;
      waiter.reject(error);
    } else {
      waiter.resolve({ done: true, value: undefined });
    }
  }
}
