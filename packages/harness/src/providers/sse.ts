/**
 * Server-Sent Events for the model providers, parsed by `eventsource-parser` (WHATWG HTML §9.2
 * "event stream interpretation": BOM, CR/LF/CRLF split anywhere, comments, multi-line data). This
 * file only adapts it: a pull-style parser for byte chunks and an abortable reader over a response
 * body, with a bound on how much one event may buffer.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One dispatched SSE event. */
export interface SseEvent {
  /** The `event:` field, `"message"` when absent. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The `id:` field of this event, if it had one. */
  id?: string;
}

/**
 * How much text one event may hold, its data lines and any unterminated line together (64 MiB: a
 * streamed chunk with inline media stays far below). Past it the server is not streaming model
 * output, and reading on would only grow memory.
 */
export const MAX_SSE_BUFFER_CHARS = 64 * 1024 * 1024;

/**
 * A push parser: feed decoded text with {@link SseParser.push}, get the events completed so far;
 * {@link SseParser.end} flushes an event the stream ended without a blank line after.
 */
export interface SseParser {
  push(text: string): SseEvent[];
  end(): SseEvent[];
}

/** Creates an {@link SseParser}; throws once one event passes `maxBufferChars`. */
export function createSseParser(maxBufferChars = MAX_SSE_BUFFER_CHARS): SseParser {
  let completed: SseEvent[] = [];
  let failure: Error | undefined;
  const parser = createParser({
    maxBufferSize: maxBufferChars,
    onEvent: (message) => completed.push(sseEventOf(message)),
    onError: (error) => {
      // Unknown fields and bad `retry:` values are ignored, as the spec says; only the bound fails.
      if (error.type === "max-buffer-size-exceeded")
        failure ??= new Error(
          `an SSE event exceeded ${maxBufferChars} characters; the server is not streaming model output`,
        );
    },
  });
  const take = (): SseEvent[] => {
    if (failure !== undefined) throw failure;
    const out = completed;
    completed = [];
    return out;
  };
  return {
    push(text) {
      parser.feed(text);
      return take();
    },
    end() {
      // Lenient: an event the server did not terminate with a blank line is still delivered, so
      // a truncated JSON payload surfaces as a parse error instead of vanishing silently.
      // Two line breaks end a pending line and then the event (after a lone CR the first completes
      // its CRLF pair, the second is the blank line).
      parser.feed("\n\n");
      return take();
    },
  };
}

function sseEventOf(message: EventSourceMessage): SseEvent {
  const event: SseEvent = { event: message.event ?? "message", data: message.data };
  if (message.id !== undefined) event.id = message.id;
  return event;
}

/**
 * Reads SSE events from a response body. Stops promptly when `signal` aborts (throwing its
 * reason), and cancels the body — closing the connection — when the consumer stops early.
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): AsyncGenerator<SseEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parser = createSseParser();
  // Cancelling the reader settles a pending read() even with a fetch that ignores the signal.
  const onAbort = (): void => {
    reader.cancel(signal.reason).catch(() => undefined);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  let finished = false;
  try {
    signal.throwIfAborted();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        signal.throwIfAborted(); // a read the abort interrupted fails with the abort reason
        throw error;
      }
      signal.throwIfAborted();
      const { done, value } = chunk;
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    finished = true;
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
