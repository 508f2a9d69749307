import { SDK_VERSION } from "../agent/client-info.js";
import { SdkError } from "../errors.js";
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

/** Options of every recorder: what the header says, how secrets are kept out, and the clock. */
export interface RecordingOptions extends RedactionOptions {
  /** The header's `wire`. Default: the recorder's own (`"localharness"`, `"acp"`, `"interactions"`). */
  wire?: string;
  /** The header's `era`. Default: the recorder's own ({@link LOCALHARNESS_ERA} for localharness). */
  era?: string;
  /** Facts written in the header's `meta` (a scenario name, the harness used). */
  meta?: { [key: string]: JsonValue };
  /** Milliseconds of a monotonic clock (default `performance.now()`): what `t` is measured with. */
  now?: () => number;
}

/** What every recorder has: its sink is written in order, and closed once. */
export interface TraceRecording {
  /** Resolves once every event so far reached the sink; rejects with the sink's error if a write failed. */
  flush(): Promise<void>;
  /** Flushes, then closes the sink. Call it once the sessions recorded are over. Idempotent. */
  close(): Promise<void>;
}

/**
 * Writes one trace: the header at once, then the events the recorders report, each redacted, in
 * order, behind the previous write. Shared by {@link recordingTransport}, `streamRecorder` and
 * `recordingFetch`; what differs between them is only what counts as a connection and a frame.
 */
export class TraceWriter implements TraceRecording {
  readonly redactor: Redactor;
  readonly #sink: TraceSink;
  readonly #now: () => number;
  readonly #start: number;
  #pending: Promise<void> = Promise.resolve();
  #failure: unknown;
  #connections = 0;
  #closing: Promise<void> | undefined;

  constructor(
    sink: TraceSink | WritableStream<string>,
    options: RecordingOptions,
    defaults: { wire: string; era: string },
  ) {
    this.#sink = toTraceSink(sink);
    this.redactor = new Redactor(options);
    this.#now = options.now ?? (() => performance.now());
    this.#start = this.#now();
    const wire = options.wire ?? defaults.wire;
    const header: TraceHeader = {
      kind: "header",
      format: TRACE_FORMAT,
      version: TRACE_VERSION,
      wire,
      era:
        options.era ?? (wire === defaults.wire ? defaults.era : wire === "localharness" ? LOCALHARNESS_ERA : "unknown"),
      sdk: { name: "@antigravity-ts/sdk", version: SDK_VERSION },
      recordedAt: new Date().toISOString(),
      redaction: { defaults: options.redactDefaults ?? true, custom: this.redactor.custom },
      ...(options.meta === undefined ? {} : { meta: options.meta }),
    };
    this.#write(traceLine(header));
  }

  /** The index of a new connection (`c`), from 0. */
  nextConnection(): number {
    return this.#connections++;
  }

  open(c: number): void {
    this.event({ kind: "open", t: this.t(), c });
  }

  connectError(c: number, error: unknown): void {
    const { code, message } = SdkError.from(error);
    this.event({ kind: "connectError", t: this.t(), c, error: { code, message: this.redactor.text(message, "peer") } });
  }

  /** A frame as its wire text: recorded as JSON when it parses, else as text. */
  frameText(c: number, from: TraceSide, text: string): void {
    let parsed: JsonValue;
    try {
      parsed = JSON.parse(text) as JsonValue;
    } catch {
      this.event({ kind: "frame", t: this.t(), c, from, text: this.redactor.text(text, from) });
      return;
    }
    this.frame(c, from, parsed);
  }

  /** A frame as a JSON value (a message object of a message stream, a request the recorder described). */
  frame(c: number, from: TraceSide, frame: JsonValue): void {
    this.event({ kind: "frame", t: this.t(), c, from, frame: this.redactor.value(frame, from) });
  }

  /** Connection `c` ended: closed by the client, or by the peer (with the error the client saw when it dropped). */
  ended(c: number, by: TraceSide, error?: unknown): void {
    const event: TraceEvent = { kind: "close", t: this.t(), c, by };
    if (error !== undefined) {
      const { code, message } = SdkError.from(error);
      event.error = { code, message: this.redactor.text(message, by) };
    }
    this.event(event);
  }

  flush(): Promise<void> {
    return this.#pending.then(() => {
      if (this.#failure !== undefined) throw SdkError.from(this.#failure);
    });
  }

  /** Milliseconds since the header's `recordedAt`, in 0.1 ms steps. */
  t(): number {
    return Math.round((this.#now() - this.#start) * 10) / 10;
  }

  event(event: TraceEvent): void {
    this.#write(traceLine(event));
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#pending;
      await this.#sink.close?.();
      if (this.#failure !== undefined) throw SdkError.from(this.#failure);
    })();
    return this.#closing;
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
