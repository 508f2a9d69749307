import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { ErrorCode, SdkError, WebSocketTransport, type Channel, type Transport } from "@antigravity-ts/sdk";
import { LogThrottle } from "@antigravity-ts/sdk/internal";
import { WebSocketServer, type WebSocket } from "ws";
import { SOCKET_CLOSE_TIMEOUT_MS } from "../socket/connect-harness-socket.js";
import {
  isOriginAllowed,
  isTokenValid,
  presentedToken,
  type OriginPolicy,
  type PresentedToken,
  type TokenPolicy,
} from "./gateway-auth.js";
import { remoteAddress, stderrSink, type GatewayLogSink } from "./gateway-log.js";
import { GatewayRelay, type OpenHarnessChannel } from "./gateway-relay.js";
import type { GatewaySessionOptions } from "./gateway-session.js";
import { SessionOwnership } from "./session-ownership.js";

/** Where the gateway sends each browser: one running harness, or a fresh transport per client. */
export type HarnessGatewayTarget =
  /** A harness WebSocket (`ws://127.0.0.1:8765/`) and its key; the gateway adds `x-goog-api-key`. */
  | { url: string; apiKey: string }
  /** A transport per browser client, e.g. `() => new SubprocessTransport()` for a harness each. */
  | { transport: () => Transport | Promise<Transport> };

/** Options of {@link createHarnessGateway}. */
export interface HarnessGatewayOptions {
  target: HarnessGatewayTarget;
  /** Page origins allowed to connect (`Origin` header). Others get HTTP 403. */
  allowedOrigins: OriginPolicy;
  /** The token a page must present (`?token=` or subprotocol `antigravity.token.<token>`). Others get HTTP 401. */
  token: TokenPolicy;
  /**
   * Attach to this server's `upgrade` events instead of listening on a port. Its own
   * `headersTimeout`, `requestTimeout` and `connectionsCheckingInterval` then bound half-sent
   * requests (Node's defaults: 60 s, checked every 30 s); `headersTimeoutMs` is refused with it.
   */
  server?: Server;
  /** Standalone mode: port to listen on (0 = any free port). Default 0. */
  port?: number;
  /** Standalone mode: address to bind. Default `127.0.0.1`. */
  host?: string;
  /**
   * Standalone mode: a client that has not sent a whole request (an upgrade's headers) within this
   * time gets HTTP 408 and is closed, so half-sent requests cannot hold sockets. Checked every
   * second (more often below 1 s). Default 5 000 ms.
   */
  headersTimeoutMs?: number;
  /** URL path of the endpoint. Default `/`. */
  path?: string;
  /** Most browser connections at once; more get HTTP 503. Default 16. */
  maxConnections?: number;
  /** Bound on connecting to the harness for a new client, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /**
   * What every page's session may do: workspaces (required), containment, tools, policy floor,
   * MCP servers, models… The page's own values for these are overridden or refused (docs/gateway.md).
   */
  session: GatewaySessionOptions;
  /** A page that sends no first frame within this time is closed (1008) and its slot freed. Default 10 000 ms. */
  firstFrameTimeoutMs?: number;
  /** Largest first frame (`InitializeConversationEvent`) accepted, in bytes; larger ones are closed with 1009. Default 1 MiB. */
  maxFirstFrameBytes?: number;
  /** Where log lines go (refusals, overridden page settings), rate-limited per kind. Default: stderr. */
  log?: GatewayLogSink;
}

/** A running gateway. */
export interface HarnessGateway extends AsyncDisposable {
  /** The `ws://` URL pages connect to (standalone mode), else `undefined`. */
  readonly url: string | undefined;
  /** Browser connections currently relayed. */
  readonly connectionCount: number;
  /** Refuses new clients, closes every relay (browsers get 1001) and, in standalone mode, the server. */
  close(): Promise<void>;
}

/**
 * A WebSocket endpoint for browser pages that relays protocol frames to a harness and adds the
 * `x-goog-api-key` itself, so the page never holds the harness key (ARCHITECTURE.md, "where the
 * harness key lives"). The operator, not the page, decides what a session may do: the page's
 * first frame is rewritten with `session` (workspaces, containment, tools, policy floor…) or
 * refused, and a page may resume only its own sessions. Checks `Origin` and a per-client token
 * before upgrading, caps concurrent connections, closes pages that never speak, never caps later
 * frames (protocol §4), and closes the other side when either goes away (a per-client subprocess
 * harness is shut down with its browser). Throws `InvalidArgument` for a bad `session`.
 *
 * @example
 * const gateway = await createHarnessGateway({
 *   target: { transport: () => new SubprocessTransport() },
 *   allowedOrigins: ["http://localhost:5173"],
 *   token: process.env.GATEWAY_TOKEN ?? "dev-token",
 *   session: { workspaces: ["/srv/agent-workspace"] },
 *   port: 8787,
 * });
 * // page: new WebSocketTransport({ url: `ws://localhost:8787/?token=${token}` })
 */
