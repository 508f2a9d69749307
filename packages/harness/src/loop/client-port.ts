/** One message a client sent: a text frame (one JSON message, protocol §4), or a binary frame, which the protocol does not allow. */
export type ClientFrame = { readonly text: string } | { readonly binary: true };

/**
 * The port of a {@link HarnessSession} (session.ts): its one connection to a client, whatever
 * carries it. `server.ts` adapts a `ws` WebSocket to it (ws-client-port.ts); the in-memory
 * harness adapts one end of the SDK's channel pair (in-memory-harness.ts). The session never
 * sees the socket.
 */
export interface ClientPort {
  /**
   * The client's frames in order, buffered until read; the iteration ends when the connection
   * closed (either side). One reader at a time: leaving a `for await` early keeps the frames not
   * yet read, so a session adopting the connection reads on where the last reader stopped.
   */
  frames(): AsyncIterable<ClientFrame>;
  /** True while frames can be sent. */
  readonly open: boolean;
  /**
   * Sends one text frame. `written` runs once the frame left the process (or the connection
   * ended): the session counts what is handed over but not yet written (backpressure,
   * output-channel.ts).
   */
  send(frame: string, written: () => void): void;
  /** Closes the connection with a WebSocket close code and a reason of at most 123 bytes. */
  close(code: number, reason: string): void;
  /** Drops the connection at once, without a close handshake; `error` says why (it is logged). */
  terminate(error: Error): void;
  /** Resolves once the connection is closed, by either side. */
  readonly closed: Promise<void>;
}

/** The port of a session whose connection went on in a held session (`HarnessSession.adopt`): closed, sends nothing. */
export const HANDED_OVER: ClientPort = {
  frames: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }) }),
  open: false,
  send: (_frame, written) => written(),
  close: () => {},
  terminate: () => {},
  closed: Promise.resolve(),
};

/** A close reason cut to the 123 bytes a close frame allows (RFC 6455 §5.5). */
export function truncateReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let cut = reason.slice(0, 120);
  while (Buffer.byteLength(`${cut}…`) > 123) cut = cut.slice(0, -1);
  return `${cut}…`;
}
