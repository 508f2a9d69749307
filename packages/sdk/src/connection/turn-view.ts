import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import type { Step } from "../step.js";
import { abortError, linkSignal, throwIfAborted } from "../util/abort.js";
import { UsageMark, type Turn, type TurnEntry, type TurnOutcome } from "./turn.js";

/**
 * One cancellation, shared by everything that reads a turn: fired once, it ends every view that
 * watches it at its next read, even with entries still unread, and wakes the views waiting on
 * the turn so they see it at once.
 */
export class Interrupt {
  readonly #turn: Turn;
  #reason: SdkError | undefined;
  #fired: { promise: Promise<SdkError>; resolve: (reason: SdkError) => void } | undefined;

  constructor(turn: Turn) {
    this.#turn = turn;
  }

  /** The error views end with, once fired. */
  get reason(): SdkError | undefined {
    return this.#reason;
  }

  /** Resolves with the reason when fired. */
  whenFired(): Promise<SdkError> {
    if (this.#reason !== undefined) return Promise.resolve(this.#reason);
    if (this.#fired === undefined) {
      let resolve!: (reason: SdkError) => void;
      const promise = new Promise<SdkError>((r) => (resolve = r));
      this.#fired = { promise, resolve };
    }
    return this.#fired.promise;
  }

  /** Fires with `reason` (first call wins). */
  fire(reason: SdkError): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#fired?.resolve(reason);
    this.#turn.wake();
  }
}

/** What a view reads: a turn, and the interrupt that ends its views early. */
export interface ViewSource {
  turn: Turn;
  interrupt?: Interrupt | undefined;
}

/** The source of a bare turn (no interrupt of its own), or none. */
export function viewOf(turn: Turn | undefined): ViewSource | undefined {
  return turn === undefined ? undefined : { turn };
}

/** Turns a turn's entries into a view's items. */
export interface ViewMapper<T> {
  /** Appends the items of one entry (often none, or one) to `out`. */
  map(entry: TurnEntry, out: T[]): void;
  /** Appends the items that follow the last entry when the turn ended without error. */
  end?(outcome: TurnOutcome, out: T[]): void;
}

/** The raw-steps mapper: every step update, no usage marks. */
export const STEP_MAPPER: ViewMapper<Step> = {
  map(entry, out) {
    if (!(entry instanceof UsageMark)) out.push(entry);
  },
};

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * An independent cursor over one turn's buffer, from its first entry: yields what `mapper` makes
 * of each entry as it arrives, ends with the turn, or throws the turn's error after its last
 * entry. The source may still be on its way (a prompt being sent); a failed source is thrown.
 * An interrupt ends the view at once with its reason. Leaving early (`return()`) only releases
 * this view. Written by hand rather than as an async generator: a busy stream would pay several
 * promise hops per step.
 */
export class TurnView<T> implements AsyncIterableIterator<T, undefined> {
  #source: ViewSource | undefined;
  readonly #pendingSource: PromiseLike<ViewSource> | undefined;
  readonly #mapper: ViewMapper<T>;
  readonly #onClose: (() => void) | undefined;
  #index = 0;
  #items: T[] = [];
  #head = 0;
  #ended = false;
  #done = false;

  constructor(source: ViewSource | PromiseLike<ViewSource>, mapper: ViewMapper<T>, onClose?: () => void) {
    if ("then" in source) this.#pendingSource = source;
    else this.#source = source;
    this.#mapper = mapper;
    this.#onClose = onClose;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#done) return Promise.resolve(DONE);
    const source = this.#source;
    if (source === undefined) {
      const pending = this.#pendingSource as PromiseLike<ViewSource>;
      return Promise.resolve(pending).then(
        (resolved) => {
          this.#source = resolved;
          return this.next();
        },
        (error: unknown) => this.#fail(SdkError.from(error)),
      );
    }
    const interrupted = source.interrupt?.reason;
    if (interrupted !== undefined) return this.#fail(interrupted);
    const item = this.#take(source.turn);
    if (item !== undefined) return Promise.resolve({ done: false, value: item.value });
    if (this.#ended) {
      const error = source.turn.outcome?.error;
      if (error !== undefined) return this.#fail(error);
      this.#close();
      return Promise.resolve(DONE);
    }
    return source.turn.changed().then(() => this.next());
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.#close();
    return Promise.resolve(DONE);
  }

