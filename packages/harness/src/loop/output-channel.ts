import {
  encodeOutputFrame,
  NEWEST_LOCALHARNESS_ERA,
  outputEventForEra,
  type LocalharnessEra,
} from "@antigravity-ts/sdk/internal";
import type { MessageInitShape, OutputEventSchema } from "@antigravity-ts/sdk/wire";
import type { ClientPort } from "./client-port.js";

/** The oneof of an `OutputEvent`, as an init object. */
export type OutputEventInit = NonNullable<MessageInitShape<typeof OutputEventSchema>["event"]>;

/** Sends an output event; returns false when it was not sent (socket closed, turn halted). */
export type SendOutput = (event: OutputEventInit) => boolean;

/** Characters handed to the port but not yet written out above which the client counts as not keeping up. */
export const HIGH_WATER_MARK = 4 * 1024 * 1024;
/** Once congested, the backlog must fall to this before producers go on. */
export const LOW_WATER_MARK = 1024 * 1024;
/**
 * Unsent output at which the client is dropped. Producers that cannot wait (tool progress,
 * step updates) keep sending to a client that stopped reading; past this the connection ends
 * (the session is saved as after any disconnect) instead of the harness buffering without bound.
 */
export const MAX_BACKLOG = 64 * 1024 * 1024;

/**
 * The harness → client half of a session. Every frame gets the next `seqNum` (monotonic per
 * session) and `timestampMicros` (§19 `OutputEvent`); both are int64 and go out as decimal strings (§4.1).
 *
 * Backpressure: frames are never dropped, but the channel counts what the port has not written
 * out yet. Past {@link HIGH_WATER_MARK} it is {@link congested}, and producers that can wait
 * (the model stream) await {@link writable}, so a client that stops reading holds its own turn
 * back instead of making the harness buffer without bound. Past {@link MAX_BACKLOG} the
 * connection is terminated.
 */
export class OutputChannel {
  #seq = 0n;
  /** Rewrites frames for a client of an older wire era (session-init.ts); none for the newest. */
  #spell: ((json: Parameters<typeof outputEventForEra>[0]) => Parameters<typeof outputEventForEra>[0]) | undefined;
  #backlog = 0;
  readonly #waiters = new Set<() => void>();

  constructor(private port: ClientPort) {
    void port.closed.then(() => this.#wake());
  }

  /**
   * Continues on `port` (a client that came back to a session held for its confirmation,
   * session.ts); its `seqNum`s start at 1 again, as on any new connection.
   */
  attach(port: ClientPort): void {
    this.port = port;
    this.#seq = 0n;
    void port.closed.then(() => this.#wake());
  }

  /** The client's wire era: a 0.1.14 client gets no field its schema lacks (wire-era-spelling.ts `outputEventForEra`). */
  set era(era: LocalharnessEra) {
    this.#spell = era === NEWEST_LOCALHARNESS_ERA ? undefined : (json) => outputEventForEra(json, era);
  }

  /** Encodes and sends one event. */
  send: SendOutput = (event) => {
    if (!this.port.open) return false;
    this.#seq += 1n;
    // Written from the schema-free wire plan: the same text as `encodeOutputEvent(create(…))` of /wire.
    const frame = encodeOutputFrame({ seqNum: this.#seq, timestampMicros: nowMicros(), event }, this.#spell);
    const size = frame.length;
    this.#backlog += size;
    this.port.send(frame, () => {
      this.#backlog -= size;
      if (this.#backlog <= LOW_WATER_MARK) this.#wake();
    });
    if (this.#backlog > MAX_BACKLOG) {
      this.port.terminate(
        new Error(
          `the client left ${this.#backlog} bytes of output unread (limit ${MAX_BACKLOG}); dropping the connection`,
        ),
      );
      return false;
    }
    return true;
  };

  /** True while the client is behind by more than {@link HIGH_WATER_MARK}. */
  get congested(): boolean {
    return this.#backlog > HIGH_WATER_MARK && this.port.open;
  }

  /** Resolves at once unless congested, else once the backlog is down to {@link LOW_WATER_MARK} or the connection closed; rejects when `signal` aborts. */
  writable(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.congested) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters.delete(done);
        reject(signal.reason);
      };
      const done = (): void => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(done);
    });
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const waiter of waiters) waiter();
  }
}

function nowMicros(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
}
