import type { AnyMessage } from "@agentclientprotocol/sdk";
import type { LogThrottle } from "@antigravity-ts/sdk/internal";
import { WebSocket, type RawData } from "ws";
import { GatewayCloseCode, closeSocket, rawToString, truncateReason } from "../gateway/gateway-relay.js";
import type { AcpProcess } from "./acp-agent.js";
import { JsonRpcCode, type AcpPageRules } from "./acp-bridge-rules.js";

/** What one {@link AcpBridgeRelay} needs. */
export interface AcpBridgeRelayOptions {
  rules: AcpPageRules;
  /** Starts this page's agent process (called once, at the page's admitted `initialize`). */
  spawn: () => Promise<AcpProcess>;
  /** A page that sends no admitted `initialize` within this time is closed (1008). */
  initializeTimeoutMs: number;
  /** `AcpProcess.shutdown`'s grace once the page is gone. */
  shutdownGraceMs: number;
  log: LogThrottle;
  /** The page's address, for log lines. */
  remote: string;
}

/** How long the page's socket gets to finish its close handshake. */
const PAGE_CLOSE_TIMEOUT_MS = 1_000;
/** Most page messages waiting for the agent (its start, its stdin); more close the page with 1008. */
const MAX_QUEUED_MESSAGES = 256;

/**
 * One page's WebSocket ↔ one ACP agent process. Each text frame is one JSON-RPC message; the
 * page's go through {@link AcpPageRules} (refused ones are answered with a JSON-RPC error and the
 * socket stays open), the agent's go to the page as they are. The process starts at the page's
 * admitted `initialize`, never before, and is shut down when the page goes; when the agent ends,
 * the page is closed with 1011 and a reason that carries nothing of the agent's output (its
 * stderr, which may hold secrets, goes to the operator's log only).
 */
export class AcpBridgeRelay {
  readonly done: Promise<void>;
  readonly #socket: WebSocket;
  readonly #options: AcpBridgeRelayOptions;
  readonly #timer: NodeJS.Timeout;
  #starting: Promise<AcpProcess | undefined> | undefined;
  #writer: WritableStreamDefaultWriter<AnyMessage> | undefined;
  #queue: Promise<void> = Promise.resolve();
  #queued = 0;
  #finished: Promise<void> | undefined;

  constructor(socket: WebSocket, options: AcpBridgeRelayOptions) {
    this.#socket = socket;
    this.#options = options;
    socket.on("message", (data: RawData, isBinary: boolean) =>
      this.#fromPage(isBinary ? undefined : rawToString(data)),
    );
    socket.on("error", () => {
      // 'close' follows (a frame over maxPayload is closed 1009 by ws) and ends the relay.
    });
    this.#timer = setTimeout(() => {
      const seconds = Math.round(options.initializeTimeoutMs / 100) / 10;
      void this.#refuse(GatewayCloseCode.PolicyViolation, `no initialize within ${seconds} s`);
    }, options.initializeTimeoutMs);
    this.done = new Promise<void>((resolve) => socket.once("close", () => resolve())).then(() =>
      this.#finish(undefined),
    );
  }

  /** Closes the page (1001) and shuts its agent down (bridge shutdown). */
  shutdown(reason = "bridge shutting down"): Promise<void> {
    return this.#finish({ code: GatewayCloseCode.GoingAway, reason });
  }

  #fromPage(frame: string | undefined): void {
    if (this.#finished !== undefined) return;
    const verdict =
      frame === undefined
        ? {
            kind: "answer" as const,
            reason: "a binary frame",
            message: {
              jsonrpc: "2.0",
              id: null,
              error: { code: JsonRpcCode.ParseError, message: "ACP messages are JSON text frames" },
            } as AnyMessage,
          }
        : this.#options.rules.fromPage(frame);
    if (verdict.kind !== "forward") {
      this.#note("refused", `refused a message of a page from ${this.#options.remote}: ${verdict.reason}`);
      if (verdict.kind === "answer") this.#toPage(verdict.message);
      return;
    }
    if (this.#starting === undefined) {
      clearTimeout(this.#timer);
      this.#starting = this.#start();
    }
    if (this.#queued >= MAX_QUEUED_MESSAGES) {
      void this.#refuse(GatewayCloseCode.PolicyViolation, "too many messages waiting for the agent");
      return;
    }
    this.#queued++;
    const starting = this.#starting;
    this.#queue = this.#queue.then(async () => {
      this.#queued--;
      if ((await starting) === undefined || this.#finished !== undefined) return;
      await this.#writer?.write(verdict.message).catch(() => {
        // The agent's stdin is gone: its output ends and #pump closes the page with why.
      });
    });
  }

  async #start(): Promise<AcpProcess | undefined> {
    let agent: AcpProcess;
    try {
      agent = await this.#options.spawn();
    } catch (error) {
      this.#note("spawn", `could not start the ACP agent for a page: ${(error as Error).message}`);
      void this.#finish({ code: GatewayCloseCode.HarnessFailed, reason: "the ACP agent could not be started" });
      return undefined;
    }
    if (this.#finished !== undefined) {
      await agent.shutdown(this.#options.shutdownGraceMs);
      return undefined;
    }
    const stream = agent.stream;
    this.#writer = stream.writable.getWriter();
    void this.#pump(agent, stream.readable);
    return agent;
  }

  async #pump(agent: AcpProcess, readable: ReadableStream<AnyMessage>): Promise<void> {
    let why = "the ACP agent ended the session";
    try {
      for await (const message of readable) {
        this.#options.rules.fromAgent(message);
        if (this.#socket.readyState !== WebSocket.OPEN) break;
        this.#socket.send(JSON.stringify(message));
      }
    } catch (error) {
      why = "the ACP agent wrote something that is not an ACP message";
      this.#note("agent output", `the ACP agent (pid ${agent.pid}) failed: ${(error as Error).message}`);
    }
    if (this.#finished === undefined)
      this.#note("agent ended", `the ACP agent (pid ${agent.pid}) ended; its stderr:\n${agent.stderr.toString()}`);
    await this.#finish({ code: GatewayCloseCode.HarnessFailed, reason: why });
  }

  #toPage(message: AnyMessage): void {
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }

  #note(kind: string, line: string): void {
    this.#options.log.note(kind, line, `ACP bridge: ${kind}`);
  }

  #refuse(code: number, reason: string): Promise<void> {
    if (this.#finished === undefined)
      this.#note(`closed ${code}`, `closed a page from ${this.#options.remote} with ${code}: ${reason}`);
    return this.#finish({ code, reason });
  }

  /** Idempotent teardown: close the page (unless it closed first), then shut its agent down and wait for it. */
  #finish(pageClose: { code: number; reason: string } | undefined): Promise<void> {
    this.#finished ??= (async () => {
      clearTimeout(this.#timer);
      const closing: Promise<void>[] = [];
      if (pageClose !== undefined)
        closing.push(
          closeSocket(this.#socket, PAGE_CLOSE_TIMEOUT_MS, pageClose.code, truncateReason(pageClose.reason)),
        );
      const starting = this.#starting;
      if (starting !== undefined)
        closing.push(starting.then((agent) => agent?.shutdown(this.#options.shutdownGraceMs)));
      await Promise.all(closing);
    })();
    return this.#finished;
  }
}
