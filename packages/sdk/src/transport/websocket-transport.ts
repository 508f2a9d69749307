import { reconnectPolicy, type ReconnectOptions, type ReconnectPolicy } from "./reconnect.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import { abortError, linkSignal, raceSignal, throwIfAborted } from "../util/abort.js";
import type { Channel, Transport } from "./transport.js";
import { WebSocketChannel, type ChannelOptions } from "./websocket-channel.js";
import {
  connectError,
  redactUrl,
  stageDeadlineError,
  withStage,
  type Offered,
  type Refusal,
} from "./websocket-errors.js";
import { DefaultWebSocket } from "./websocket-transport-default.js";
import { registeredWebSocketAdapter, whatwgWebSocketAdapter, type WebSocketAdapter } from "./websocket-adapter.js";
import { errorText } from "../error-text.js";
import type { WebSocketConstructor, WebSocketEventLike, WebSocketLike } from "./websocket-like.js";

/**
 * Opens an already-connected socket, for runtimes that upgrade through `fetch` (workerd:
 * `fetchUpgradeWebSocket`). The socket must not have dispatched any message event yet.
 */
export type WebSocketConnector = (
  url: string,
  headers: Readonly<Record<string, string>>,
  options: CallOptions,
) => Promise<WebSocketLike>;

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
  /**
   * `WebSocket` implementation, used through {@link whatwgWebSocketAdapter}. Default: the
   * registered adapter (`ws` with `@antigravity-ts/node`), else `isomorphic-ws` (the global one
   * in browsers, Deno and workerd).
   */
  WebSocket?: WebSocketConstructor;
  /** How sockets are opened and dropped, and how a peer's close ends `frames()`; wins over `WebSocket`. See {@link WebSocketAdapter}. */
  adapter?: WebSocketAdapter;
  /** Connects instead of the constructor (e.g. `fetchUpgradeWebSocket` on Cloudflare Workers). */
  connect?: WebSocketConnector;
  /** Environment to read instead of the runtime's (`process.env` / `Deno.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long `close()` waits for the peer's close frame. Default 1000 ms. */
  closeTimeoutMs?: number;
  /**
   * How long `connect()` waits for the socket to open (TCP connection and WebSocket upgrade)
   * before it fails with `DeadlineExceeded` naming the URL and the stage (`connect`/`upgrade`).
   * Default 10000 ms; `0` or `Infinity`: no limit. A `timeoutMs` of the call applies as well.
   */
  connectTimeoutMs?: number;
  /**
   * How long an open channel waits for the peer's first frame after its own first frame (the
   * session configuration, §5) before `frames()` fails with `DeadlineExceeded`, stage `init`,
   * and the socket is dropped. Default 10000 ms (a harness that starts slow work before its
   * answer, e.g. MCP servers, may need more); `0` or `Infinity`: no limit. A `timeoutMs` of
   * `start()` applies as well, and its error names the URL and stage too.
   */
  initTimeoutMs?: number;
  /**
   * Re-open the socket after an unexpected close and resume the session by id (protocol §5
   * RESUME), with bounded exponential backoff; off by default. See docs/runtimes.md "Reconnect"
   * for exactly what survives a drop.
   */
  reconnect?: ReconnectOptions;
}

const OPEN = 1;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
// A CLI user waits about as long for a silent server after the upgrade as for one that never
// upgrades: 10 s each, then an error naming the URL and the stage (issue 26 item 5).
const DEFAULT_INIT_TIMEOUT_MS = 10_000;

/**
 * Reads an environment variable where the runtime has one (`process.env` on Node and Bun,
 * `Deno.env` with `--allow-env`), without touching Node globals elsewhere. Under Deno without
 * `--allow-env` both `Deno.env` and Deno's `process.env` throw: that reads as unset.
 */
export function readEnvironment(name: string): string | undefined {
  const scope = globalThis as {
    process?: { env?: Record<string, string | undefined> };
    Deno?: { env?: { get(key: string): string | undefined } };
  };
  try {
    return scope.process?.env?.[name] ?? scope.Deno?.env?.get(name);
  } catch {
    return undefined; // Deno without --allow-env
  }
}

/**
 * A transport to a harness that is already listening (protocol §4): one WebSocket per `connect()`,
 * `x-goog-api-key` on the upgrade, text frames, no message size limit. Refused → `Unavailable`;
 * HTTP 401/403 on the upgrade → `PermissionDenied`, 429 → `ResourceExhausted`; no open socket
 * within `connectTimeoutMs`, or no answer to the first frame within `initTimeoutMs` →
 * `DeadlineExceeded` with the URL and the stage. Frames are buffered from the moment the socket
 * opens; an abnormal close (code ≠ 1000) makes `frames()` throw `ConnectionClosed` (`NotFound`
 * for a refused resume of an unknown session).
 *
 * @example
 * const transport = new WebSocketTransport({ url: "ws://127.0.0.1:8765/", apiKey: "secret" });
 */
export class WebSocketTransport implements Transport {
  readonly url: string;
  readonly #headers: Record<string, string>;
  readonly #options: WebSocketTransportOptions;
  readonly #adapter: WebSocketAdapter;
  /** The validated `reconnect` option: a connection over this transport resumes after a drop. */
  readonly reconnect: ReconnectPolicy | undefined;

