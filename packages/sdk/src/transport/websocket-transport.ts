import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../types.js";
import { abortError, linkSignal, raceSignal, throwIfAborted } from "../util/abort.js";
import { AsyncQueue } from "../util/async-queue.js";
import type { Channel, Transport } from "./transport.js";
import { DefaultWebSocket } from "./websocket-transport-default.js";

/** The event shapes a {@link WebSocketLike} delivers (DOM `MessageEvent`/`CloseEvent`/`ErrorEvent`, `ws`'s twins). */
export interface WebSocketEventLike {
  readonly data?: unknown;
  readonly code?: number;
  readonly reason?: string;
  readonly message?: string;
  readonly error?: unknown;
}

/** The part of the WHATWG `WebSocket` the transport uses; browsers, Deno, workerd and `ws` all have it. */
export interface WebSocketLike {
  readonly readyState: number;
  binaryType: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "message" | "error" | "close", listener: (event: WebSocketEventLike) => void): void;
  removeEventListener(type: "open" | "message" | "error" | "close", listener: (event: WebSocketEventLike) => void): void;
}

/** A `WebSocket` constructor. The third argument is `ws`'s options (headers, maxPayload); browsers ignore it. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[], options?: Record<string, unknown>) => WebSocketLike;

/**
 * Opens an already-connected socket, for runtimes that upgrade through `fetch` (workerd:
 * `fetchUpgradeWebSocket`). The socket must not have dispatched any message event yet.
 */
export type WebSocketConnector = (url: string, headers: Readonly<Record<string, string>>, options: CallOptions) => Promise<WebSocketLike>;

/** How the peer ended a channel's socket, for {@link WebSocketTransportOptions.onPeerClose}. */
export interface WebSocketPeerClose {
  /** The close code; 1006 when the connection dropped without a close frame. */
  readonly code: number;
  readonly reason: string;
  /** What `frames()` throws by default: `ConnectionClosed`, or `undefined` for code 1000 (a normal end). */
  readonly error: SdkError | undefined;
}

/** Options of {@link WebSocketTransport}. Unset values come from the environment where there is one. */
export interface WebSocketTransportOptions {
  /** Full URL (`ws://host:port/`); wins over `host`/`port`. */
  url?: string;
  /** Default `ANTIGRAVITY_HARNESS_HOST`, else `127.0.0.1`. */
  host?: string;
  /** Default `ANTIGRAVITY_HARNESS_PORT`, else `8000`. */
  port?: number;
  /** The harness's key, sent as `x-goog-api-key` (protocol §4). Default `ANTIGRAVITY_API_KEY`. */
  apiKey?: string;
  /** Extra upgrade headers. Browsers cannot send headers: connect them through the gateway. */
  headers?: Readonly<Record<string, string>>;
  /** Subprotocols to offer (`Sec-WebSocket-Protocol`), e.g. the gateway's `antigravity.token.<token>`. Default none. */
  protocols?: readonly string[];
  /** `WebSocket` implementation; default `isomorphic-ws` (`ws` on Node, the global one elsewhere). */
  WebSocket?: WebSocketConstructor;
  /** Connects instead of the constructor (e.g. `fetchUpgradeWebSocket` on Cloudflare Workers). */
  connect?: WebSocketConnector;
  /** Environment to read instead of the runtime's (`process.env` / `Deno.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long `close()` waits for the peer's close frame. Default 1000 ms. */
  closeTimeoutMs?: number;
  /**
   * Decides how `frames()` ends when the socket closes without `close()` having been called:
   * return (or resolve to) the error it throws, or `undefined` to end it normally. Default:
   * `close.error`. E.g. the subprocess transport turns a drop into `HarnessCrashed` when its child died.
   */
  onPeerClose?: (close: WebSocketPeerClose) => SdkError | undefined | Promise<SdkError | undefined>;
}

const OPEN = 1;
const CLOSED = 3;

/**
 * Reads an environment variable where the runtime has one (`process.env` on Node and Bun,
 * `Deno.env` with `--allow-env`), without touching Node globals elsewhere.
 */
