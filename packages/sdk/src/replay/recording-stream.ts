import type { JsonValue, TraceSide } from "./trace-format.js";
import type { TraceSink } from "./trace-sink.js";
import { TraceWriter, type RecordingOptions, type TraceRecording } from "./trace-writer.js";

/**
 * A pair of message streams, one per direction: what `@agentclientprotocol/sdk` calls a `Stream`
 * (dist/core/stream.d.ts: `writable` the messages this side sends, `readable` those it receives).
 */
export interface MessageStream<M = unknown> {
  writable: WritableStream<M>;
  readable: ReadableStream<M>;
}

/** The era {@link streamRecorder} writes unless told: ACP's stable protocol version (`initialize`'s `protocolVersion: 1`). */
export const ACP_ERA = "v1";

/** Records the message streams it wraps into one trace; see {@link streamRecorder}. */
export interface StreamRecorder extends TraceRecording {
  /** `stream`, recorded as the trace's next connection: every message both ways, and how it ended. Pass it unbound. */
  readonly wrap: <M>(stream: MessageStream<M>) => MessageStream<M>;
}

/**
 * Records JSON-RPC message streams — an ACP agent's, one per session — as a trace
 * (docs/testing.md): header `wire: "acp"`, each stream a connection, each message a frame with
 * its direction and time offset, then who closed it. The messages pass through unchanged;
 * secret-named fields, header and env maps, bearer tokens and `key=` parameters are redacted by
 * default (`secrets` and `redact` add yours).
 *
 * @example
 * const recorder = streamRecorder(fileTraceSink("session.ndjson"));
 * const agent = Agent.builder()
 *   .connection(acpAgent({ command: "gemini", args: ["--acp"], cwd, wrapStream: recorder.wrap }))
 *   .allowAll()
 *   .build();
 * // ... run the session, stop the agent, then:
 * await recorder.close();
 */
export function streamRecorder(
  sink: TraceSink | WritableStream<string>,
  options: RecordingOptions = {},
): StreamRecorder {
  const trace = new TraceWriter(sink, options, { wire: "acp", era: ACP_ERA });
  return {
    wrap: (stream) => recordStream(stream, trace),
    flush: () => trace.flush(),
    close: () => trace.close(),
  };
}

function recordStream<M>(stream: MessageStream<M>, trace: TraceWriter): MessageStream<M> {
  const c = trace.nextConnection();
  trace.open(c);
  let ended = false;
  const end = (by: TraceSide, error?: unknown): void => {
    if (ended) return;
    ended = true;
    trace.ended(c, by, error);
  };
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  return {
    writable: new WritableStream<M>({
      write: (message) => {
        // Recorded before it is written: the peer's answer cannot come first in the trace.
        trace.frame(c, "client", asJson(message));
        return writer.write(message);
      },
      close: () => {
        end("client");
        return writer.close();
      },
      abort: (reason) => {
        end("client");
        return writer.abort(reason);
      },
    }),
    readable: new ReadableStream<M>({
      pull: async (controller) => {
        const result = await reader.read().catch((error: unknown) => {
          end("peer", error);
          throw error;
        });
        if (result.done) {
          end("peer");
          controller.close();
          return;
        }
        trace.frame(c, "peer", asJson(result.value));
        controller.enqueue(result.value);
      },
      cancel: (reason) => {
        end("client");
        return reader.cancel(reason);
      },
    }),
  };
}

/** A message as JSON (what the wire carries: a round trip drops what JSON cannot hold). */
function asJson(message: unknown): JsonValue {
  return JSON.parse(JSON.stringify(message) ?? "null") as JsonValue;
}
