import type { ConnectStage, Refusal } from "./websocket-errors.js";
import type { SdkError } from "../errors.js";
import type { WebSocketConstructor, WebSocketLike, WebSocketPeerClose } from "./websocket-like.js";

const CLOSED = 3;

/**
 * How {@link WebSocketTransport} opens and drops sockets of one WebSocket implementation. The
 * core's default, {@link whatwgWebSocketAdapter}, knows only the WHATWG `WebSocket` (browsers,
 * Deno, workerd); `@antigravity-ts/node` registers its `ws` adapter on import (no frame-size
 * cap, no compression, `terminate()`, the refused upgrade's status and body, the `upgrade` stage).
 */
export interface WebSocketAdapter {
  /** Creates a socket that starts opening; throws if the runtime refuses the URL or protocols. */
  open(url: string, protocols: readonly string[], headers: Readonly<Record<string, string>>): WebSocketLike;
  /** Drops a socket at once; never throws. */
  terminate(socket: WebSocketLike): void;
  /** How far a socket that is not open yet got (for `connectTimeoutMs`'s message). */
  openingStage(socket: WebSocketLike): ConnectStage;
  /**
   * Watches a socket being opened for a refused upgrade: hands over the refusal (filled in as the
   * body arrives) before the socket's `error` event, and drops the socket once the body is read.
   * Absent where the runtime hides refusals (browsers).
   */
  watchRefusal?(socket: WebSocketLike, onRefusal: (refusal: Refusal) => void): void;
  /**
   * Decides how a channel's `frames()` ends when its socket closes without `close()` having been
   * called: return (or resolve to) the error it throws, or `undefined` to end it normally. Absent:
   * `close.error`. The node package's subprocess transport uses it to turn a drop into
   * `HarnessCrashed` when its child died (`wsWebSocketAdapter`'s `onPeerClose` option).
   */
  onPeerClose?(close: WebSocketPeerClose): SdkError | undefined | Promise<SdkError | undefined>;
}

/** Deno's own WebSocket takes `{ protocols, headers }` as its second argument (browsers cannot send headers). */
type DenoWebSocketConstructor = new (
  url: string,
  options: { protocols: string[]; headers: Record<string, string> },
) => WebSocketLike;

/** Whether `Ctor` is Deno's global WebSocket, the default under Deno (the package's "imports" map). */
function isDenoWebSocket(Ctor: WebSocketConstructor): boolean {
  const scope = globalThis as { Deno?: unknown; WebSocket?: unknown };
  return scope.Deno !== undefined && (Ctor as unknown) === scope.WebSocket;
}

/**
 * The adapter over a WHATWG `WebSocket` constructor: Deno's gets the headers in its options,
 * others get `{ headers }` as a third argument (browsers and workerd ignore it); `terminate` is
 * `close()`, and the opening stage is always `connect` (the standard API cannot tell TCP from the upgrade).
 */
export function whatwgWebSocketAdapter(Ctor: WebSocketConstructor): WebSocketAdapter {
  return {
    open: (url, protocols, headers) =>
      isDenoWebSocket(Ctor)
        ? new (Ctor as unknown as DenoWebSocketConstructor)(url, { protocols: [...protocols], headers: { ...headers } })
        : new Ctor(url, [...protocols], { headers: { ...headers } }),
    terminate: closeSocket,
    openingStage: () => "connect",
  };
}

/** `close()` unless already closed; never throws. */
export function closeSocket(socket: WebSocketLike): void {
  try {
    if (socket.readyState !== CLOSED) socket.close();
  } catch {
    // closing a socket that never opened may throw in some runtimes; it is gone either way
  }
}

let registered: WebSocketAdapter | undefined;

/**
 * Sets the adapter a {@link WebSocketTransport} uses when given neither `adapter` nor
 * `WebSocket`. `@antigravity-ts/node` registers its `ws` adapter on import.
 */
export function registerWebSocketAdapter(adapter: WebSocketAdapter): void {
  registered = adapter;
}

/** The registered adapter, if a runtime package registered one. */
export function registeredWebSocketAdapter(): WebSocketAdapter | undefined {
  return registered;
}
