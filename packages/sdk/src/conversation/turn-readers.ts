import { emptyView } from "../connection/turn-view.js";
import { SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import { abortError, linkSignal, throwIfAborted, type LinkedSignal } from "../util/abort.js";
import { AsyncQueue } from "../util/async-queue.js";
import type { ChatStream } from "./chat-stream.js";
import type { TurnPump } from "./turn-pump.js";

/**
 * The readers of `Conversation.turns()`: each gets a {@link ChatStream} for every turn that
 * starts while it reads, until its signal aborts, it leaves its loop, or they all {@link end}.
 */
export class TurnWatchers {
  readonly #queues = new Set<AsyncQueue<ChatStream>>();

  /** A reader: the running turn first (when `running` gives one), then every new turn. */
  watch(running: ChatStream | undefined, options?: { signal?: AbortSignal }): AsyncIterator<ChatStream, undefined> {
    const signal = options?.signal;
    const onAbort = (): void => queue.fail(abortError(signal as AbortSignal));
    const queue = new AsyncQueue<ChatStream>({
      onRelease: () => {
        this.#queues.delete(queue);
        signal?.removeEventListener("abort", onAbort);
      },
    });
    if (signal?.aborted) onAbort();
    else {
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queues.add(queue);
      if (running !== undefined) queue.push(running);
    }
    return queue[Symbol.asyncIterator]();
  }

  /** A turn started: every reader gets its own stream of it. */
  push(stream: () => ChatStream): void {
    for (const queue of this.#queues) queue.push(stream());
  }

  /** Ends every reader's loop (the conversation is disconnected). */
  end(): void {
    for (const queue of this.#queues) queue.end();
    this.#queues.clear();
  }
}

/**
 * `receiveSteps`/`receiveChunks`: a view, opened at the first `next()`, of the turn `latest()`
 * gives then (none: an empty view). An abort or timeout of `options` cancels that turn (§13);
 * leaving early only leaves the view. Every listener on the caller's signal is detached when the
 * turn is over or the view is left.
 */
export function receiveLatest<T>(
  latest: () => TurnPump | undefined,
  streamOf: (pump: TurnPump) => ChatStream,
  options: CallOptions | undefined,
  read: (stream: ChatStream) => AsyncIterator<T, undefined>,
): AsyncIterable<T> {
  let view: AsyncIterator<T, undefined> | undefined;
  let link: LinkedSignal | undefined;
  const open = (): AsyncIterator<T, undefined> => {
    if (view !== undefined) return view;
    const pump = latest();
    if (pump === undefined) {
      throwIfAborted(options?.signal);
      return (view = emptyView());
    }
    if (options?.signal !== undefined || options?.timeoutMs !== undefined) {
      const linked = (link = linkSignal(options));
      const onAbort = (): void => pump.cancel(abortError(linked.signal));
      if (linked.signal.aborted) onAbort();
      else linked.signal.addEventListener("abort", onAbort, { once: true });
      void pump.turn.over().then(linked.dispose);
    }
    return (view = read(streamOf(pump)));
  };
  const iterator: AsyncIterator<T, undefined> = {
    next: () => {
      try {
        return open().next();
      } catch (error) {
        return Promise.reject(SdkError.from(error));
      }
    },
    return: () => {
      link?.dispose();
      return view?.return?.() ?? Promise.resolve({ done: true, value: undefined });
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}