export function readEnvironment(name: string): string | undefined {
  const scope = globalThis as { process?: { env?: Record<string, string | undefined> }; Deno?: { env?: { get(key: string): string | undefined } } };
  const fromProcess = scope.process?.env?.[name];
  if (fromProcess !== undefined) return fromProcess;
  try {
    return scope.Deno?.env?.get(name);
  } catch {
    return undefined; // Deno without --allow-env
  }
}

/**
 * A transport to a harness that is already listening (protocol §4): one WebSocket per `connect()`,
 * `x-goog-api-key` on the upgrade, text frames, no message size limit. Refused → `Unavailable`;
 * HTTP 401/403 on the upgrade → `PermissionDenied`. Frames are buffered from the moment the
 * socket opens; an abnormal close (code ≠ 1000) makes `frames()` throw `ConnectionClosed`.
 *
 * @example
 * const transport = new WebSocketTransport({ url: "ws://127.0.0.1:8765/", apiKey: "secret" });
 */
export class WebSocketTransport implements Transport {
  readonly url: string;
  readonly #headers: Record<string, string>;
  readonly #options: WebSocketTransportOptions;

  constructor(options: WebSocketTransportOptions = {}) {
    const env = (name: string): string | undefined => (options.env === undefined ? readEnvironment(name) : options.env[name]);
    const port = options.port ?? parsePort(env("ANTIGRAVITY_HARNESS_PORT")) ?? 8000;
    const host = options.host ?? env("ANTIGRAVITY_HARNESS_HOST") ?? "127.0.0.1";
    this.url = options.url ?? `ws://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}/`;
    const apiKey = options.apiKey ?? env("ANTIGRAVITY_API_KEY");
    this.#headers = { ...options.headers, ...(apiKey === undefined || apiKey === "" ? {} : { "x-goog-api-key": apiKey }) };
    this.#options = options;
  }

