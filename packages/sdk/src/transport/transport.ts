import type { ReconnectPolicy } from "./reconnect.js";
import type { CallOptions } from "../call-options.js";

/**
 * A bidirectional stream of protocol frames (protocol §4: one JSON text frame = one message).
 * Frames that arrive before anyone reads are buffered, never dropped.
 */
export interface Channel {
  /** Sends one text frame. Throws `SdkError` `ConnectionClosed` once closed. */
  send(frame: string): void;
  /**
   * Incoming frames in order. Single consumer. Ends when the peer closes normally; throws
   * `SdkError` (`ConnectionClosed` / `HarnessCrashed`) when the channel drops.
   */
  frames(): AsyncIterable<string>;
  /** Closes the channel and releases everything it owns (socket, child process). Idempotent. */
  close(options?: CallOptions): Promise<void>;
  /** Where the channel leads (a WebSocket URL without its query), for errors that name it; optional. */
  readonly peer?: string | undefined;
}

/** Opens channels to a harness. Two methods, like connect-es transports: nothing else to learn. */
export interface Transport {
  /** Connects and returns an open channel; rejects with `SdkError` (`Unavailable`, `PermissionDenied` ...). */
  connect(options?: CallOptions): Promise<Channel>;
  /**
   * Set only by a transport whose harness outlives the channel (a listening harness): a
   * connection over it re-opens the transport after an unexpected close and resumes the
   * session by id (connection/reconnect.ts). Absent: an unexpected close ends the connection.
   */
  readonly reconnect?: ReconnectPolicy | undefined;
}
