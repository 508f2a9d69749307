import { abortError } from "../util/abort.js";
import { AsyncQueue } from "../util/async-queue.js";
import type { ChatStream } from "./chat-stream.js";

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