  async connect(options: CallOptions = {}): Promise<Channel> {
    const link = linkSignal(options);
    try {
      throwIfAborted(link.signal);
      const closeTimeoutMs = this.#options.closeTimeoutMs ?? 1_000;
      if (this.#options.connect !== undefined) {
        const opening = this.#options.connect(this.url, this.#headers, { signal: link.signal });
        let socket: WebSocketLike;
        try {
          socket = await raceSignal(opening, link.signal);
        } catch (error) {
          // Aborted first: a factory that ignores the signal must not leave an open socket behind.
          opening.then((late) => terminate(late), () => undefined);
          throw error;
        }
        return new WebSocketChannel(socket, this.url, closeTimeoutMs, this.#options.onPeerClose);
      }
      const socket = createSocket(this.url, this.#headers, this.#options.protocols ?? [], this.#options.WebSocket ?? DefaultWebSocket);
      // The channel listens before the socket opens: frames sent with the upgrade are kept (§4).
      const channel = new WebSocketChannel(socket, this.url, closeTimeoutMs, this.#options.onPeerClose);
      await waitForOpen(socket, this.url, link.signal);
      return channel;
    } catch (error) {
      throw SdkError.from(error, ErrorCode.Unavailable);
    } finally {
      link.dispose();
    }
  }
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new SdkError(ErrorCode.InvalidArgument, `ANTIGRAVITY_HARNESS_PORT must be a TCP port number, got ${JSON.stringify(value)}`);
  }
  return port;
}

/** A socket being opened by a constructor. */
function createSocket(url: string, headers: Record<string, string>, protocols: readonly string[], Ctor: WebSocketConstructor): WebSocketLike {
  let socket: WebSocketLike;
  try {
    // `ws` options: headers for the key, no frame-size cap (§4: large tool results), no compression.
    socket = new Ctor(url, [...protocols], { headers, maxPayload: 0, perMessageDeflate: false });
  } catch (cause) {
    throw new SdkError(ErrorCode.InvalidArgument, `cannot open a WebSocket to ${redactUrl(url)}: ${describe(cause)}`, { cause });
  }
  // An 'error' with no listener crashes `ws`'s EventEmitter (e.g. the "closed before the
  // connection was established" error that terminate() emits on a later tick). This listener is
  // never removed, so it stays until the socket is fully closed; 'close' always follows and reports it.
  socket.addEventListener("error", () => undefined);
  return socket;
}

/** Resolves once `socket` is open; rejects (and drops the socket) if it fails or `signal` aborts first. */
function waitForOpen(socket: WebSocketLike, url: string, signal: AbortSignal): Promise<void> {
  if (socket.readyState === OPEN) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let refusal: Refusal | undefined;
    const emitter = socket as unknown as { on?: (event: string, listener: (request: unknown, response: RefusedResponse) => void) => void };
    // `ws` only: the HTTP status and body of a refused upgrade (browsers do not expose them). With
    // a listener for this event `ws` no longer aborts the handshake itself: terminate() must, or
    // the connect would wait for the server to hang up. It destroys the socket and emits 'error'
    // then 'close'.
    emitter.on?.("unexpected-response", (_request, response) => {
      refusal = { status: response.statusCode, body: "" };
      readRefusalBody(response, refusal, () => terminate(socket));
    });
    const settle = (): void => {
      socket.removeEventListener("open", onOpen);
      socket.removeEventListener("error", onError);
      socket.removeEventListener("close", onError);
      signal.removeEventListener("abort", onAbort);
    };
    const onOpen = (): void => {
      settle();
      resolve();
    };
    const onError = (event: WebSocketEventLike): void => {
      settle();
      terminate(socket);
      reject(connectError(url, event, refusal));
    };
    const onAbort = (): void => {
      settle();
      terminate(socket);
      reject(abortError(signal));
    };
    socket.addEventListener("open", onOpen);
    socket.addEventListener("error", onError);
    socket.addEventListener("close", onError);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A refused upgrade as `ws` reports it: the response's status and the start of its body. */
interface Refusal {
  status: number | undefined;
  body: string;
}

/** The `http.IncomingMessage` of a refused upgrade, as far as it is read here. */
interface RefusedResponse {
  readonly statusCode?: number;
  setEncoding?(encoding: "utf8"): void;
  on?(event: "data" | "end" | "error", listener: (chunk?: unknown) => void): void;
}

/** How long a refused upgrade's body may take to arrive before the socket is dropped without it. */
const REFUSAL_BODY_WAIT_MS = 200;

/**
 * Reads the start of a refused upgrade's body (the server's explanation, for the error message),
 * then calls `done`: at the body's end, or after {@link REFUSAL_BODY_WAIT_MS} when the server holds
 * the connection open.
 */
function readRefusalBody(response: RefusedResponse, refusal: Refusal, done: () => void): void {
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    done();
  };
  const timer = setTimeout(finish, REFUSAL_BODY_WAIT_MS);
  response.setEncoding?.("utf8");
  response.on?.("data", (chunk) => {
    if (refusal.body.length < 400) refusal.body += String(chunk);
  });
  response.on?.("end", finish);
  response.on?.("error", finish);
}

function connectError(target: string, event: WebSocketEventLike, refusal: Refusal | undefined): SdkError {
  const url = redactUrl(target);
  const text = event.message ?? (event.error instanceof Error ? event.error.message : "") ?? "";
  // `ws` says "Unexpected server response: 401"; Deno's WebSocket "Invalid status code: 401".
  const httpCode = refusal?.status ?? Number(/(?:Unexpected server response|Invalid status code):? (\d{3})/.exec(text)?.[1] ?? Number.NaN);
  const details = Number.isNaN(httpCode) ? {} : { httpCode };
  const body = refusal?.body.trim().slice(0, 200) ?? "";
  const http = `HTTP ${httpCode}${body === "" ? "" : `: ${body}`}`;
  if (httpCode === 401 || httpCode === 403) {
    return new SdkError(ErrorCode.PermissionDenied, `the harness at ${url} refused the api key (${http}); pass the key it expects (apiKey / ANTIGRAVITY_API_KEY)`, { cause: event.error, details });
  }
  const why = Number.isNaN(httpCode) ? text || `connection closed${event.code === undefined ? "" : ` (code ${event.code})`}` : http;
  return new SdkError(ErrorCode.Unavailable, `could not connect to the harness at ${url}: ${why}; is it running and listening there?`, { cause: event.error, details });
}

function terminate(socket: WebSocketLike): void {
  const ws = socket as unknown as { terminate?: () => void };
  try {
    if (typeof ws.terminate === "function") ws.terminate();
    else if (socket.readyState !== CLOSED) socket.close();
  } catch {
    // closing a socket that never opened may throw in some runtimes; it is gone either way
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

const decoder = new TextDecoder();

/** A {@link Channel} over an open {@link WebSocketLike}. */
class WebSocketChannel implements Channel {
  readonly #socket: WebSocketLike;
  readonly #url: string;
  readonly #closeTimeoutMs: number;
  readonly #onPeerClose: WebSocketTransportOptions["onPeerClose"];
  readonly #queue = new AsyncQueue<string>();
  #closing: Promise<void> | undefined;
  #consumed = false;
  readonly #closed: Promise<void>;

  constructor(socket: WebSocketLike, url: string, closeTimeoutMs: number, onPeerClose: WebSocketTransportOptions["onPeerClose"]) {
    this.#socket = socket;
    this.#url = redactUrl(url);
    this.#closeTimeoutMs = closeTimeoutMs;
    this.#onPeerClose = onPeerClose;
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (event) => void this.#queue.push(frameText(event.data)));
    socket.addEventListener("error", () => {
      // a 'close' event follows every 'error'; it decides how the stream ends
    });
    this.#closed = new Promise<void>((resolve) => {
      socket.addEventListener("close", (event) => {
        this.#onClose(event);
        resolve();
      });
    });
    if (socket.readyState === CLOSED) this.#onClose({ code: 1006 });
  }

  send(frame: string): void {
    if (this.#closing !== undefined || this.#socket.readyState !== OPEN) {
      throw new SdkError(ErrorCode.ConnectionClosed, `cannot send: the WebSocket to ${this.#url} is closed`);
    }
    this.#socket.send(frame);
  }

  frames(): AsyncIterable<string> {
    if (this.#consumed) throw new SdkError(ErrorCode.FailedPrecondition, "frames() has a single consumer and was already called");
    this.#consumed = true;
    return this.#queue;
  }

  close(options: CallOptions = {}): Promise<void> {
    this.#closing ??= this.#close(options);
    return this.#closing;
  }

  async #close(options: CallOptions): Promise<void> {
    this.#queue.end();
    if (this.#socket.readyState === CLOSED) return;
    try {
      this.#socket.close(1000);
    } catch {
      terminate(this.#socket);
      return;
    }
    const link = linkSignal({ timeoutMs: this.#closeTimeoutMs, ...options });
    try {
      await raceSignal(this.#closed, link.signal);
    } catch {
      terminate(this.#socket); // the peer did not answer the close frame in time
    } finally {
      link.dispose();
    }
  }

  #onClose(event: WebSocketEventLike): void {
    if (this.#closing !== undefined) {
      this.#queue.end();
      return;
    }
    const code = event.code ?? 1006;
    const reason = event.reason ?? "";
    // 1006: no close frame (RFC 6455 §7.1.5), so the reason is ours to tell.
    const why = reason || (code === 1006 ? "no close frame; the harness stopped or the network dropped" : "");
    const error = code === 1000 ? undefined : new SdkError(ErrorCode.ConnectionClosed, `the WebSocket to ${this.#url} closed unexpectedly (code ${code}${why ? `: ${why}` : ""}); start the agent again to reconnect (a saved session resumes with its conversationId)`, { details: { closeCode: code } });
    const decide = this.#onPeerClose;
    if (decide === undefined) return this.#end(error);
    // A close() while the owner decides ends the stream normally: end() wins over a later fail().
    void (async () => decide({ code, reason, error }))().then(
      (decided) => this.#end(decided),
      (cause: unknown) => this.#end(SdkError.from(cause, ErrorCode.ConnectionClosed)),
    );
  }

  #end(error: SdkError | undefined): void {
    if (error === undefined) this.#queue.end();
    else this.#queue.fail(error);
  }
}

/** Text of a message event's data: strings as they are, binary frames decoded as UTF-8. */
function frameText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return decoder.decode(data);
  if (ArrayBuffer.isView(data)) return decoder.decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  if (Array.isArray(data)) return data.map(frameText).join("");
  return String(data);
}

/** The URL without its query, fragment and credentials, for error messages: a gateway token travels in the query. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return url.replace(/[?#].*$/, "");
  }
}
