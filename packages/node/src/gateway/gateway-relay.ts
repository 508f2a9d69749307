import { ErrorCode, SdkError, type Channel } from "@antigravity-ts/sdk";
import { WebSocket, type RawData } from "ws";

/** Opens the harness side of one browser connection. */
export type OpenHarnessChannel = (signal: AbortSignal) => Promise<Channel>;

/** Close codes the gateway uses towards the browser (RFC 6455 §7.4.1). */
export const GatewayCloseCode = {
  /** The harness ended the session normally. */
  Normal: 1000,
  /** The gateway is shutting down. */
  GoingAway: 1001,
  /** The harness could not be reached or crashed. */
  HarnessFailed: 1011,
} as const;

/** How long the browser socket gets to finish its close handshake. */
const BROWSER_CLOSE_TIMEOUT_MS = 1_000;

/**
 * Relays one browser socket to one harness channel, frame for frame, both ways, without a size
 * cap. Browser frames that arrive while the harness connects are buffered in order. Whichever
 * side goes first, the other is closed: the browser with a code and a reason, the harness
 * channel with `close()` (which also stops a per-client subprocess).
 */
export class GatewayRelay {
  readonly #browser: WebSocket;
  readonly #abort = new AbortController();
  readonly #pending: string[] = [];
  #channel: Channel | undefined;
  #finished: Promise<void> | undefined;
  readonly done: Promise<void>;

  constructor(browser: WebSocket, open: OpenHarnessChannel) {
    this.#browser = browser;
    browser.on("message", (data: RawData) => this.#fromBrowser(rawToString(data)));
    browser.on("error", () => {
      // 'close' follows and ends the relay.
    });
    const browserClosed = new Promise<void>((resolve) => browser.once("close", () => resolve()));
    this.done = (async () => {
      await Promise.race([browserClosed.then(() => this.#finish(undefined)), this.#run(open)]);
      await this.#finished;
    })();
  }

  /** Closes both sides (gateway shutdown). */
  shutdown(reason = "gateway shutting down"): Promise<void> {
    return this.#finish({ code: GatewayCloseCode.GoingAway, reason });
  }

  async #run(open: OpenHarnessChannel): Promise<void> {
    let channel: Channel;
    try {
      channel = await open(this.#abort.signal);
    } catch (error) {
      await this.#finish(failureClose("harness unavailable", error));
      return;
    }
    if (this.#finished !== undefined) {
      await channel.close();
      return;
    }
    this.#channel = channel;
    try {
      for (const frame of this.#pending.splice(0)) channel.send(frame);
      for await (const frame of channel.frames()) {
        if (this.#browser.readyState !== WebSocket.OPEN) break;
        this.#browser.send(frame);
      }
      await this.#finish({ code: GatewayCloseCode.Normal, reason: "harness closed the session" });
    } catch (error) {
      await this.#finish(failureClose("harness connection lost", error));
    }
  }

  #fromBrowser(frame: string): void {
    if (this.#finished !== undefined) return;
    const channel = this.#channel;
    if (channel === undefined) {
      this.#pending.push(frame);
      return;
    }
    try {
      channel.send(frame);
    } catch (error) {
      void this.#finish(failureClose("harness connection lost", error));
    }
  }

  /** Idempotent teardown: close the browser (unless it closed first), then the harness channel. */
  #finish(browserClose: { code: number; reason: string } | undefined): Promise<void> {
    this.#finished ??= (async () => {
      this.#abort.abort(new SdkError(ErrorCode.Canceled, "the browser disconnected"));
      this.#pending.length = 0;
      const closing: Promise<void>[] = [];
      if (browserClose !== undefined) closing.push(closeSocket(this.#browser, BROWSER_CLOSE_TIMEOUT_MS, browserClose.code, browserClose.reason));
      if (this.#channel !== undefined) closing.push(this.#channel.close().catch(() => {}));
      await Promise.all(closing);
    })();
    return this.#finished;
  }
}

function failureClose(what: string, error: unknown): { code: number; reason: string } {
  const sdkError = SdkError.from(error, ErrorCode.Unavailable);
  const firstLine = sdkError.message.split("\n", 1)[0] ?? "";
  return { code: GatewayCloseCode.HarnessFailed, reason: truncateReason(`${what} (${sdkError.code}): ${firstLine}`) };
}

/** Close reasons are capped at 123 UTF-8 bytes (RFC 6455 §5.5). */
export function truncateReason(reason: string): string {
  if (Buffer.byteLength(reason, "utf8") <= 123) return reason;
  const chars = Array.from(reason);
  while (Buffer.byteLength(`${chars.join("")}…`, "utf8") > 123) chars.pop();
  return `${chars.join("")}…`;
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

/** Text of a `ws` message (§4: frames are text; a stray binary frame is decoded as UTF-8), whatever buffer shape it arrived in. */
export function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}
