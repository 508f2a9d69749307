/**
 * The HTTP machinery shared by the fake model servers: a real `node:http` server on 127.0.0.1
 * with an ephemeral port that records every request and streams SSE in deliberately awkward
 * TCP-sized pieces (mid-line, mid-CRLF, mid-UTF-8, several events per write).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deferred, type Deferred } from "@antigravity-ts/test-kit";

/** A request the fake server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query as sent, e.g. `/v1/chat/completions`. */
  url: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON; `undefined` when it is not JSON. */
  body: unknown;
}

/** How a scripted response ended. */
export interface ResponseOutcome {
  /** `false` when the client closed the connection before the server finished the response. */
  completed: boolean;
}

/** A running fake model server. */
export interface FakeModelServer {
  /** The base URL to configure the provider with. */
  readonly baseUrl: string;
  /** Every request received, in order (including rejected ones). */
  readonly requests: readonly RecordedRequest[];
  /** Resolves when the response to the `index`-th scripted request (0-based) has closed. */
  responseClosed(index: number): Promise<ResponseOutcome>;
  /** Stops the server, cutting any response still open. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Replies, in order, to the scripted requests; or a function choosing the reply for each
 * scripted request (`index` counts scripted requests only, from 0).
 */
export type FakeScript<Reply> =
  | readonly Reply[]
  | ((request: RecordedRequest, index: number) => Reply | Promise<Reply>);

/** An HTTP error the fake answers with, in the API's own error body. */
export interface FakeHttpError {
  status: number;
  message: string;
  /** API-specific error code, where the API has one. */
  code?: string;
}

/** Options of {@link startFakeHttpServer}: the script, and what sets one fake API apart. */
export interface FakeHttpServerOptions<Reply> {
  script: FakeScript<Reply>;
  /** Path appended to `http://127.0.0.1:<port>` to form `baseUrl`. */
  basePath: string;
  /** How the fake names itself in error messages, e.g. `fake Gemini`. */
  name: string;
  /** The API's JSON error body for an HTTP error status. */
  errorBody(status: number, message: string, code?: string): unknown;
  /** True for requests on the API's streaming route; others get a 404 and do not consume the script. */
  isRoute(request: RecordedRequest): boolean;
  /** The error a request with a wrong or missing key gets, or `undefined` to let it through. */
  refuseKey(request: RecordedRequest): FakeHttpError | undefined;
  /** Message of the 400 a request whose body is not JSON gets. */
  invalidJsonMessage: string;
  respond(reply: Reply, res: ServerResponse, index: number, request: RecordedRequest): Promise<void>;
}

/** Starts a scripted fake server; see {@link FakeModelServer}. */
export async function startFakeHttpServer<Reply>(options: FakeHttpServerOptions<Reply>): Promise<FakeModelServer> {
  const requests: RecordedRequest[] = [];
  const closedByIndex = new Map<number, Deferred<ResponseOutcome>>();
  const closedFor = (index: number): Deferred<ResponseOutcome> => {
    let entry = closedByIndex.get(index);
    if (entry === undefined) {
      entry = deferred<ResponseOutcome>();
      closedByIndex.set(index, entry);
    }
    return entry;
  };
  let scripted = 0;
  const sendError = (res: ServerResponse, error: FakeHttpError): void =>
    sendJson(res, error.status, options.errorBody(error.status, error.message, error.code));
  /** The error for a request that is not a scripted one: off the route, wrong key, not JSON. */
  const refusal = (request: RecordedRequest): FakeHttpError | undefined => {
    if (!options.isRoute(request))
      return { status: 404, message: `${options.name}: no route for ${request.method} ${request.url}` };
    return (
      options.refuseKey(request) ??
      (request.body === undefined ? { status: 400, message: options.invalidJsonMessage } : undefined)
    );
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const parsed = new URL(req.url ?? "/", "http://127.0.0.1");
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        url: req.url ?? "/",
        path: parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        rawBody,
        body,
      };
      requests.push(recorded);
      const refused = refusal(recorded);
      if (refused !== undefined) return sendError(res, refused);
      const index = scripted++;
      const closed = closedFor(index);
      res.on("close", () => closed.resolve({ completed: res.writableFinished }));
      void answer(recorded, res, index);
    });
  });

  const answer = async (request: RecordedRequest, res: ServerResponse, index: number): Promise<void> => {
    try {
      const { script } = options;
      const reply = typeof script === "function" ? await script(request, index) : script[index];
      if (reply === undefined)
        return sendError(res, {
          status: 500,
          message: `${options.name}: the script has no reply for request #${index}`,
        });
      await options.respond(reply, res, index, request);
    } catch (error) {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`fake server script failed: ${String(error)}`);
      } else {
        res.destroy();
      }
    }
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  return {
    baseUrl: `http://127.0.0.1:${port}${options.basePath}`,
    requests,
    responseClosed: (index) => closedFor(index).promise,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Sends a JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=UTF-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** Options of {@link sendEventStream}. */
export interface SendEventStreamOptions {
  status?: number | undefined;
  contentType?: string | undefined;
  /** Keep the response open after the last byte until the client (or `close()`) ends it. */
  hold?: boolean | undefined;
}

// Write sizes cycle through these so boundaries land everywhere across a stream.
const PIECE_SIZES = [5, 1, 17, 2, 40, 3, 11, 64, 7, 1];

/**
 * Streams `text` with chunked encoding in many small writes, waiting for each to be flushed so
 * the client sees separate TCP reads. Stops quietly when the client goes away.
 */
export async function sendEventStream(
  res: ServerResponse,
  text: string,
  options: SendEventStreamOptions = {},
): Promise<void> {
  res.writeHead(options.status ?? 200, {
    "content-type": options.contentType ?? "text/event-stream",
    "cache-control": "no-cache",
  });
  res.flushHeaders();
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  let turn = 0;
  while (offset < bytes.length) {
    if (res.destroyed) return;
    const size = PIECE_SIZES[turn++ % PIECE_SIZES.length] ?? 8;
    const piece = bytes.subarray(offset, offset + size);
    offset += piece.length;
    await new Promise<void>((resolve) => res.write(piece, () => resolve()));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (options.hold) {
    if (!res.destroyed) await new Promise<void>((resolve) => res.once("close", () => resolve()));
    return;
  }
  res.end();
}

/** Formats SSE `data:` events with the given line ending. */
export function formatSse(payloads: readonly string[], lineEnding: "\n" | "\r\n"): string {
  return payloads.map((payload) => `data: ${payload}${lineEnding}${lineEnding}`).join("");
}

/** Whitespace-separated words in `text`: the fakes' token count where a script gives none. */
export function countTokens(text: string | undefined): number {
  return text ? (text.match(/\S+/gu) ?? []).length : 0;
}

/** Splits text into about `pieces` word-aligned deltas (UTF-8 safe, never empty). */
export function splitText(text: string, pieces: number): string[] {
  const words = text.match(/\S+\s*|\s+/gu) ?? [];
  if (words.length <= 1) return text === "" ? [] : [text];
  const perPiece = Math.ceil(words.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += perPiece) out.push(words.slice(i, i + perPiece).join(""));
  return out;
}
