import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import type { LogThrottle } from "@antigravity-ts/sdk/internal";
import { WebSocketServer, type WebSocket } from "ws";
import {
  isOriginAllowed,
  isTokenValid,
  presentedToken,
  type OriginPolicy,
  type PresentedToken,
  type TokenPolicy,
} from "./gateway-auth.js";
import { remoteAddress } from "./gateway-log.js";

/** What the endpoint needs of each admitted page's relay. */
export interface PageRelay {
  /** Settles when the page and whatever it drives are gone. */
  readonly done: Promise<void>;
  /** Closes the page (1001) and what it drives (endpoint shutdown). */
  shutdown(): Promise<void>;
}

/** Options of {@link openPageEndpoint}. */
export interface PageEndpointOptions {
  allowedOrigins: OriginPolicy;
  token: TokenPolicy;
  /** Attach to this server's `upgrade` events instead of listening on a port. */
  server?: Server;
  port?: number;
  host?: string;
  /** The URL path the endpoint answers; other paths are left to other upgrade handlers, or get 404. */
  path: string;
  /** Standalone mode: a request not whole within this time gets 408 (half-sent requests hold no socket). */
  headersTimeoutMs: number;
  /** Most pages at once (relays and upgrades being admitted); more get 503. */
  maxConnections: number;
  /** Largest frame a page may send (`ws`'s `maxPayload`; 0: no cap). */
  maxPayload: number;
  log: LogThrottle;
  /** Starts the relay of a page that passed `Origin`, token and the connection cap. */
  startRelay(page: WebSocket, request: IncomingMessage, presented: PresentedToken): PageRelay;
}

/** A running endpoint. */
export interface PageEndpoint extends AsyncDisposable {
  /** The `ws://` URL pages connect to (standalone mode), else `undefined`. */
  readonly url: string | undefined;
  /** Pages relayed now. */
  readonly connectionCount: number;
  /** Refuses new pages, shuts every relay down and, in standalone mode, closes the server. */
  close(): Promise<void>;
}

/**
 * The WebSocket endpoint of the harness gateway and of the ACP bridge: one admission rule for
 * browser pages — `Origin`, then the token (`?token=` or the `antigravity.token.<token>`
 * subprotocol, echoed as browsers require), then the connection cap — with refusals as plain HTTP
 * statuses logged at most once per status and window, and an orderly close.
 */
export async function openPageEndpoint(options: PageEndpointOptions): Promise<PageEndpoint> {
  const { path, log } = options;
  const selectedProtocols = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayload,
    perMessageDeflate: false,
    handleProtocols: (_offered, request) => selectedProtocols.get(request) ?? false,
  });
  const relays = new Set<PageRelay>();
  let admitting = 0;
  let closed = false;

  // Node checks the timeouts on an interval (default 30 s): a short one makes them hold promptly.
  const server =
    options.server ??
    createServer(
      {
        headersTimeout: options.headersTimeoutMs,
        requestTimeout: options.headersTimeoutMs,
        connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs),
      },
      (_request, response) => {
        response
          .writeHead(426, { "content-type": "text/plain" })
          .end("this endpoint only accepts WebSocket upgrades\n");
      },
    );

  function refuse(request: IncomingMessage, socket: Duplex, status: number, text: string): void {
    log.note(
      `refused ${status}`,
      `refused an upgrade from ${remoteAddress(request)}: ${status} ${text}`,
      `refused upgrades (${status} ${text})`,
    );
    reject(socket, status, text);
  }

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (new URL(request.url ?? "/", "http://endpoint.invalid").pathname !== path) {
      // Another upgrade handler on a shared server may own this path.
      if (options.server === undefined || server.listenerCount("upgrade") === 1)
        refuse(request, socket, 404, "Not Found");
      return;
    }
    void admit(request, socket, head);
  };

  async function admit(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (closed) return refuse(request, socket, 503, "Service Unavailable");
    if (!isOriginAllowed(options.allowedOrigins, request)) return refuse(request, socket, 403, "Forbidden");
    if (relays.size + admitting >= options.maxConnections) return refuse(request, socket, 503, "Service Unavailable");
    admitting++;
    try {
      const presented = presentedToken(request);
      const valid = await isTokenValid(options.token, presented, request).catch(() => false);
      if (!valid || presented === undefined) return refuse(request, socket, 401, "Unauthorized");
      if (closed || socket.destroyed) return refuse(request, socket, 503, "Service Unavailable");
      if (presented.protocol !== undefined) selectedProtocols.set(request, presented.protocol);
      wss.handleUpgrade(request, socket, head, (page) => {
        const relay = options.startRelay(page, request, presented);
        relays.add(relay);
        void relay.done.finally(() => relays.delete(relay));
      });
    } finally {
      admitting--;
    }
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

/** Refuses an upgrade with an HTTP status and closes the socket. */
function reject(socket: Duplex, status: number, text: string): void {
  if (socket.destroyed) return;
  socket.once("finish", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${text.length + 1}\r\n\r\n${text}\n`,
  );
}

/** Listens on `host:port`, failing with `Unavailable`. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (cause: Error): void =>
      reject(new SdkError(ErrorCode.Unavailable, `could not listen on ${host}:${port}: ${cause.message}`, { cause }));
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}
