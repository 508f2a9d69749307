import { EventStreamReader, isEventStream, jsonOrText, requestFrame, responseHead } from "./http-frames.js";
import type { TraceSide } from "./trace-format.js";
import type { TraceSink } from "./trace-sink.js";
import { TraceWriter, type RecordingOptions, type TraceRecording } from "./trace-writer.js";

/**
 * The era {@link recordingFetch} writes unless told: the Interactions API version `@google/genai`
 * 3.x calls by default (`v1beta`), as `hostedAgent({ apiVersion })` does.
 */
export const INTERACTIONS_ERA = "v1beta";

/** A `fetch` that records what passes through it; see {@link recordingFetch}. */
export interface RecordingFetch extends TraceRecording {
  /** Give it where a `fetch` goes (`hostedAgent({ fetch })`); it needs no binding. */
  readonly fetch: typeof fetch;
}

/**
 * Wraps `inner` (`globalThis.fetch`, or the fetch you would have given) so that every request through it is written to
 * `sink` as a connection of a trace (docs/testing.md): header `wire: "interactions"`; the
 * request (method, path and query, headers, body) as the client's frame; the response's status
 * and content type, then each server-sent event of a `text/event-stream` body — or the whole
 * body of any other — as the peer's; then who closed it. By default every header value is
 * redacted (names kept), and so are API keys (`x-goog-api-key`, a `key=` query parameter),
 * bearer tokens and secret-named fields in bodies; `secrets` and `redact` add yours. What the
 * caller gets is what the server sent, unchanged.
 *
 * @example
 * const recorder = recordingFetch(globalThis.fetch, writable);
 * await using agent = await Agent.builder().connection(hostedAgent({ apiKey, fetch: recorder.fetch })).allowAll().build().start();
 * await agent.chatToCompletion("hello");
 * await agent.stop();
 * await recorder.close();
 */
export function recordingFetch(
  inner: typeof fetch,
  sink: TraceSink | WritableStream<string>,
  options: RecordingOptions = {},
): RecordingFetch {
  const trace = new TraceWriter(sink, options, { wire: "interactions", era: INTERACTIONS_ERA });
  return {
    fetch: (input, init) => recordExchange(inner, new Request(input, init), trace),
    flush: () => trace.flush(),
    close: () => trace.close(),
  };
}

async function recordExchange(inner: typeof fetch, request: Request, trace: TraceWriter): Promise<Response> {
  const c = trace.nextConnection();
  trace.open(c);
  trace.frame(c, "client", await requestFrame(request));
  let response: Response;
  try {
    response = await inner(request);
  } catch (error) {
    trace.ended(c, request.signal.aborted ? "client" : "peer", error);
    throw error;
  }
  trace.frame(c, "peer", responseHead(response));
  const { body } = response;
  if (body === null) {
    trace.ended(c, "peer");
    return response;
  }
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  if (!isEventStream(response.headers.get("content-type"))) {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      trace.ended(c, request.signal.aborted ? "client" : "peer", error);
      throw error;
    }
    trace.frame(c, "peer", jsonOrText(text, "body", "bodyText"));
    trace.ended(c, "peer");
    return new Response(text, init);
  }
  return new Response(recordedEvents(body, request.signal, trace, c), init);
}

/** The body as it comes, each server-sent event recorded once complete, then how it ended. */
function recordedEvents(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  trace: TraceWriter,
  c: number,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events = new EventStreamReader();
  let done = false;
  const end = (by: TraceSide, error?: unknown): void => {
    if (done) return;
    done = true;
    trace.ended(c, by, error);
  };
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const chunk = await reader.read().catch((error: unknown) => {
        end(signal.aborted ? "client" : "peer", error);
        throw error;
      });
      const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      for (const event of events.push(text, chunk.done)) trace.frame(c, "peer", event);
      if (chunk.done) {
        end("peer");
        controller.close();
      } else controller.enqueue(chunk.value);
    },
    cancel: (reason) => {
      end("client");
      return reader.cancel(reason);
    },
  });
}
