import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import { AsyncQueue } from "../util/async-queue.js";
import { throwIfAborted } from "../util/abort.js";
import type { Channel, Transport } from "./transport.js";

/** One end of an in-memory channel pair. */
export interface InMemoryChannel extends Channel {
  /** True once either end closed or dropped the pair. */
  readonly closed: boolean;
  /**
   * Simulates a dropped connection: both ends close and the *other* end's `frames()` throws
   * `error` (default `ConnectionClosed`) after the frames already delivered.
   */
  drop(error?: SdkError): void;
}

interface Link {
  closed: boolean;
  queues: [AsyncQueue<string>, AsyncQueue<string>];
}

class InMemoryEnd implements InMemoryChannel {
  readonly #link: Link;
  readonly #side: 0 | 1;
  #reading = false;

  constructor(link: Link, side: 0 | 1) {
    this.#link = link;
    this.#side = side;
  }

  get closed(): boolean {
    return this.#link.closed;
  }

  send(frame: string): void {
    if (this.#link.closed)
      throw new SdkError(ErrorCode.ConnectionClosed, "cannot send: the in-memory channel is closed");
    this.#link.queues[1 - this.#side]?.push(frame);
  }

  frames(): AsyncIterable<string> {
    if (this.#reading)
      throw new SdkError(
        ErrorCode.FailedPrecondition,
        "frames() has a single consumer and was already called on this channel",
      );
    this.#reading = true;
    return this.#link.queues[this.#side] as AsyncQueue<string>;
  }

  close(_options?: CallOptions): Promise<void> {
    if (!this.#link.closed) {
      this.#link.closed = true;
      for (const queue of this.#link.queues) queue.end();
    }
    return Promise.resolve();
  }

  drop(error: SdkError = new SdkError(ErrorCode.ConnectionClosed, "the in-memory connection was dropped")): void {
    if (this.#link.closed) return;
    this.#link.closed = true;
    this.#link.queues[1 - this.#side]?.fail(error);
    this.#link.queues[this.#side]?.end();
  }
}

/**
 * Two connected in-memory channels: what one sends, the other's `frames()` yields, in order,
 * buffered until read. `close()` on either end ends both streams normally; `drop()` makes the
 * other end's stream throw, as a crashed peer would.
 *
 * @example
 * const [client, server] = createChannelPair();
 * client.send("hello");
 * for await (const frame of server.frames()) console.log(frame); // "hello"
 */
export function createChannelPair(): [InMemoryChannel, InMemoryChannel] {
  const link: Link = { closed: false, queues: [new AsyncQueue<string>(), new AsyncQueue<string>()] };
  return [new InMemoryEnd(link, 0), new InMemoryEnd(link, 1)];
}

/**
 * A `Transport` whose `connect()` makes a channel pair and hands the server end to `accept`
 * (a fake harness written in a test), which runs concurrently. If `accept` throws or rejects, the
 * server end is dropped, so the client's `frames()` throws `HarnessCrashed` like a crashed harness.
 *
 * @example
 * const transport = createInMemoryTransport(async (server) => {
 *   for await (const frame of server.frames()) server.send(frame); // echo
 * });
 */
export function createInMemoryTransport(accept: (server: InMemoryChannel) => void | Promise<void>): Transport {
  return {
    async connect(options?: CallOptions): Promise<Channel> {
      throwIfAborted(options?.signal);
      const [client, server] = createChannelPair();
      const running = Promise.resolve().then(() => accept(server));
      running.catch((error: unknown) => server.drop(SdkError.from(error, ErrorCode.HarnessCrashed)));
      return client;
    },
  };
}
