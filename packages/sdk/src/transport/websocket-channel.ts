import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import { linkSignal, raceSignal } from "../util/abort.js";
import { AsyncQueue } from "../util/async-queue.js";
import type { Channel } from "./transport.js";
import { peerCloseError, redactUrl, stageDeadlineError } from "./websocket-errors.js";
import type { WebSocketAdapter } from "./websocket-adapter.js";
import type { WebSocketEventLike, WebSocketLike } from "./websocket-like.js";

const OPEN = 1;
const CLOSED = 3;

/** What {@link WebSocketTransport} hands to each channel. */
export interface ChannelOptions {
  /** The full URL (redacted before it appears in any message). */
  readonly url: string;
  readonly closeTimeoutMs: number;
  /** See `WebSocketTransportOptions.initTimeoutMs`; `0`/`Infinity`: none. */
  readonly initTimeoutMs: number;
  /** The transport's adapter: drops the socket at once, and may decide how a peer's close ends `frames()`. */
  readonly adapter: WebSocketAdapter;
}

/**
 * A {@link Channel} over a {@link WebSocketLike} (protocol §4). Frames are queued from
 * construction on; the first frame sent arms the `init` deadline, which the peer's first frame
 * disarms (§5: the harness answers the configuration before anything else is expected).
 */
export class WebSocketChannel implements Channel {
  readonly #socket: WebSocketLike;
  readonly #url: string;
  readonly #options: ChannelOptions;
  readonly #queue = new AsyncQueue<string>();
  #closing: Promise<void> | undefined;
  #consumed = false;
  /** The peer sent a frame: the init deadline no longer applies. */
  #answered = false;
  #initTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set when the init deadline passed: the stream already failed with it. */
  #timedOut = false;
  readonly #closed: Promise<void>;

  /** The URL (without its query) this channel is open to. */
  get peer(): string {
    return this.#url;
  }

  constructor(socket: WebSocketLike, options: ChannelOptions) {
    this.#socket = socket;
    this.#url = redactUrl(options.url);
    this.#options = options;
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (event) => {
      if (!this.#answered) this.#answer();
      this.#queue.push(frameText(event.data));
    });
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
    if (this.#closing !== undefined || this.#timedOut || this.#socket.readyState !== OPEN) {
      throw new SdkError(ErrorCode.ConnectionClosed, `cannot send: the WebSocket to ${this.#url} is closed`);
    }
    this.#socket.send(frame);
    if (!this.#answered && this.#initTimer === undefined) this.#armInit();
  }

  frames(): AsyncIterable<string> {
    if (this.#consumed)
      throw new SdkError(ErrorCode.FailedPrecondition, "frames() has a single consumer and was already called");
    this.#consumed = true;
    return this.#queue;
  }

  close(options: CallOptions = {}): Promise<void> {
    this.#closing ??= this.#close(options);
    return this.#closing;
  }

  #armInit(): void {
    const ms = this.#options.initTimeoutMs;
    if (!(ms > 0) || !Number.isFinite(ms)) return;
    this.#initTimer = setTimeout(() => {
      if (this.#answered || this.#closing !== undefined) return;
      this.#timedOut = true;
      this.#queue.fail(stageDeadlineError(this.#options.url, "init", ms, "initTimeoutMs"));
      this.#options.adapter.terminate(this.#socket);
    }, ms);
  }

  #answer(): void {
    this.#answered = true;
    clearTimeout(this.#initTimer);
  }

  async #close(options: CallOptions): Promise<void> {
    clearTimeout(this.#initTimer);
    this.#queue.end();
    if (this.#socket.readyState === CLOSED) return;
    try {
      this.#socket.close(1000);
    } catch {
      this.#options.adapter.terminate(this.#socket);
      return;
    }
    const link = linkSignal({ timeoutMs: this.#options.closeTimeoutMs, ...options });
    try {
      await raceSignal(this.#closed, link.signal);
    } catch {
      this.#options.adapter.terminate(this.#socket); // the peer did not answer the close frame in time
    } finally {
      link.dispose();
    }
  }

  #onClose(event: WebSocketEventLike): void {
    clearTimeout(this.#initTimer);
    if (this.#closing !== undefined || this.#timedOut) {
      this.#queue.end();
      return;
    }
    const code = event.code ?? 1006;
    const reason = event.reason ?? "";
    const error = peerCloseError(this.#url, code, reason);
    const { adapter } = this.#options;
    if (adapter.onPeerClose === undefined) return this.#end(error);
    // A close() while the owner decides ends the stream normally: end() wins over a later fail().
    void (async () => adapter.onPeerClose?.({ code, reason, error }))().then(
      (decided) => this.#end(decided),
      (cause: unknown) => this.#end(SdkError.from(cause, ErrorCode.ConnectionClosed)),
    );
  }

  #end(error: SdkError | undefined): void {
    if (error === undefined) this.#queue.end();
    else this.#queue.fail(error);
  }
}

const decoder = new TextDecoder();

/** Text of a message event's data: strings as they are, binary frames decoded as UTF-8. */
function frameText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return decoder.decode(data);
  if (ArrayBuffer.isView(data)) return decoder.decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  if (Array.isArray(data)) return data.map(frameText).join("");
  return String(data);
}
