import { SDK_VERSION } from "../agent/client-info.js";
import type { CallOptions } from "../call-options.js";
import { SdkError } from "../errors.js";
import type { ReconnectPolicy } from "../transport/reconnect.js";
import type { Channel, Transport } from "../transport/transport.js";
import { Redactor, type RedactionOptions } from "./redaction.js";
import {
  LOCALHARNESS_ERA,
  TRACE_FORMAT,
  TRACE_VERSION,
  traceLine,
  type JsonValue,
  type TraceEvent,
  type TraceHeader,
  type TraceSide,
} from "./trace-format.js";
import { toTraceSink, type TraceSink } from "./trace-sink.js";

/** Options of {@link recordingTransport}. */
export interface RecordingOptions extends RedactionOptions {
  /** The header's `wire`. Default `"localharness"`. */
  wire?: string;
  /** The header's `era`. Default {@link LOCALHARNESS_ERA} for localharness, else `"unknown"`. */
  era?: string;
  /** Facts written in the header's `meta` (a scenario name, the harness used). */
  meta?: { [key: string]: JsonValue };
  /** Milliseconds of a monotonic clock (default `performance.now()`): what `t` is measured with. */
  now?: () => number;
}

/** A transport that records every channel it opens; see {@link recordingTransport}. */
export interface RecordingTransport extends Transport {
  /** Resolves once every event so far reached the sink; rejects with the sink's error if a write failed. */
  flush(): Promise<void>;
  /** Flushes, then closes the sink. Call it once the sessions over this transport are over. Idempotent. */
  close(): Promise<void>;
}

/** What a transport that does a handshake before its channel exposes (`SubprocessChannel.handshake`, protocol §3). */
interface ChannelWithHandshake {
  readonly handshake?: { readonly input?: unknown; readonly output?: unknown };
}

/**
 * Wraps `inner` so that every channel it opens is written to `sink` as a trace (docs/testing.md):
 * one header line, then each frame in order with its direction and time offset, the handshake
 * when the inner channel exposes one, opens, closes and connect errors. Keys, tokens, header
 * and environment values are redacted by default; add your own secrets with `secrets` or
 * `redact`. The frames pass through unchanged: recording never alters the session.
 *
 * @example
 * const transport = recordingTransport(new WebSocketTransport({ url, apiKey }), writable, { secrets: [apiKey] });
 * await using agent = await Agent.builder().transport(transport).allowAll().build().start();
 * await agent.chatToCompletion("hello");
 * await agent.stop();
 * await transport.close();
 */
export function recordingTransport(
  inner: Transport,
  sink: TraceSink | WritableStream<string>,
  options: RecordingOptions = {},
): RecordingTransport {
  return new TraceRecorder(inner, toTraceSink(sink), options);
}

class TraceRecorder implements RecordingTransport {
  readonly #inner: Transport;
  readonly #sink: TraceSink;
  readonly #redactor: Redactor;
  readonly #now: () => number;
  readonly #start: number;
  #pending: Promise<void> = Promise.resolve();
  #failure: unknown;
  #connections = 0;
  #closing: Promise<void> | undefined;

