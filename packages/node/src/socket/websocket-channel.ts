import { AsyncQueue, ErrorCode, SdkError, type CallOptions, type Channel } from "@antigravity-ts/sdk";
import { WebSocket, type RawData } from "ws";

/** How long `close()` waits for the peer's close frame before dropping the socket. */
export const SOCKET_CLOSE_TIMEOUT_MS = 500;

/** Hooks that let an owner (subprocess transport, gateway) shape a {@link WebSocketChannel}. */
export interface WebSocketChannelOptions {
  /**
   * Decides what an unexpected close means: return an error to make `frames()` throw it, or
   * `undefined` to end the stream normally. Default: close code 1000 ends normally, anything
   * else is `ConnectionClosed`.
   */
  onUnexpectedClose?: (code: number, reason: string) => Promise<SdkError | undefined> | SdkError | undefined;
  /** Runs after the socket is closed by `close()`, e.g. to stop a child process. */
  afterClose?: (options: CallOptions) => Promise<void>;
}

/**
 * A {@link Channel} over a `ws` client socket: text frames in and out (protocol §4), incoming
 * frames buffered until read, a bounded orderly close (close frame, 0.5 s, then drop).
 */
export class WebSocketChannel implements Channel, AsyncDisposable {
  readonly #socket: WebSocket;
  readonly #queue = new AsyncQueue<string>();
  readonly #options: WebSocketChannelOptions;
  #closing: Promise<void> | undefined;
  #consumed = false;

  constructor(socket: WebSocket, options: WebSocketChannelOptions = {}) {
    this.#socket = socket;
    this.#options = options;
    // §4: frames are text; a stray binary frame is decoded as UTF-8 rather than dropped.
    socket.on("message", (data: RawData) => {
      this.#queue.push(rawToString(data));
    });
    socket.on("error", () => {
      // 'close' follows every 'error'; the close handler reports it.
    });
    socket.once("close", (code: number, reason: Buffer) => void this.#onSocketClose(code, reason.toString("utf8")));
  }

  /** True while frames can be sent. */
  get isOpen(): boolean {
    return this.#closing === undefined && this.#socket.readyState === WebSocket.OPEN;
  }

  send(frame: string): void {
    if (!this.isOpen) throw new SdkError(ErrorCode.ConnectionClosed, "cannot send: the harness channel is closed");
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

  /** `await using` support: {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #close(options: CallOptions): Promise<void> {
    await closeSocket(this.#socket, SOCKET_CLOSE_TIMEOUT_MS);
    this.#queue.end();
    await this.#options.afterClose?.(options);
  }

  async #onSocketClose(code: number, reason: string): Promise<void> {
    if (this.#closing !== undefined) {
      this.#queue.end();
      return;
    }
    const decide = this.#options.onUnexpectedClose ?? defaultUnexpectedClose;
    let error: SdkError | undefined;
    try {
      error = await decide(code, reason);
    } catch (cause) {
      error = SdkError.from(cause, ErrorCode.ConnectionClosed);
    }
    if (error === undefined) this.#queue.end();
    else this.#queue.fail(error);
  }
}

function defaultUnexpectedClose(code: number, reason: string): SdkError | undefined {
  if (code === 1000) return undefined;
  return new SdkError(ErrorCode.ConnectionClosed, `the harness closed the WebSocket (code ${code}${reason ? `: ${reason}` : ""})`, { details: { closeCode: code } });
}

/** Sends a close frame and waits for the socket to close, dropping it after `timeoutMs`. */
export function closeSocket(socket: WebSocket, timeoutMs: number, code = 1000, reason = ""): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => socket.terminate(), timeoutMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
    if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
    else if (socket.readyState === WebSocket.OPEN) socket.close(code, reason);
  });
}

/** Text of a `ws` message, whatever buffer shape it arrived in. */
export function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}
