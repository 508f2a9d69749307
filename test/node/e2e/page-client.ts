import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";

// A hostile (or plain) browser page as the gateway sees it: a raw `ws` client speaking the page
// protocol (§4, §5: text frames, `{"config": …}` first) with an Origin and a token, no SDK code.

/** Bound of every wait here; a failing test fails with what was received. */
const WAIT_MS = 20_000;

/** A decoded harness frame, read as plain JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Frame = Record<string, any>;

/** One page connection to the gateway. */
export class PageClient {
  readonly frames: Frame[] = [];
  /** Every text frame as received, to search for leaked secrets. */
  readonly raw: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #closeInfo: { code: number; reason: string } | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const text = data.toString("utf8");
      this.raw.push(text);
      this.frames.push(JSON.parse(text) as Frame);
    });
    this.closed = new Promise((resolve) => {
      socket.once("close", (code, reason) => {
        this.#closeInfo = { code, reason: reason.toString("utf8") };
        resolve(this.#closeInfo);
      });
    });
  }

  /** Opens `url?token=…` with `Origin: origin`; rejects with the HTTP status when refused. */
  static open(url: string, token: string, origin: string): Promise<PageClient> {
    const socket = new WebSocket(`${url}?token=${encodeURIComponent(token)}`, { origin, maxPayload: 0 });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new PageClient(socket)));
      socket.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
      socket.once("error", reject);
    });
  }

  /**
   * Answers the harness's questions the way a hostile page would: every `policyDecisionRequest`
   * with `policyOutcome`, every tool confirmation (§8) with `confirm`.
   */
  autoAnswer(answers: { policyOutcome?: string; confirm?: boolean }): void {
    const confirmed = new Set<string>();
    this.socket.on("message", (data) => {
      const frame = JSON.parse(data.toString("utf8")) as Frame;
      const request = frame["policyDecisionRequest"];
      if (request !== undefined && answers.policyOutcome !== undefined) {
        this.send({ policyDecisionResponse: { requestId: request.requestId, outcome: answers.policyOutcome } });
      }
      const step = frame["stepUpdate"];
      const key = `${step?.trajectoryId}/${step?.stepIndex}`;
      if (step?.toolConfirmationRequest !== undefined && answers.confirm !== undefined && !confirmed.has(key)) {
        confirmed.add(key);
        this.send({
          toolConfirmation: {
            trajectoryId: step.trajectoryId,
            stepIndex: step.stepIndex ?? 0,
            accepted: answers.confirm,
          },
        });
      }
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** Sends `{"config": config}` and returns the `initializeConversationResponse`. */
  async init(config: Frame): Promise<Frame> {
    this.send({ config });
    return (
      await this.next((f) => f["initializeConversationResponse"] !== undefined, "initializeConversationResponse")
    )["initializeConversationResponse"] as Frame;
  }

  /** Sends a prompt and waits for the end of the turn (FULLY_IDLE); returns the turn's frames. */
  async turn(text: string): Promise<Frame[]> {
    const from = this.frames.length;
    this.send({ userInput: { parts: [{ text }] } });
    await this.next((f) => f["trajectoryStateUpdate"]?.state === "STATE_FULLY_IDLE", "the end of the turn", from);
    return this.frames.slice(from);
  }

  /** The first frame at or after index `from` that satisfies `predicate`. */
  async next(predicate: (frame: Frame) => boolean, what: string, from = 0): Promise<Frame> {
    for (const deadline = Date.now() + WAIT_MS; ; await sleep(10)) {
      const found = this.frames.slice(from).find(predicate);
      if (found !== undefined) return found;
      if (this.#closeInfo !== undefined)
        throw new Error(`closed (${this.#closeInfo.code} ${this.#closeInfo.reason}) while waiting for ${what}`);
      if (Date.now() > deadline)
        throw new Error(`no ${what} within ${WAIT_MS} ms; got ${JSON.stringify(this.frames).slice(0, 2000)}`);
    }
  }

  /** Resolves with the close, failing after {@link WAIT_MS}. */
  async closure(): Promise<{ code: number; reason: string }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(new Error(`the gateway did not close the page within ${WAIT_MS} ms`)),
          WAIT_MS,
        )),
    );
    return Promise.race([this.closed, timeout]).finally(() => clearTimeout(timer));
  }

  close(): void {
    this.socket.terminate();
  }
}
