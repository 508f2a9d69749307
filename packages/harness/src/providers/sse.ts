/**
 * Incremental Server-Sent Events parsing (WHATWG HTML §9.2 "event stream interpretation"), shared
 * by the model providers. Chunks may split lines, CRLF pairs and UTF-8 sequences anywhere.
 */

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
 * A push parser: feed decoded text with {@link SseParser.push}, get the events completed so far;
 * {@link SseParser.end} flushes an event the stream ended without a blank line after.
 */
export interface SseParser {
  push(text: string): SseEvent[];
  end(): SseEvent[];
}

/** Creates an {@link SseParser}. */
export function createSseParser(): SseParser {
  let buffer = "";
  let started = false;
  // A chunk that ended in "\r" may continue with the "\n" of the same CRLF pair.
  let skipLeadingLf = false;
  let dataLines: string[] = [];
  let eventName = "";
  let eventId: string | undefined;
  let hasData = false;

  const dispatch = (out: SseEvent[]): void => {
    if (hasData) {
      const event: SseEvent = { event: eventName || "message", data: dataLines.join("\n") };
      if (eventId !== undefined) event.id = eventId;
      out.push(event);
    }
    dataLines = [];
    eventName = "";
    eventId = undefined;
    hasData = false;
  };

  const processLine = (line: string, out: SseEvent[]): void => {
    if (line === "") {
      dispatch(out);
      return;
    }
    if (line.startsWith(":")) return; // comment / keep-alive
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        dataLines.push(value);
        hasData = true;
        break;
      case "event":
        eventName = value;
        break;
      case "id":
        if (!value.includes("\0")) eventId = value;
        break;
      default:
        break; // "retry" and unknown fields do not matter to a one-shot response
    }
  };

  return {
    push(text) {
      const out: SseEvent[] = [];
      if (text === "") return out;
      if (skipLeadingLf) {
        skipLeadingLf = false;
        if (text.startsWith("\n")) text = text.slice(1);
      }
      buffer += text;
      if (!started && buffer.length > 0) {
        started = true;
        if (buffer.startsWith("\uFEFF")) buffer = buffer.slice(1);
      }
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const ch = buffer.charCodeAt(i);
        if (ch !== 10 && ch !== 13) continue;
        processLine(buffer.slice(start, i), out);
        if (ch === 13) {
          if (i + 1 < buffer.length) {
            if (buffer.charCodeAt(i + 1) === 10) i++;
          } else {
            skipLeadingLf = true;
          }
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      // Lenient: an event the server did not terminate with a blank line is still delivered, so
      // a truncated JSON payload surfaces as a parse error instead of vanishing silently.
      if (buffer !== "") processLine(buffer, out);
      buffer = "";
      dispatch(out);
      return out;
    },
  };
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
