import type { SdkError } from "../errors.js";

// The shapes of a WebSocket the transport's files share. A leaf: it imports nothing of transport/,
// so the transport, its channel, its adapters and its errors all depend on it and not on each other.

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
  removeEventListener(
    type: "open" | "message" | "error" | "close",
    listener: (event: WebSocketEventLike) => void,
  ): void;
}

/** A `WebSocket` constructor. The third argument carries `{ headers }` where the implementation takes it (`ws`); browsers ignore it. */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  options?: Record<string, unknown>,
) => WebSocketLike;

/** How the peer ended a channel's socket, for `WebSocketAdapter.onPeerClose`. */
export interface WebSocketPeerClose {
  /** The close code; 1006 when the connection dropped without a close frame. */
  readonly code: number;
  readonly reason: string;
  /** What `frames()` throws by default: `ConnectionClosed`, or `undefined` for code 1000 (a normal end). */
  readonly error: SdkError | undefined;
}
