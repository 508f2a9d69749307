import type { CallOptions } from "../call-options.js";
import type { ReconnectPolicy } from "../transport/reconnect.js";
import type { Channel, Transport } from "../transport/transport.js";
import { LOCALHARNESS_ERA, type JsonValue, type TraceSide } from "./trace-format.js";
import type { TraceSink } from "./trace-sink.js";
import { TraceWriter, type RecordingOptions, type TraceRecording } from "./trace-writer.js";

export type { RecordingOptions } from "./trace-writer.js";

/** A transport that records every channel it opens; see {@link recordingTransport}. */
export interface RecordingTransport extends Transport, TraceRecording {}

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
  return new TraceRecorder(inner, new TraceWriter(sink, options, { wire: "localharness", era: LOCALHARNESS_ERA }));
}

class TraceRecorder implements RecordingTransport {
  readonly #inner: Transport;
  readonly #trace: TraceWriter;

  constructor(inner: Transport, trace: TraceWriter) {
    this.#inner = inner;
    this.#trace = trace;
  }

  get reconnect(): ReconnectPolicy | undefined {
    return this.#inner.reconnect;
  }

  async connect(options?: CallOptions): Promise<Channel> {
    const trace = this.#trace;
    const c = trace.nextConnection();
    let channel: Channel;
    try {
      channel = await this.#inner.connect(options);
    } catch (error) {
      trace.connectError(c, error);
      throw error;
    }
    const handshake = (channel as ChannelWithHandshake).handshake;
    if (handshake !== undefined) {
      // The per-process key (protocol §3) is a secret wherever else it might show up.
      const key = (handshake.output as { apiKey?: unknown } | undefined)?.apiKey;
      if (typeof key === "string") trace.redactor.learn(key);
      const redacted = trace.redactor.value(
        { input: this.#object(handshake.input), output: this.#object(handshake.output) },
        "handshake",
      ) as { [key: string]: { [key: string]: JsonValue } };
      trace.event({
        kind: "handshake",
        t: trace.t(),
        c,
        input: redacted["input"] ?? {},
        output: redacted["output"] ?? {},
      });
    }
    trace.open(c);
    return new RecordingChannel(channel, {
      frame: (from, text) => trace.frameText(c, from, text),
      close: (by, error) => trace.ended(c, by, error),
    });
  }

  flush(): Promise<void> {
    return this.#trace.flush();
  }

  close(): Promise<void> {
    return this.#trace.close();
  }

  /** A handshake part as a JSON object (a round trip drops what JSON cannot hold). */
  #object(value: unknown): { [key: string]: JsonValue } {
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (JSON.parse(JSON.stringify(value)) as { [key: string]: JsonValue })
      : {};
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