  constructor(options: WebSocketTransportOptions = {}) {
    const env = (name: string): string | undefined =>
      options.env === undefined ? readEnvironment(name) : options.env[name];
    this.url =
      options.url ??
      urlOf(
        options.host ?? env("ANTIGRAVITY_HARNESS_HOST") ?? "127.0.0.1",
        options.port ?? parsePort(env("ANTIGRAVITY_HARNESS_PORT")) ?? 8000,
      );
    const apiKey = options.apiKey ?? env("ANTIGRAVITY_API_KEY");
    this.#headers = {
      ...options.headers,
      ...(apiKey === undefined || apiKey === "" ? {} : { "x-goog-api-key": apiKey }),
    };
    this.#options = options;
    this.#adapter =
      options.adapter ??
      (options.WebSocket === undefined
        ? (registeredWebSocketAdapter() ?? whatwgWebSocketAdapter(DefaultWebSocket))
        : whatwgWebSocketAdapter(options.WebSocket));
    this.reconnect = options.reconnect === undefined ? undefined : reconnectPolicy(options.reconnect);
  }

  async connect(options: CallOptions = {}): Promise<Channel> {
    // The transport's own limit on opening: it aborts the link with an error naming the stage.
    const deadline = new AbortController();
    let socket: WebSocketLike | undefined;
    const adapter = this.#adapter;
    const connectTimeoutMs = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const timer = isLimit(connectTimeoutMs)
      ? setTimeout(
          () =>
            deadline.abort(
              stageDeadlineError(
                this.url,
                socket === undefined ? "connect" : adapter.openingStage(socket),
                connectTimeoutMs,
                "connectTimeoutMs",
              ),
            ),
          connectTimeoutMs,
        )
      : undefined;
    const link = linkSignal(options, deadline.signal);
    try {
      throwIfAborted(link.signal);
      const channelOptions: ChannelOptions = {
        url: this.url,
        closeTimeoutMs: this.#options.closeTimeoutMs ?? 1_000,
        initTimeoutMs: this.#options.initTimeoutMs ?? DEFAULT_INIT_TIMEOUT_MS,
        adapter,
      };
      if (this.#options.connect !== undefined) {
        const opening = this.#options.connect(this.url, this.#headers, { signal: link.signal });
        let opened: WebSocketLike;
        try {
          opened = await raceSignal(opening, link.signal);
        } catch (error) {
          // Aborted first: a factory that ignores the signal must not leave an open socket behind.
          opening.then(
            (late) => adapter.terminate(late),
            () => undefined,
          );
          throw error;
        }
        return new WebSocketChannel(opened, channelOptions);
      }
      const protocols = this.#options.protocols ?? [];
      socket = createSocket(this.url, this.#headers, protocols, adapter);
      // The channel listens before the socket opens: frames sent with the upgrade are kept (§4).
      const channel = new WebSocketChannel(socket, channelOptions);
      const offered: Offered = {
        apiKey: this.#headers["x-goog-api-key"] !== undefined,
        token: protocols.some((protocol) => protocol.startsWith("antigravity.token.")) || /[?&]token=/.test(this.url),
      };
      await waitForOpen(socket, adapter, this.url, offered, link.signal);
      return channel;
    } catch (error) {
      // The caller's deadline keeps the URL and the stage, as the transport's own limit does.
      throw withStage(
        SdkError.from(error, ErrorCode.Unavailable),
        this.url,
        socket === undefined ? "connect" : adapter.openingStage(socket),
      );
    } finally {
      clearTimeout(timer);
      link.dispose();
    }
  }
}

/** A finite, positive time limit (`0` and `Infinity` mean none). */
function isLimit(ms: number): boolean {
  if (!(ms >= 0))
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `a WebSocketTransport timeout must be a number >= 0 (0 or Infinity: none), got ${String(ms)}`,
    );
  return ms > 0 && Number.isFinite(ms);
}

/** `ws://host:port/`, with an IPv6 host in brackets. */
function urlOf(host: string, port: number): string {
  return `ws://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}/`;
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `ANTIGRAVITY_HARNESS_PORT must be a TCP port number, got ${JSON.stringify(value)}`,
    );
  }
  return port;
}

/** A socket being opened through the adapter; a runtime that refuses the URL or protocols → `InvalidArgument`. */
function createSocket(
  url: string,
  headers: Record<string, string>,
  protocols: readonly string[],
  adapter: WebSocketAdapter,
): WebSocketLike {
  try {
    return adapter.open(url, protocols, headers);
  } catch (cause) {
    throw new SdkError(ErrorCode.InvalidArgument, `cannot open a WebSocket to ${redactUrl(url)}: ${errorText(cause)}`, {
      cause,
    });
  }
}

/** Resolves once `socket` is open; rejects (and drops the socket) if it fails or `signal` aborts first. */
function waitForOpen(
  socket: WebSocketLike,
  adapter: WebSocketAdapter,
  url: string,
  offered: Offered,
  signal: AbortSignal,
): Promise<void> {
  if (socket.readyState === OPEN) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let refusal: Refusal | undefined;
    adapter.watchRefusal?.(socket, (refused) => {
      refusal = refused;
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
      adapter.terminate(socket);
      reject(connectError(url, event, refusal, offered));
    };
    const onAbort = (): void => {
      settle();
      adapter.terminate(socket);
      reject(abortError(signal));
    };
    socket.addEventListener("open", onOpen);
    socket.addEventListener("error", onError);
    socket.addEventListener("close", onError);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