  constructor(inner: Transport, sink: TraceSink, options: RecordingOptions) {
    this.#inner = inner;
    this.#sink = sink;
    this.#redactor = new Redactor(options);
    this.#now = options.now ?? (() => performance.now());
    this.#start = this.#now();
    const wire = options.wire ?? "localharness";
    const header: TraceHeader = {
      kind: "header",
      format: TRACE_FORMAT,
      version: TRACE_VERSION,
      wire,
      era: options.era ?? (wire === "localharness" ? LOCALHARNESS_ERA : "unknown"),
      sdk: { name: "@antigravity-ts/sdk", version: SDK_VERSION },
      recordedAt: new Date().toISOString(),
      redaction: { defaults: options.redactDefaults ?? true, custom: this.#redactor.custom },
      ...(options.meta === undefined ? {} : { meta: options.meta }),
    };
    this.#write(traceLine(header));
  }

  get reconnect(): ReconnectPolicy | undefined {
    return this.#inner.reconnect;
  }

  async connect(options?: CallOptions): Promise<Channel> {
    const c = this.#connections++;
    let channel: Channel;
    try {
      channel = await this.#inner.connect(options);
    } catch (error) {
      const { code, message } = SdkError.from(error);
      this.#event({
        kind: "connectError",
        t: this.#t(),
        c,
        error: { code, message: this.#redactor.text(message, "peer") },
      });
      throw error;
    }
    const handshake = (channel as ChannelWithHandshake).handshake;
    if (handshake !== undefined) {
      // The per-process key (protocol §3) is a secret wherever else it might show up.
      const key = (handshake.output as { apiKey?: unknown } | undefined)?.apiKey;
      if (typeof key === "string") this.#redactor.learn(key);
      const redacted = this.#redactor.value(
        { input: this.#object(handshake.input), output: this.#object(handshake.output) },
        "handshake",
      ) as { [key: string]: { [key: string]: JsonValue } };
      this.#event({
        kind: "handshake",
        t: this.#t(),
        c,
        input: redacted["input"] ?? {},
        output: redacted["output"] ?? {},
      });
    }
    this.#event({ kind: "open", t: this.#t(), c });
    return new RecordingChannel(channel, {
      frame: (from, text) => this.#frame(c, from, text),
      close: (by, error) => this.#close(c, by, error),
    });
  }

  flush(): Promise<void> {
    return this.#pending.then(() => {
      if (this.#failure !== undefined) throw SdkError.from(this.#failure);
    });
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#pending;
      await this.#sink.close?.();
      if (this.#failure !== undefined) throw SdkError.from(this.#failure);
    })();
    return this.#closing;
  }

  #frame(c: number, from: TraceSide, text: string): void {
    const t = this.#t();
    let parsed: JsonValue;
    try {
      parsed = JSON.parse(text) as JsonValue;
    } catch {
      this.#event({ kind: "frame", t, c, from, text: this.#redactor.text(text, from) });
      return;
    }
    this.#event({ kind: "frame", t, c, from, frame: this.#redactor.value(parsed, from) });
  }

  #close(c: number, by: TraceSide, error: unknown): void {
    const event: TraceEvent = { kind: "close", t: this.#t(), c, by };
    if (error !== undefined) {
      const { code, message } = SdkError.from(error);
      event.error = { code, message: this.#redactor.text(message, by) };
    }
    this.#event(event);
  }

  /** A handshake part as a JSON object (a round trip drops what JSON cannot hold). */
  #object(value: unknown): { [key: string]: JsonValue } {
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (JSON.parse(JSON.stringify(value)) as { [key: string]: JsonValue })
      : {};
  }

  #t(): number {
    return Math.round((this.#now() - this.#start) * 10) / 10;
  }

  #event(event: TraceEvent): void {
    this.#write(traceLine(event));
  }

  /** Queues a line behind the previous one; a failed sink keeps its first error and takes no more lines. */
  #write(line: string): void {
    this.#pending = this.#pending.then(async () => {
      if (this.#failure !== undefined) return;
      try {
        await this.#sink.write(`${line}\n`);
      } catch (error) {
        this.#failure = error;
      }
    });
  }
}

/** What a recording channel reports to its recorder. */
interface ChannelLog {
  frame(from: TraceSide, text: string): void;
  close(by: TraceSide, error?: unknown): void;
}

/** A channel that logs what passes through it, in both directions, and how it ended. */
class RecordingChannel implements Channel {
  readonly #inner: Channel;
  readonly #log: ChannelLog;
  #closed = false;

  constructor(inner: Channel, log: ChannelLog) {
    this.#inner = inner;
    this.#log = log;
  }

  send(frame: string): void {
    this.#inner.send(frame);
    this.#log.frame("client", frame);
  }

  frames(): AsyncIterable<string> {
    const frames = this.#inner.frames();
    return {
      [Symbol.asyncIterator]: () => {
        const iterator = frames[Symbol.asyncIterator]();
        return {
          next: async () => {
            let result: IteratorResult<string>;
            try {
              result = await iterator.next();
            } catch (error) {
              this.#ended("peer", error);
              throw error;
            }
            if (result.done === true) this.#ended("peer");
            else this.#log.frame("peer", result.value);
            return result;
          },
          return: async () => (await iterator.return?.()) ?? { done: true, value: undefined },
        };
      },
    };
  }

  close(options?: CallOptions): Promise<void> {
    this.#ended("client");
    return this.#inner.close(options);
  }

  #ended(by: TraceSide, error?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#log.close(by, error);
  }
}
