import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions, Step } from "../types.js";
import { linkSignal, type LinkedSignal } from "../util/abort.js";
import { AsyncQueue } from "../util/async-queue.js";

/**
 * One turn as the connection tracks it (§6): the queue of its steps, its main trajectory, and
 * how it ended. A turn starts with `send()` (solicited) or with harness activity nobody asked
 * for, e.g. after a trigger (unsolicited). It settles once: ended, or failed with an `SdkError`.
 */
export class Turn {
  readonly queue = new AsyncQueue<Step>();
  /** Aborted when the turn is halted or settles: the signal client tools get. */
  readonly controller = new AbortController();
  /** Main trajectory id (§6.3): the first step's, or the first state update's. */
  main: string | undefined;
  /** True once the harness showed it is working on this turn (a step, RUNNING, a tool or hook request). */
  active = false;
  /** True once `halt()` was sent for this turn. */
  halted = false;
  #settled = false;

  constructor(readonly solicited: boolean) {}

  get settled(): boolean {
    return this.#settled;
  }

  /**
   * The turn's steps for one reader (`Connection.receiveSteps`), ending when the turn does. An
   * abort, a timeout or leaving the loop early releases the queue; the turn itself goes on.
   */
  steps(options?: CallOptions): AsyncIterable<Step, undefined> {
    return new TurnSteps(this.queue, options);
  }

  /** Queues a step; false when the turn already settled (the step is dropped). */
  push(step: Step): boolean {
    return !this.#settled && this.queue.push(step);
  }

  /** Marks the turn halted and aborts its tools' signals. */
  halt(): void {
    this.halted = true;
    this.controller.abort(new SdkError(ErrorCode.Canceled, "the turn was halted"));
  }

  /** Ends the turn normally after the queued steps. */
  end(): void {
    if (this.#settle()) this.queue.end();
  }

  /** Ends the turn with `error`, thrown to the reader after the queued steps. */
  fail(error: SdkError): void {
    if (this.#settle(error)) this.queue.fail(error);
  }

  #settle(reason?: SdkError): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    if (!this.controller.signal.aborted) this.controller.abort(reason ?? new SdkError(ErrorCode.Canceled, "the turn is over"));
    return true;
  }
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * {@link Turn.steps}: an async iterator over the turn's queue, written by hand rather than as an
 * async generator, which would add several promise hops to every step of a busy stream.
 */
class TurnSteps implements AsyncIterable<Step, undefined>, AsyncIterator<Step, undefined> {
  readonly #queue: AsyncQueue<Step>;
  readonly #options: CallOptions | undefined;
  /** Created on the first `next()`, like a generator's body would (so a timeout starts then). */
  #link: LinkedSignal | undefined;
  #done = false;

  constructor(queue: AsyncQueue<Step>, options: CallOptions | undefined) {
    this.#queue = queue;
    this.#options = options;
  }

  [Symbol.asyncIterator](): AsyncIterator<Step, undefined> {
    return this;
  }

  next(): Promise<IteratorResult<Step, undefined>> {
    if (this.#done) return Promise.resolve(DONE);
    const options = this.#options;
    if (options?.signal === undefined && options?.timeoutMs === undefined) {
      // Nothing can abort the wait: the queue's own promise. After an end or a failure the queue
      // only answers `done`, as a finished generator would.
      return this.#queue.read();
    }
    this.#link ??= linkSignal(options);
    return this.#queue.read(this.#link.signal).then(
      (result) => {
        if (result.done === true) this.#stop(false);
        return result;
      },
      (error: unknown) => {
        this.#stop(true);
        throw error;
      },
    );
  }

  return(): Promise<IteratorResult<Step, undefined>> {
    this.#stop(true);
    return Promise.resolve(DONE);
  }

  /** Ends this reader; `release` gives up the rest of the turn unless the queue is already over. */
  #stop(release: boolean): void {
    if (this.#done) return;
    this.#done = true;
    this.#link?.dispose();
    if (release && !this.#queue.closed) this.#queue.release();
  }
}

/** A stream with no steps: `receiveSteps()` before the first turn. */
const NO_STEPS: AsyncIterable<Step, undefined> = {
  [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(DONE) }),
};

/**
 * `Connection.receiveSteps`: the steps of the turn `currentTurn()` returns on the first `next()`
 * (as a generator body would run then), so a stream created before `send()` reads that turn.
 */
export function lazyTurnSteps(currentTurn: () => Turn | undefined, options: CallOptions | undefined): AsyncIterable<Step> {
  let steps: AsyncIterator<Step, undefined> | undefined;
  const open = (): AsyncIterator<Step, undefined> => (steps ??= (currentTurn()?.steps(options) ?? NO_STEPS)[Symbol.asyncIterator]());
  const iterator: AsyncIterator<Step, undefined> = {
    next: () => open().next(),
    return: () => steps?.return?.() ?? Promise.resolve(DONE),
  };
  return { [Symbol.asyncIterator]: () => iterator };
}
