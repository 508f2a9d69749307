import type { CallOptions } from "../call-options.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { Channel, Transport } from "../transport/transport.js";
import { delay, throwIfAborted } from "../util/abort.js";
import { AsyncQueue } from "../util/async-queue.js";
import { IdMap, PathPatterns, matchFrame, wireProfile, type MatchMode, type MatchSettings } from "./frame-match.js";
import { describeEvent, mismatchError, type ReplayPlace } from "./mismatch.js";
import { parseTrace, type JsonValue, type LocatedEvent, type Trace, type TraceFrameEvent } from "./trace-format.js";

/** How fast the peer's frames come: as recorded, as fast as the client reads, or the recorded gaps divided by a factor. */
export type ReplaySpeed = "recorded" | "fast" | number;

/** Options of {@link replayTransport}. */
export interface ReplayOptions {
  /**
   * `"strict"`: each client frame must be the recorded JSON value, key order included.
   * `"lenient"` (default): the same kind, ids consistent with the trace (an id the client
   * generates differently is mapped, and the peer's later frames carry the live one), the rest
   * equal in any key order, except the paths in `ignore`.
   */
  match?: MatchMode;
  /** Lenient mode: paths of client frames left out (`config.workspaces`, `**.timestamp`; `*` one level, `**` any). */
  ignore?: readonly string[];
  /** Default `"fast"`. A number divides the recorded gaps (2: twice as fast). */
  speed?: ReplaySpeed;
  /** How long the replay waits for a client frame the trace has next before failing. Default 10 000 ms. */
  waitTimeoutMs?: number;
}

/** A transport that plays the peer's side of a trace; see {@link replayTransport}. */
export interface ReplayTransport extends Transport {
  /** The trace being replayed. */
  readonly trace: Trace;
  /** The first mismatch, once one happened (also what the client's `frames()` threw). */
  readonly mismatch: SdkError | undefined;
  /**
   * Throws the first mismatch, or a `FailedPrecondition` saying what of the trace was not
   * played (a client frame never sent, a connection never opened) or what the client sent past
   * its end. Returns when the whole trace was played.
   */
  verify(): void;
}

const DEFAULT_WAIT_MS = 10_000;

/**
 * A transport that plays the harness's side of a recorded trace (docs/testing.md): each
 * `connect()` replays the trace's next connection. The peer's frames go out in their recorded
 * order; when the trace has the client sending next, the replay waits for the client's frame and
 * compares it (`match`), failing the channel with a readable diff at the first one that differs
 * (what was expected, what came, and where). Runs wherever the core runs.
 *
 * @example
 * const replay = replayTransport(traceText, { match: "lenient", ignore: ["config.workspaces"] });
 * await using agent = await Agent.builder().transport(replay).tool(add).allowAll().build().start();
 * expect((await agent.chatToCompletion("add the numbers")).text).toBe("The sum is 5.");
 * await agent.stop();
 * replay.verify();
 */
export function replayTransport(trace: string | Trace, options: ReplayOptions = {}): ReplayTransport {
  return new TraceReplay(typeof trace === "string" ? parseTrace(trace) : trace, options);
}

/** What the channels of one replay share: the match settings and id bindings, and the first mismatch. */
interface ReplayState {
  readonly settings: MatchSettings;
  readonly speed: number;
  readonly waitTimeoutMs: number;
  mismatch: SdkError | undefined;
  fail(error: SdkError): void;
}

class TraceReplay implements ReplayTransport {
  readonly trace: Trace;
  readonly #state: ReplayState;
  readonly #channels: ReplayChannel[] = [];

