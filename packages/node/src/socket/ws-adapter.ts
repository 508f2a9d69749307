import type {
  ConnectStage,
  Refusal,
  SdkError,
  WebSocketAdapter,
  WebSocketLike,
  WebSocketPeerClose,
} from "@antigravity-ts/sdk";
import { closeSocket, definedProperties } from "@antigravity-ts/sdk/internal";
import type { IncomingMessage } from "node:http";
import type { LookupFunction } from "node:net";
import { WebSocket } from "ws";

/** How long a refused upgrade's body may take to arrive before the socket is dropped without it. */
const REFUSAL_BODY_WAIT_MS = 200;

/**
 * A `ws`-compatible WebSocket class: the `ws` package's `WebSocket` (the default) or a subclass of
 * it. Typed by shape, so the package's declarations need no `@types/ws` in a user's project.
 */
export type WsWebSocketClass = new (
  url: string,
  protocols: string[],
  options: { headers: Record<string, string>; maxPayload: number; perMessageDeflate: boolean; lookup?: LookupFunction },
) => unknown;

/** Options of {@link wsWebSocketAdapter}. */
export interface WsWebSocketAdapterOptions {
  /** Host-name lookup for the sockets it opens (`net.connect`'s option); default `dns.lookup`. */
  lookup?: LookupFunction | undefined;
  /**
   * Decides how a channel's `frames()` ends when the peer closes the socket without `close()`
   * having been called (`WebSocketAdapter.onPeerClose`); e.g. the subprocess transport turns a drop
   * into `HarnessCrashed` when its child died. Default: `close.error`.
   */
  onPeerClose?: ((close: WebSocketPeerClose) => SdkError | undefined | Promise<SdkError | undefined>) | undefined;
}

/**
 * The {@link WebSocketAdapter} over `ws`, which `@antigravity-ts/node` registers on import: the
 * key travels in the upgrade's headers, no frame-size cap (protocol §4: large tool results), no
 * compression; `terminate()` drops a socket at once; a refused upgrade's HTTP status and the start
 * of its body reach the error message; a connect that times out tells the TCP stage from the upgrade.
 * `options.lookup` replaces the host-name lookup of every socket it opens (`net.connect`'s option);
 * `options.onPeerClose` decides how a channel's `frames()` ends when the peer drops its socket.
 *
 * @example
 * new WebSocketTransport({ url, adapter: wsWebSocketAdapter() });
 */
export function wsWebSocketAdapter(
  WebSocketClass?: WsWebSocketClass,
  options: WsWebSocketAdapterOptions = {},
): WebSocketAdapter {
  const Class = (WebSocketClass ?? WebSocket) as unknown as typeof WebSocket;
  const connection = definedProperties({ lookup: options.lookup });
  const { onPeerClose } = options;
  return {
    ...(onPeerClose === undefined ? {} : { onPeerClose }),
    open: (url, protocols, headers) => {
      const socket = new Class(url, [...protocols], {
        headers: { ...headers },
        maxPayload: 0,
        perMessageDeflate: false,
        ...connection,
      });
      // An 'error' with no listener crashes `ws`'s EventEmitter (e.g. the "closed before the
      // connection was established" error that terminate() emits on a later tick). This listener is
      // never removed, so it stays until the socket is fully closed; 'close' always follows and reports it.
      socket.on("error", () => undefined);
      return socket as unknown as WebSocketLike;
    },
    terminate: (socket) => {
      const ws = socket as unknown as { terminate?: () => void };
      if (typeof ws.terminate !== "function") return closeSocket(socket); // a socket from a `connect` factory
      try {
        ws.terminate();
      } catch {
        // it is gone either way
      }
    },
    openingStage: (socket) => openingStage(socket),
    watchRefusal: (socket, onRefusal) => {
      if (!(socket instanceof WebSocket)) return;
      // With a listener for this event `ws` no longer aborts the handshake itself: terminate() must,
      // or the connect would wait for the server to hang up. It destroys the socket and emits
      // 'error' then 'close', which the transport turns into the typed error with this refusal.
      socket.on("unexpected-response", (_request, response) => {
        const refusal: Refusal = { status: response.statusCode, body: "" };
        onRefusal(refusal);
        readRefusalBody(response, refusal, () => socket.terminate());
      });
    },
  };
}

/** `upgrade` once `ws`'s pending HTTP request has its TCP connection (a private field, read defensively), else `connect`. */
function openingStage(socket: WebSocketLike): ConnectStage {
  const request = (socket as { _req?: { socket?: { connecting?: boolean } | null } | null })._req;
  const tcp = request?.socket;
  return tcp !== undefined && tcp !== null && tcp.connecting === false ? "upgrade" : "connect";
}

/**
 * Reads the start of a refused upgrade's body (the server's explanation, for the error message),
 * then calls `done`: at the body's end, or after {@link REFUSAL_BODY_WAIT_MS} when the server holds
 * the connection open.
 */
function readRefusalBody(response: IncomingMessage, refusal: Refusal, done: () => void): void {
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    done();
  };
  const timer = setTimeout(finish, REFUSAL_BODY_WAIT_MS);
  response.setEncoding("utf8");
  response.on("data", (chunk: string) => {
    if (refusal.body.length < 400) refusal.body += chunk;
  });
  response.on("end", finish);
  response.on("error", finish);
}
