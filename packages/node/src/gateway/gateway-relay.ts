import { ErrorCode, SdkError, type Channel } from "@antigravity-ts/sdk";
import { WebSocket, type RawData } from "ws";

/** Opens the harness side of one browser connection. */
export type OpenHarnessChannel = (signal: AbortSignal) => Promise<Channel>;

/** What the relay asks about a page's session: is its first frame admitted, and what did the harness answer. */
export interface RelayGate {
  /** The frame to send to the harness in place of the page's first frame, or a refusal. */
  admit(frame: string): Promise<{ ok: true; frame: string } | { ok: false; code: number; reason: string }>;
  /** Sees the harness's first frame (§5: `initializeConversationResponse`). */
  harnessFirstFrame(frame: string): void;
}

/** Options of {@link GatewayRelay}. */
export interface GatewayRelayOptions {
  open: OpenHarnessChannel;
  gate: RelayGate;
  /** A page that sends no first frame within this time is closed (1008) and its slot freed. */
  firstFrameTimeoutMs: number;
  /** Called when the relay closes the page itself (refusal or timeout), for the log. */
  onRefused?: (code: number, reason: string) => void;
}

/** Close codes the gateway uses towards the browser (RFC 6455 §7.4.1). */
export const GatewayCloseCode = {
  /** The harness ended the session normally. */
  Normal: 1000,
  /** The gateway is shutting down. */
  GoingAway: 1001,
  /** The page's first frame is not an InitializeConversationEvent (§5). */
  InvalidPayload: 1007,
  /** The page asked for something the gateway's operator does not allow, or sent no first frame in time. */
  PolicyViolation: 1008,
  /** The page's first frame is larger than the gateway accepts. */
  MessageTooBig: 1009,
  /** The harness could not be reached or crashed. */
  HarnessFailed: 1011,
} as const;

/** How long the browser socket gets to finish its close handshake. */
const BROWSER_CLOSE_TIMEOUT_MS = 1_000;

/** Most page frames buffered while the session is being admitted and the harness connected. */
const MAX_PENDING_FRAMES = 256;

/**
 * Relays one browser socket to one harness channel. Nothing reaches the harness before the page's
 * first frame has passed the gate: the harness is only contacted then, and gets the gate's
 * rewritten frame. A page that sends nothing is closed after `firstFrameTimeoutMs`. After that,
 * frames go 1:1 both ways without a size cap, in order (frames sent meanwhile are buffered).
 * Whichever side goes first, the other is closed: the browser with a code and a reason, the harness
 * channel with `close()` (which also stops a per-client subprocess).
 */
export class GatewayRelay {
  readonly #browser: WebSocket;
  readonly #options: GatewayRelayOptions;
  readonly #abort = new AbortController();
  readonly #pending: string[] = [];
  readonly #first: Promise<string | undefined>;
  #deliverFirst: ((frame: string | undefined) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #channel: Channel | undefined;
  #finished: Promise<void> | undefined;
  readonly done: Promise<void>;

  constructor(browser: WebSocket, options: GatewayRelayOptions) {
    this.#browser = browser;
    this.#options = options;
    this.#first = new Promise((resolve) => (this.#deliverFirst = resolve));
    browser.on("message", (data: RawData) => this.#fromBrowser(rawToString(data)));
    browser.on("error", () => {
      // 'close' follows and ends the relay.
    });
    this.#timer = setTimeout(() => {
      const seconds = Math.round(options.firstFrameTimeoutMs / 100) / 10;
      void this.#refuse(GatewayCloseCode.PolicyViolation, `no InitializeConversationEvent within ${seconds} s`);
    }, options.firstFrameTimeoutMs);
    const browserClosed = new Promise<void>((resolve) => browser.once("close", () => resolve()));
    this.done = (async () => {
      await Promise.race([browserClosed.then(() => this.#finish(undefined)), this.#run()]);
      await this.#finished;
    })();
  }

  /** Closes both sides (gateway shutdown). */
  shutdown(reason = "gateway shutting down"): Promise<void> {
    return this.#finish({ code: GatewayCloseCode.GoingAway, reason });
  }

  async #run(): Promise<void> {
    const first = await this.#first;
    if (first === undefined || this.#finished !== undefined) return;
    let admission;
    try {
      admission = await this.#options.gate.admit(first);
    } catch (error) {
      await this.#finish(failureClose("gateway could not check the session", error));
      return;
    }
    if (this.#finished !== undefined) return;
    if (!admission.ok) {
      await this.#refuse(admission.code, admission.reason);
      return;
    }
    let channel: Channel;
    try {
      channel = await this.#options.open(this.#abort.signal);
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
      channel.send(admission.frame);
      for (const frame of this.#pending.splice(0)) channel.send(frame);
      let firstReply = true;
      for await (const frame of channel.frames()) {
        if (firstReply) {
          firstReply = false;
          this.#options.gate.harnessFirstFrame(frame);
        }
        if (this.#browser.readyState !== WebSocket.OPEN) break;
        this.#browser.send(frame);
      }
      await this.#finish({ code: GatewayCloseCode.Normal, reason: "harness closed the session" });
    } catch (error) {
      const refusal = harnessRefusal(error);
      if (refusal === undefined) await this.#finish(failureClose("harness connection lost", error));
      else await this.#refuse(refusal.code, refusal.reason);
    }
  }

  #fromBrowser(frame: string): void {
    if (this.#finished !== undefined) return;
    if (this.#deliverFirst !== undefined) {
      clearTimeout(this.#timer);
      this.#deliverFirst(frame);
      this.#deliverFirst = undefined;
      return;
    }
    const channel = this.#channel;
    if (channel === undefined) {
      if (this.#pending.length >= MAX_PENDING_FRAMES)
        void this.#refuse(GatewayCloseCode.PolicyViolation, "too many frames before the session started");
      else this.#pending.push(frame);
      return;
    }
    try {
      channel.send(frame);
    } catch {
      // The harness side is closing: its frames() ends with why, and #run closes the page with that.
    }
  }

  #refuse(code: number, reason: string): Promise<void> {
    if (this.#finished === undefined) this.#options.onRefused?.(code, reason);
    return this.#finish({ code, reason: truncateReason(reason) });
  }

  /** Idempotent teardown: close the browser (unless it closed first), then the harness channel. */
  #finish(browserClose: { code: number; reason: string } | undefined): Promise<void> {
    this.#finished ??= (async () => {
      clearTimeout(this.#timer);
      this.#deliverFirst?.(undefined);
      this.#abort.abort(new SdkError(ErrorCode.Canceled, "the browser disconnected"));
      this.#pending.length = 0;
      const closing: Promise<void>[] = [];
      if (browserClose !== undefined)
        closing.push(closeSocket(this.#browser, BROWSER_CLOSE_TIMEOUT_MS, browserClose.code, browserClose.reason));
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

/**
 * The harness's own refusal of what the page sent (§5: it closes with 1007 or 1008 and a reason,
 * e.g. for a cascadeId it does not accept): the page gets that code and reason, not a 1011.
 */
function harnessRefusal(error: unknown): { code: number; reason: string } | undefined {
  if (!(error instanceof SdkError)) return undefined;
  const code = error.details["closeCode"];
  const reason = error.details["closeReason"];
  if (
    (code !== GatewayCloseCode.InvalidPayload && code !== GatewayCloseCode.PolicyViolation) ||
    typeof reason !== "string"
  )
    return undefined;
  return { code, reason };
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