export async function createHarnessGateway(options: HarnessGatewayOptions): Promise<HarnessGateway> {
  const headersTimeoutMs = options.headersTimeoutMs ?? 5_000;
  if (options.server !== undefined && options.headersTimeoutMs !== undefined) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      "headersTimeoutMs applies to the gateway's own server; with `server`, set headersTimeout and requestTimeout on that server",
    );
  }
  if (!(headersTimeoutMs >= 1 && Number.isSafeInteger(headersTimeoutMs)))
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `headersTimeoutMs must be a whole number of ms >= 1, got ${headersTimeoutMs}`,
    );
  const path = options.path ?? "/";
  const maxConnections = options.maxConnections ?? 16;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const firstFrameTimeoutMs = options.firstFrameTimeoutMs ?? 10_000;
  const maxFirstFrameBytes = options.maxFirstFrameBytes ?? 1024 * 1024;
  // The session rules and the page gate check configs and frames with the generated schema: they
  // load with the first gateway, so that importing @antigravity-ts/node does not build the schema.
  const [{ resolveSessionRules }, { PageGate }] = await Promise.all([
    import("./gateway-session.js"),
    import("./page-gate.js"),
  ]);
  const rules = await resolveSessionRules(options.session);
  const ownership = new SessionOwnership();
  const log = new LogThrottle(options.log ?? stderrSink);
  const open = harnessOpener(options.target, connectTimeoutMs);
  // The token subprotocol must be echoed, or browsers fail the connection.
  const selectedProtocols = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 0,
    perMessageDeflate: false,
    handleProtocols: (_offered, request) => selectedProtocols.get(request) ?? false,
  });
  const relays = new Set<GatewayRelay>();
  let admitting = 0;
  let closed = false;

  // Node checks the timeouts on an interval (default 30 s): a short one makes them hold promptly.
  const serverOptions = {
    headersTimeout: headersTimeoutMs,
    requestTimeout: headersTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
  };
  const server =
    options.server ??
    createServer(serverOptions, (_request, response) => {
      response.writeHead(426, { "content-type": "text/plain" }).end("this endpoint only accepts WebSocket upgrades\n");
    });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (new URL(request.url ?? "/", "http://gateway.invalid").pathname !== path) {
      // Another upgrade handler on a shared server may own this path.
      if (options.server === undefined || server.listenerCount("upgrade") === 1)
        refuse(request, socket, 404, "Not Found");
      return;
    }
    void admit(request, socket, head);
  };

  /** Refuses an upgrade with an HTTP status; logged at most once per status and window (issue 8 item 13). */
  function refuse(request: IncomingMessage, socket: Duplex, status: number, text: string): void {
    log.note(
      `refused ${status}`,
      `refused an upgrade from ${remoteAddress(request)}: ${status} ${text}`,
      `refused upgrades (${status} ${text})`,
    );
    reject(socket, status, text);
  }

  async function admit(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (closed) return refuse(request, socket, 503, "Service Unavailable");
    if (!isOriginAllowed(options.allowedOrigins, request)) return refuse(request, socket, 403, "Forbidden");
    if (relays.size + admitting >= maxConnections) return refuse(request, socket, 503, "Service Unavailable");
    admitting++;
    try {
      const presented = presentedToken(request);
      const valid = await isTokenValid(options.token, presented, request).catch(() => false);
      if (!valid || presented === undefined) return refuse(request, socket, 401, "Unauthorized");
      if (closed || socket.destroyed) return refuse(request, socket, 503, "Service Unavailable");
      if (presented.protocol !== undefined) selectedProtocols.set(request, presented.protocol);
      wss.handleUpgrade(request, socket, head, (browser) => startRelay(browser, request, presented));
    } finally {
      admitting--;
    }
  }

  function startRelay(browser: WebSocket, request: IncomingMessage, presented: PresentedToken): void {
    const page = { token: presented.token, request };
    const gate = new PageGate({ rules, ownership, page, maxFirstFrameBytes, log });
    const onRefused = (code: number, reason: string): void =>
      log.note(
        `closed ${code}`,
        `closed a page from ${remoteAddress(request)} with ${code}: ${reason}`,
        `pages closed with ${code}`,
      );
    const relay = new GatewayRelay(browser, { open, gate, firstFrameTimeoutMs, onRefused });
    relays.add(relay);
    void relay.done.finally(() => relays.delete(relay));
  }

  server.on("upgrade", onUpgrade);
  if (options.server === undefined) await listen(server, options.port ?? 0, options.host ?? "127.0.0.1");
  const address = options.server === undefined ? (server.address() as AddressInfo) : undefined;
  const host = address === undefined ? undefined : address.family === "IPv6" ? `[${address.address}]` : address.address;

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    server.off("upgrade", onUpgrade);
    await Promise.all([...relays].map((relay) => relay.shutdown()));
    wss.close();
    log.close();
    if (options.server === undefined) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  };
  return {
    url: address === undefined ? undefined : `ws://${host}:${address.port}${path}`,
    get connectionCount() {
      return relays.size;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function harnessOpener(target: HarnessGatewayTarget, timeoutMs: number): OpenHarnessChannel {
  if ("url" in target) {
    // `env: {}`: the target's URL and key, never ANTIGRAVITY_* of the gateway's process.
    const transport = new WebSocketTransport({
      url: target.url,
      apiKey: target.apiKey,
      env: {},
      closeTimeoutMs: SOCKET_CLOSE_TIMEOUT_MS,
    });
    return (signal): Promise<Channel> => transport.connect({ signal, timeoutMs });
  }
  return async (signal): Promise<Channel> => {
    const transport = await target.transport();
    return transport.connect({ signal, timeoutMs });
  };
}

/** Refuses an upgrade with an HTTP status and closes the socket (also `createAcpBridge`'s refusals). */
export function reject(socket: Duplex, status: number, text: string): void {
  if (socket.destroyed) return;
  socket.once("finish", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${text.length + 1}\r\n\r\n${text}\n`,
  );
}

/** Listens on `host:port`, failing with `Unavailable` (also `createAcpBridge`'s standalone server). */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (cause: Error): void =>
      reject(
        new SdkError(ErrorCode.Unavailable, `gateway could not listen on ${host}:${port}: ${cause.message}`, { cause }),
      );
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}