  /** The next item, reading entries as needed; sets `#ended` when the turn is over and read. */
  #take(turn: Turn): { value: T } | undefined {
    for (;;) {
      if (this.#head < this.#items.length) {
        const value = this.#items[this.#head] as T;
        this.#items[this.#head++] = undefined as T;
        return { value };
      }
      this.#items.length = 0;
      this.#head = 0;
      if (this.#index < turn.size) {
        this.#mapper.map(turn.entry(this.#index++) as TurnEntry, this.#items);
        continue;
      }
      const outcome = turn.outcome;
      if (outcome === undefined || this.#ended) return undefined;
      this.#ended = true;
      if (outcome.error === undefined) this.#mapper.end?.(outcome, this.#items);
    }
  }

  #fail(error: SdkError): Promise<never> {
    this.#close();
    return Promise.reject(error);
  }

  #close(): void {
    if (this.#done) return;
    this.#done = true;
    this.#items = [];
    this.#onClose?.();
  }
}

/** A view that yields nothing: a read before any turn. */
export function emptyView<T>(): AsyncIterableIterator<T, undefined> {
  const iterator: AsyncIterableIterator<T, undefined> = {
    next: () => Promise.resolve(DONE),
    return: () => Promise.resolve(DONE),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** `FailedPrecondition` for an observer set twice. */
export function observerTaken(): SdkError {
  return new SdkError(
    ErrorCode.FailedPrecondition,
    "this connection already reports its turns to another observer (one Conversation per connection)",
  );
}

/**
 * A view, opened at its first `next()`, of the turn `current()` gives then — the running one,
 * else the last (none: an empty view; so a reader made before `send()` reads that turn) — from
 * the turn's start. The one "latest turn" view of the SDK (`Connection.receiveSteps`,
 * `Conversation.receiveSteps`/`receiveChunks`): aborting `options.signal`, or its `timeoutMs`,
 * **stops this reader** with that error and detaches every listener; the turn goes on (cancelling
 * a turn is `Conversation.cancel()` / `ChatStream.abort()`). The source's own interrupt (a
 * cancel) ends it too. Leaving early leaves only this view.
 */
export function latestTurnView<T>(
  current: () => ViewSource | undefined,
  mapper: () => ViewMapper<T>,
  options?: CallOptions,
): AsyncIterable<T> {
  let view: AsyncIterableIterator<T, undefined> | undefined;
  const open = (): AsyncIterableIterator<T, undefined> => {
    if (view !== undefined) return view;
    const source = current();
    if (source === undefined) {
      throwIfAborted(options?.signal);
      return (view = emptyView());
    }
    if (options?.signal === undefined && options?.timeoutMs === undefined)
      return (view = new TurnView(source, mapper()));
    const link = linkSignal(options);
    const stop = new Interrupt(source.turn);
    const onAbort = (): void => stop.fire(abortError(link.signal));
    if (link.signal.aborted) onAbort();
    else link.signal.addEventListener("abort", onAbort, { once: true });
    void source.interrupt?.whenFired().then((reason) => stop.fire(reason));
    return (view = new TurnView({ turn: source.turn, interrupt: stop }, mapper(), () => {
      link.signal.removeEventListener("abort", onAbort);
      link.dispose();
    }));
  };
  const iterator: AsyncIterator<T, undefined> = {
    next: () => {
      try {
        return open().next();
      } catch (error) {
        return Promise.reject(SdkError.from(error));
      }
    },
    return: () => view?.return?.() ?? Promise.resolve(DONE),
  };
  return { [Symbol.asyncIterator]: () => iterator };
}
