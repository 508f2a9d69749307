import { SdkError } from "../errors.js";
import type { Step, UsageMetadata } from "../types.js";
import { abortError } from "../util/abort.js";

/** How a turn reader reports to its conversation. */
export interface TurnReaderHooks {
  /**
   * Stores a step update in history. Synchronous: it is in-memory work, and a synchronous
   * critical section needs no lock in JavaScript (nothing else runs until it returns).
   */
  record(step: Step): void;
  /** Called once when the turn is over (ended or failed). */
  finish(summary: TurnSummary): Promise<void>;
}

/** What a reader saw of its turn. */
export interface TurnSummary {
  /** Whether at least one step arrived. */
  sawSteps: boolean;
  /** Latest legacy per-step usage of each step id (§14, pre-0.1.10 harnesses). */
  stepUsages: UsageMetadata[];
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * Reads one turn from `Connection.receiveSteps()` and records every step it pulls. A consumer
 * reads through `next(signal)`; when it goes away early, `drain()` reads the rest into history.
 *
 * An aborted `next` leaves the pull it was waiting for in flight, and the next `next` (usually
 * the drain's) picks it up, so no step is ever lost between the consumer and the drain.
 */
export class TurnReader {
  readonly #iterator: AsyncIterator<Step>;
  readonly #hooks: TurnReaderHooks;
  readonly #stepUsages = new Map<string, UsageMetadata>();
  #finished = false;
  #sawSteps = false;
  /** A pull of the source is in flight. */
  #pulling = false;
  /** What a pull brought while nobody was waiting (its reader aborted): the next `next` takes it. */
  #stashed: { result: IteratorResult<Step> } | { error: unknown } | undefined;
  /** The `next` waiting now. */
  #resolve: ((result: IteratorResult<Step, undefined>) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  /** The signal `next` listens to, with one listener for all its calls (not one per step). */
  #signal: AbortSignal | undefined;

  constructor(steps: AsyncIterable<Step>, hooks: TurnReaderHooks) {
    this.#iterator = steps[Symbol.asyncIterator]();
    this.#hooks = hooks;
  }

  /** True once the turn ended or failed. */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * The next step, already recorded; `done` at the end of the turn. Throws the turn's `SdkError`,
   * or the signal's `SdkError` when `signal` aborts first (the turn is then still unfinished).
   * One call at a time.
   */
  next(signal?: AbortSignal): Promise<IteratorResult<Step, undefined>> {
    if (this.#finished) return Promise.resolve(DONE);
    if (signal !== undefined) {
      if (signal.aborted) return Promise.reject(abortError(signal));
      this.#listen(signal);
    }
    return new Promise<IteratorResult<Step, undefined>>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      const stashed = this.#stashed;
      if (stashed !== undefined) {
        this.#stashed = undefined;
        if ("result" in stashed) this.#onResult(stashed.result);
        else this.#onError(stashed.error);
      } else if (!this.#pulling) {
        this.#pulling = true;
        this.#iterator.next().then(this.#pulled, this.#failed);
      }
    });
  }

  /**
   * Reads the rest of the turn into history, after `before` settles (e.g. a halt request).
   * Never rejects: a failure of a turn nobody is reading any more has no one to report to.
   */
  async drain(before?: Promise<unknown>): Promise<void> {
    await before?.catch(() => undefined);
    this.#detach();
    try {
      while (!(await this.next()).done);
    } catch {
      // The turn failed (halted, execution error, connection closed): it is over, history keeps what arrived.
    }
  }

  readonly #pulled = (result: IteratorResult<Step>): void => {
    this.#pulling = false;
    if (this.#resolve === undefined) this.#stashed = { result };
    else this.#onResult(result);
  };

  readonly #failed = (error: unknown): void => {
    this.#pulling = false;
    if (this.#resolve === undefined) this.#stashed = { error };
    else this.#onError(error);
  };

  /** Hands `result` to the waiting `next`: records a step, or finishes at the end. */
  #onResult(result: IteratorResult<Step>): void {
    const reject = this.#reject;
    const resolve = this.#take();
    if (result.done === true) {
      this.#finish().then(() => resolve?.(DONE), (error: unknown) => reject?.(error));
      return;
    }
    const step = result.value;
    this.#sawSteps = true;
    if (step.usageMetadata !== undefined) this.#stepUsages.set(step.id, step.usageMetadata);
    this.#hooks.record(step);
    resolve?.({ done: false, value: step });
  }

  #onError(error: unknown): void {
    const reject = this.#reject;
    this.#take();
    const failure = SdkError.from(error);
    this.#finish().then(() => reject?.(failure), () => reject?.(failure));
  }

  /** Detaches the waiting `next` and returns its resolver. */
  #take(): ((result: IteratorResult<Step, undefined>) => void) | undefined {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#reject = undefined;
    return resolve;
  }

  #listen(signal: AbortSignal): void {
    if (this.#signal === signal) return;
    this.#detach();
    this.#signal = signal;
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** The signal aborted: the waiting `next` rejects; a pull in flight is kept for the next one. */
  readonly #onAbort = (): void => {
    const reject = this.#reject;
    const signal = this.#signal;
    this.#resolve = undefined;
    this.#reject = undefined;
    if (reject !== undefined && signal !== undefined) reject(abortError(signal));
  };

  #detach(): void {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#signal = undefined;
  }

  async #finish(): Promise<void> {
    this.#finished = true;
    this.#detach();
    await this.#hooks.finish({ sawSteps: this.#sawSteps, stepUsages: [...this.#stepUsages.values()] });
  }
}
