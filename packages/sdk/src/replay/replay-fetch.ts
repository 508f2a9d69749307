import { ErrorCode, SdkError } from "../errors.js";
import { eventText, isEventStream, requestFrame } from "./http-frames.js";
import { Redactor } from "./redaction.js";
import { replayTransport, type ReplayOptions, type ReplayTransport } from "./replay-transport.js";
import { parseTrace, type JsonValue, type Trace } from "./trace-format.js";

/** Plays the server's side of a recorded HTTP trace; see {@link replayFetch}. */
export interface ReplayFetch {
  /** The trace being replayed. */
  readonly trace: Trace;
  /** The first mismatch, once one happened (also what the request, or its body, failed with). */
  readonly mismatch: SdkError | undefined;
  /** Give it where a `fetch` goes (`hostedAgent({ fetch })`); it needs no binding. */
  readonly fetch: typeof fetch;
  /** Throws the first mismatch or what of the trace was not played; returns when all was. */
  verify(): void;
}

/**
 * A `fetch` that plays the server's side of a trace `recordingFetch` wrote (a hosted session)
 * with no server: each request is compared with the trace's next one — method, path and query,
 * headers, body; a redacted value matches anything — and answered with the recorded status, body
 * or server-sent events. Matching, pacing and the diff of the first request that differs are
 * {@link replayTransport}'s (`match: "strict" | "lenient"`, `ignore`, `speed`); a mismatch
 * rejects the request with `ProtocolError`.
 *
 * @example
 * const replay = replayFetch(traceText);
 * await using agent = await Agent.builder().connection(hostedAgent({ apiKey: "unused", fetch: replay.fetch })).allowAll().build().start();
 * expect((await agent.chatToCompletion("hello")).text).toBe("Hello there.");
 * await agent.stop();
 * replay.verify();
 */
export function replayFetch(trace: string | Trace, options: ReplayOptions = {}): ReplayFetch {
  const parsed = typeof trace === "string" ? parseTrace(trace) : trace;
  if (parsed.header.wire !== "interactions")
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `replayFetch plays HTTP traces (wire interactions); this trace's wire is ${parsed.header.wire}: use ${parsed.header.wire === "localharness" ? "replayTransport" : "replayStream"}`,
    );
  const replay = replayTransport(parsed, options);
  return {
    trace: parsed,
    get mismatch() {
      return replay.mismatch;
    },
    fetch: async (input, init) => answer(replay, replayedRequest(input, init)),
    verify: () => replay.verify(),
  };
}

/** Sends the request as the next connection's client frame; the response is what the trace's server sent. */
async function answer(replay: ReplayTransport, request: Request): Promise<Response> {
  const { signal } = request;
  signal.throwIfAborted();
  const channel = await replay.connect({ signal });
  // Redacted as the recorder did: the key sent live is compared with the trace's [REDACTED], and
  // never shown in a mismatch's message (which goes to CI logs).
  const frame = await requestFrame(request);
  channel.send(JSON.stringify(replay.trace.header.redaction.defaults ? new Redactor().value(frame, "client") : frame));
  const frames = channel.frames()[Symbol.asyncIterator]();
  // One listener per request, however many events: the client's abort ends the wait for the next one.
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => {});
  /** The server's next frame, undefined once it closed; a failure (a mismatch, the abort) closes the channel. */
  const next = async (): Promise<{ [key: string]: JsonValue } | undefined> => {
    try {
      const result = await Promise.race([frames.next(), aborted]);
      return result.done === true ? undefined : (JSON.parse(result.value) as { [key: string]: JsonValue });
    } catch (error) {
      await channel.close();
      throw error;
    }
  };
  const head = await next();
  if (head === undefined || typeof head["status"] !== "number") {
    await channel.close();
    throw new SdkError(ErrorCode.ProtocolError, "replay: the trace's server closed the request without a response");
  }
  const contentType = typeof head["contentType"] === "string" ? head["contentType"] : undefined;
  const init = {
    status: head["status"],
    ...(contentType === undefined ? {} : { headers: { "content-type": contentType } }),
  };
  if (!isEventStream(contentType)) {
    const body = await next();
    while ((await next()) !== undefined); // the server's close, so that the connection is played to its end
    await channel.close();
    if (body === undefined) return new Response(null, init);
    return new Response(typeof body["bodyText"] === "string" ? body["bodyText"] : JSON.stringify(body["body"]), init);
  }
  const encoder = new TextEncoder();
  const events = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const event = await next();
      if (event !== undefined) return controller.enqueue(encoder.encode(eventText(event)));
      controller.close();
      await channel.close();
    },
    cancel: () => channel.close(),
  });
  return new Response(events, init);
}

/**
 * The request as `fetch` would make it. A path without an origin (a page's `baseUrl: "/api"`) is
 * read against a placeholder origin where there is no document to resolve it (Node, Deno,
 * workerd): only the path is compared.
 */
function replayedRequest(input: string | URL | Request, init: RequestInit | undefined): Request {
  if (typeof input === "string" && input.startsWith("/") && !input.startsWith("//")) {
    try {
      return new Request(input, init);
    } catch {
      return new Request(new URL(input, "http://replay.invalid"), init);
    }
  }
  return new Request(input, init);
}