  constructor(trace: Trace, options: ReplayOptions) {
    this.trace = trace;
    const speed = options.speed ?? "fast";
    if (typeof speed === "number" && !(speed > 0))
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `replay speed must be a positive factor, "recorded" or "fast", got ${speed}`,
      );
    const state: ReplayState = {
      settings: {
        mode: options.match ?? "lenient",
        profile: wireProfile(trace.header.wire),
        ignore: new PathPatterns(options.ignore ?? []),
        ids: new IdMap(),
      },
      speed: speed === "fast" ? Number.POSITIVE_INFINITY : speed === "recorded" ? 1 : speed,
      waitTimeoutMs: options.waitTimeoutMs ?? DEFAULT_WAIT_MS,
      mismatch: undefined,
      fail: (error) => {
        state.mismatch ??= error;
      },
    };
    this.#state = state;
  }

  get mismatch(): SdkError | undefined {
    return this.#state.mismatch;
  }

  async connect(options?: CallOptions): Promise<Channel> {
    throwIfAborted(options?.signal);
    const c = this.#channels.length;
    const events = this.trace.connections[c];
    if (events === undefined) {
      const error = new SdkError(
        ErrorCode.FailedPrecondition,
        `replay: connect() number ${c + 1}, but the trace holds ${this.trace.connections.length} connection(s)`,
      );
      this.#state.fail(error);
      throw error;
    }
    const refused = events.find((event) => event.kind === "connectError");
    if (refused?.kind === "connectError") {
      this.#channels.push(new ReplayChannel(c, [], this.#state));
      throw new SdkError(refused.error.code as ErrorCode, refused.error.message, {
        details: { replayedFrom: `trace line ${refused.line}` },
      });
    }
    const open = events.findIndex((event) => event.kind === "open");
    const channel = new ReplayChannel(c, events.slice(open + 1), this.#state);
    this.#channels.push(channel);
    channel.start(open >= 0 ? (events[open]?.t ?? 0) : 0);
    return channel;
  }

  verify(): void {
    if (this.#state.mismatch !== undefined) throw this.#state.mismatch;
    const problems: string[] = [];
    for (let c = this.#channels.length; c < this.trace.connections.length; c++) {
      problems.push(`connection ${c} (trace line ${this.trace.connections[c]?.[0]?.line ?? "?"}) was never opened`);
    }
    for (const channel of this.#channels) problems.push(...channel.leftovers());
    if (problems.length > 0)
      throw new SdkError(ErrorCode.FailedPrecondition, `replay incomplete:\n  ${problems.join("\n  ")}`);
  }
}

/** The peer's end of one replayed connection: plays the events after its `open`, in order. */
class ReplayChannel implements Channel {
  readonly #c: number;
  readonly #events: readonly LocatedEvent[];
  readonly #state: ReplayState;
  readonly #out = new AsyncQueue<string>();
  readonly #inbox: string[] = [];
  readonly #stop = new AbortController();
  #wake: (() => void) | undefined;
  #position = 0;
  #clientClosed = false;
  #ended = false;
  #failure: SdkError | undefined;
  #reading = false;

  constructor(c: number, events: readonly LocatedEvent[], state: ReplayState) {
    this.#c = c;
    this.#events = events;
    this.#state = state;
  }

  start(openedAt: number): void {
    void this.#play(openedAt).catch((error: unknown) => this.#fail(SdkError.from(error, ErrorCode.Internal)));
  }

  send(frame: string): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#clientClosed || this.#ended)
      throw new SdkError(ErrorCode.ConnectionClosed, "cannot send: the replayed channel is closed");
    this.#inbox.push(frame);
    this.#wake?.();
  }

  frames(): AsyncIterable<string> {
    if (this.#reading)
      throw new SdkError(
        ErrorCode.FailedPrecondition,
        "frames() has a single consumer and was already called on this channel",
      );
    this.#reading = true;
    return this.#out;
  }

  close(_options?: CallOptions): Promise<void> {
    if (!this.#clientClosed) {
      this.#clientClosed = true;
      this.#out.end();
      this.#stop.abort();
      this.#wake?.();
    }
    return Promise.resolve();
  }

  /** What of this connection's trace was not played, and what the client sent past it. */
  leftovers(): string[] {
    const problems: string[] = [];
    const next = this.#events[this.#position];
    const unplayedClientFrames = this.#events
      .slice(this.#position)
      .filter((e) => e.kind === "frame" && e.from === "client").length;
    // Played to its end when the client closed where the trace has it close, or where only the
    // peer's own close was left (a client that stops reading once it has all it wants, as an
    // HTTP client cancels a body whose last event it read: which side's close came first is a race).
    const closedAtTheEnd =
      next?.kind === "close" &&
      this.#clientClosed &&
      (next.by === "client" || this.#position === this.#events.length - 1);
    if (next !== undefined && !closedAtTheEnd) {
      problems.push(
        `connection ${this.#c} stopped at trace line ${next.line} (${describeEvent(next, this.#state.settings.profile)}); ${unplayedClientFrames} client frame(s) of the trace were never sent`,
      );
    }
    if (this.#inbox.length > 0)
      problems.push(
        `connection ${this.#c}: the client sent ${this.#inbox.length} frame(s) the trace does not have, the first: ${this.#inbox[0]}`,
      );
    return problems;
  }

  async #play(openedAt: number): Promise<void> {
    let anchor = { t: openedAt, at: performance.now() };
    const clientFrames = this.#events.filter((e) => e.kind === "frame" && e.from === "client").length;
    let clientIndex = 0;
    for (; this.#position < this.#events.length; this.#position++) {
      const event = this.#events[this.#position] as LocatedEvent;
      if (this.#failure !== undefined || this.#stop.signal.aborted) return;
      if (event.kind === "frame" && event.from === "peer") {
        await this.#pace(event.t, anchor);
        if (this.#stop.signal.aborted) return;
        this.#out.push(this.#peerFrame(event));
      } else if (event.kind === "frame") {
        clientIndex++;
        const place: ReplayPlace = {
          line: event.line,
          connection: this.#c,
          index: clientIndex,
          count: clientFrames,
          t: event.t,
        };
        const frame = await this.#nextClientFrame(event, place);
        if (frame === undefined) return; // the client closed: verify() reports what is left
        const difference = this.#compare(event, frame);
        if (difference !== undefined)
          return this.#fail(mismatchError(place, event, frame, difference, this.#state.settings));
      } else if (event.kind === "close" && event.by === "peer") {
        await this.#pace(event.t, anchor);
        this.#ended = true;
        if (event.error === undefined) this.#out.end();
        else
          this.#out.fail(
            new SdkError(event.error.code as ErrorCode, event.error.message, {
              details: { replayedFrom: `trace line ${event.line}` },
            }),
          );
      } else if (event.kind === "close") {
        const frame = await this.#nextClientFrame(event, undefined);
        if (frame !== undefined) {
          return this.#fail(
            new SdkError(
              ErrorCode.ProtocolError,
              `replay mismatch at trace line ${event.line} (connection ${this.#c}): the trace has the client closing the channel here, but it sent ${frame}`,
              {
                details: { replay: { line: event.line, connection: this.#c, expected: "close", actual: frame } },
              },
            ),
          );
        }
        return;
      }
      anchor = { t: event.t, at: performance.now() };
    }
  }

  /** Waits until the recorded gap since `anchor` has passed (divided by the speed factor). */
  async #pace(t: number, anchor: { t: number; at: number }): Promise<void> {
    const { speed } = this.#state;
    if (speed === Number.POSITIVE_INFINITY) return;
    const wait = (t - anchor.t) / speed - (performance.now() - anchor.at);
    if (wait <= 0) return;
    await delay(wait, this.#stop.signal).catch(() => undefined); // a close ends the wait early
  }

  /** The next frame the client sent, `undefined` once it closed; fails the replay after the wait bound (when `place` is given). */
  async #nextClientFrame(event: LocatedEvent, place: ReplayPlace | undefined): Promise<string | undefined> {
    const deadline = performance.now() + this.#state.waitTimeoutMs;
    for (;;) {
      const frame = this.#inbox.shift();
      if (frame !== undefined) return frame;
      if (this.#clientClosed) return undefined;
      const left = deadline - performance.now();
      if (place !== undefined && left <= 0) {
        const what = describeEvent(event, this.#state.settings.profile);
        this.#fail(
          new SdkError(
            ErrorCode.DeadlineExceeded,
            `replay: waited ${this.#state.waitTimeoutMs} ms at trace line ${event.line} (connection ${this.#c}, client frame ${place.index} of ${place.count}) for the client to send ${what}; it sent nothing`,
            { details: { replay: { ...place, expected: (event as TraceFrameEvent).frame ?? null, actual: null } } },
          ),
        );
        return undefined;
      }
      await new Promise<void>((resolve) => {
        const timer = place === undefined ? undefined : setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          this.#wake = undefined;
          resolve();
        };
      });
    }
  }

  #compare(event: TraceFrameEvent, frame: string): ReturnType<typeof matchFrame> {
    const actual = parseOrText(frame);
    const expected: JsonValue = event.frame !== undefined ? event.frame : (event.text ?? "");
    if (event.frame === undefined || typeof actual === "string") {
      return expected === actual ? undefined : { path: "", expected, actual, reason: "differs" };
    }
    return matchFrame(expected, actual, this.#state.settings);
  }

  #peerFrame(event: TraceFrameEvent): string {
    if (event.frame === undefined) return event.text ?? "";
    return JSON.stringify(this.#state.settings.ids.rewrite(event.frame));
  }

  #fail(error: SdkError): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#state.fail(error);
    this.#out.fail(error);
  }
}

/** A frame as JSON, or its text when it is not JSON. */
function parseOrText(frame: string): JsonValue {
  try {
    return JSON.parse(frame) as JsonValue;
  } catch {
    return frame;
  }
}
