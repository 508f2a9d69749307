import { decodeInitFrameFully, errorText, LifecycleHook, tryDecodeInitFrame } from "@antigravity-ts/sdk/internal";
import type { InitializeConversationEvent } from "@antigravity-ts/sdk/wire";
import { type FaultOwner, runOnBehalfOf } from "../crash-guard.js";
import type { Logger } from "../log.js";
import { type ClientFrame, type ClientPort, HANDED_OVER, truncateReason } from "../loop/client-port.js";
import { OutputChannel } from "../loop/output-channel.js";
import type { SettleResult } from "../loop/pending-replies.js";
import type { SessionState } from "../loop/state.js";
import { toUsageMetadata } from "../model/usage.js";
import { systemErrorStep } from "../step-ledger.js";
import { describeKeys, InputFrameOrder, isInputEvent, resumedCascadeId } from "./input-frames.js";
import { CloseCode, initializeSession, type SessionDependencies, SessionInitError } from "./session-init.js";
import type { ParkedSession, SessionClaim } from "./session-registry.js";
import { TurnQueue } from "./turn-queue.js";

/**
 * Default of {@link SessionDependencies.confirmationHoldMs}: how long a session whose client left
 * while a tool call awaited confirmation stays resumable with that turn (`--confirmation-hold-ms`).
 */
export const DEFAULT_CONFIRMATION_HOLD_MS = 10 * 60 * 1000;

/** Longest a closed session waits for its aborted turn to stop before it is saved and its id freed. */
const TURN_STOP_GRACE_MS = 3000;

/**
 * One client connection = one session, over a {@link ClientPort} (a WebSocket in server.ts, a
 * channel in memory in in-memory-harness.ts). The first frame initialises it (§5); later frames are
 * `InputEvent`s (§4). Turns run one at a time; replies to the harness's requests (tool
 * responses, hook and policy answers, confirmations, questions) are routed to whoever waits for
 * them, while a turn runs. Bad input never ends the process or other sessions: it gets an ERROR
 * step (SOURCE_SYSTEM) or, before initialisation, a close with a reason. Everything the session
 * does runs on its behalf ({@link runOnBehalfOf}): a bug that escapes closes this session only.
 */
export class HarnessSession implements FaultOwner, ParkedSession {
  #port: ClientPort;
  readonly #deps: SessionDependencies;
  readonly #channel: OutputChannel;
  readonly #ended = new AbortController();
  #phase: "awaiting-init" | "initializing" | "ready" | "parked" | "closed" = "awaiting-init";
  #parkTimer: NodeJS.Timeout | undefined;
  #early: string[] = [];
  /** The first frame, decoded by {@link #read} before {@link #onMessage} sees it (undefined: not an InitializeConversationEvent). */
  #initEvent: InitializeConversationEvent | undefined;
  readonly #inputFrames = new InputFrameOrder(
    (frame, decoded) => this.#dispatch(frame, decoded),
    (action) => this.#guard(action),
  );
  #state: SessionState | undefined;
  #claim: SessionClaim | undefined;
  #log: Logger;
  /** The session's turns, from its initialisation on. */
  #turns: TurnQueue | undefined;
  #settled: Promise<void>;
  #resolveSettled!: () => void;

  constructor(port: ClientPort, deps: SessionDependencies) {
    this.#port = port;
    this.#deps = deps;
    this.#log = deps.log;
    this.#channel = new OutputChannel(port);
    this.#settled = new Promise((resolve) => (this.#resolveSettled = resolve));
    void this.#read(port);
  }

  /**
   * Handles the frames of `port` one by one until the connection closes, then closes the
   * session (the client disconnected). Stops at once when `port` was handed to a held session
   * ({@link adopt}), which reads on from the next frame.
   */
  async #read(port: ClientPort): Promise<void> {
    try {
      for await (const frame of port.frames()) {
        if (this.#phase === "awaiting-init" && "text" in frame) {
          // Decoded here, so that no later frame overtakes it while the full decoder loads; undefined
          // when it is no InitializeConversationEvent (initializeSession reports what is wrong with it).
          this.#initEvent =
            tryDecodeInitFrame(frame.text) ?? (await decodeInitFrameFully(frame.text).catch(() => undefined));
        }
        this.#guard(() => this.#onMessage(frame));
        if (this.#port !== port) return;
      }
    } catch (error) {
      this.#log.warn(`connection error: ${errorText(error)}`);
    }
    if (this.#port === port) this.#guard(() => this.#onClose("the client disconnected", true));
  }

  /**
   * {@link ParkedSession}: a client resumed this session while it was held for a confirmation.
   * The turn goes on over `port`: the init response replays the history (the waiting step
   * still WAITING_FOR_USER), then every waiting step is sent again (§8: clients debounce per
   * (trajectoryId, stepIndex)), so the client's `toolConfirmation` continues the same turn.
   */
  adopt(port: ClientPort): void {
    const state = this.#state as SessionState;
    clearTimeout(this.#parkTimer);
    this.#deps.registry.unpark(state.cascadeId, this);
    this.#port = port;
    this.#channel.attach(port);
    this.#phase = "ready";
    void this.#read(port);
    this.#log.info(`a client resumed the session held for its confirmation`);
    this.#sendInitResponse(state, true);
    for (const step of state.waitingConfirmations.values()) step.update({});
  }

  /** Resolves once the session is closed, its turn stopped and its state persisted. */
  get settled(): Promise<void> {
    return this.#settled;
  }

  /** Names the session in logs. */
  get description(): string {
    return `session ${this.#state?.cascadeId ?? "(not initialised)"}`;
  }

  /** Closes the connection (server shutdown); the session is persisted. */
  close(code: number, reason: string): void {
    this.#guard(() => {
      this.#port.close(code, truncateReason(reason));
      this.#onClose("the harness shut down");
    });
  }

  /** A bug escaped code running for this session: close it (1011); the process and other sessions go on. */
  fault(_error: unknown): void {
    this.#fail(CloseCode.internal, "internal harness error");
  }

  #onMessage(frame: ClientFrame): void {
    if (this.#phase === "closed") return;
    if (!("text" in frame)) {
      this.#fail(
        CloseCode.unsupportedData,
        "binary frames are not supported: send each message as one JSON text frame (protocol §4)",
      );
      return;
    }
    const text = frame.text;
    if (this.#phase === "awaiting-init") {
      const parked = this.#deps.registry.parked(resumedCascadeId(this.#initEvent) ?? "");
      if (parked !== undefined) {
        // This connection continues a held session: the port is its, this object is done.
        const port = this.#port;
        this.#phase = "closed";
        this.#port = HANDED_OVER;
        parked.adopt(port);
        this.#resolveSettled();
        return;
      }
      this.#phase = "initializing";
      this.#initialize(text).catch((error: unknown) => {
        this.#log.error(
          `initialisation failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        this.#fail(CloseCode.internal, "internal harness error during initialisation");
        this.#release();
      });
    } else if (this.#phase === "initializing") {
      this.#early.push(text);
    } else {
      this.#handle(text);
    }
  }

  async #initialize(frame: string): Promise<void> {
    let initialized;
    try {
      initialized = await initializeSession(frame, this.#deps);
    } catch (error) {
      const init =
        error instanceof SessionInitError ? error : new SessionInitError(CloseCode.internal, (error as Error).message);
      this.#fail(init.code, init.message);
      this.#release();
      return;
    }
    const state = initialized.state;
    this.#state = state;
    this.#claim = initialized.claim;
    this.#log = state.log;
    if (this.#phase === "closed") {
      this.#release();
      return;
    }
    this.#phase = "ready";
    this.#channel.era = initialized.era;
    this.#sendInitResponse(state, initialized.resumed);
    // §5.3: the session-start hook is dispatched by the harness after the init response.
    const sessionStart = state.hooks.enabled(LifecycleHook.ON_SESSION_START)
      ? state.hooks.call(LifecycleHook.ON_SESSION_START, undefined, this.#channel.send, this.#ended.signal).then(
          () => {},
          () => {},
        )
      : Promise.resolve();
    this.#turns = new TurnQueue({
      state,
      channel: this.#channel,
      ended: this.#ended.signal,
      sessionStart,
      canStart: () => this.#phase === "ready",
      persist: () => this.#persist(),
      badInput: (message) => this.#badInput(message),
      fail: (code, reason) => this.#fail(code, reason),
    });
    const turns = this.#turns;
    // A fired timer (schedule) is an automated trigger; the session's end clears the timers and kills the commands.
    state.tasks.attach((text) => this.#guard(() => turns.trigger(text)), this.#ended.signal);
    for (const text of this.#early.splice(0)) this.#handle(text);
  }

  /** §5: `initializeConversationResponse` with the replayed history and the usage so far. */
  #sendInitResponse(state: SessionState, resumed: boolean): void {
    const usage = toUsageMetadata(state.usage);
    this.#channel.send({
      case: "initializeConversationResponse",
      value: {
        cascadeId: state.cascadeId,
        history: state.ledger.history(),
        cumulativeUsage: usage,
        trajectoryUsage: resumed ? [{ trajectoryId: state.cascadeId, usage }] : [],
        sandboxStatus: state.settings.sandboxStatus,
      },
    });
  }

  #handle(frame: string): void {
    if (this.#state !== undefined) this.#inputFrames.handle(frame);
  }

  /** Acts on one decoded frame (an InputEvent), or reports why it could not be decoded (the error). */
  #dispatch(frame: string, decoded: unknown): void {
    const state = this.#state;
    const turns = this.#turns;
    if (state === undefined || turns === undefined || this.#phase === "closed") return;
    if (!isInputEvent(decoded)) {
      this.#badInput(`could not decode the frame as an InputEvent: ${errorText(decoded)}`);
      return;
    }
    const input = decoded.event;
    const key = (trajectoryId: string | undefined, stepIndex: number | undefined): string =>
      state.stepKey(trajectoryId ?? "", stepIndex ?? 0);
    switch (input.case) {
      case "userInput":
        return turns.userInput(input.value);
      case "toolResponse":
        return this.#reportSettle(
          state.toolResponses.settle(input.value.id ?? "", input.value),
          "toolResponse",
          `toolResponse for unknown tool call id ${JSON.stringify(input.value.id ?? "")}`,
        );
      case "toolConfirmation":
        return this.#reportSettle(
          state.confirmations.settle(key(input.value.trajectoryId, input.value.stepIndex), input.value),
          "toolConfirmation",
          `toolConfirmation for step ${key(input.value.trajectoryId, input.value.stepIndex)}, which is not waiting for a confirmation`,
        );
      case "questionResponse":
        return this.#reportSettle(
          state.questions.settle(key(input.value.trajectoryId, input.value.stepIndex), input.value),
          "questionResponse",
          `questionResponse for step ${key(input.value.trajectoryId, input.value.stepIndex)}, which asked no questions`,
        );
      case "callHookResponse":
        return this.#reportSettle(
          state.hooks.replies.settle(input.value.requestId ?? "", input.value),
          "callHookResponse",
          `callHookResponse for unknown requestId ${JSON.stringify(input.value.requestId ?? "")}`,
        );
      case "policyDecisionResponse":
        return this.#reportSettle(
          state.policyReplies.settle(input.value.requestId ?? "", input.value),
          "policyDecisionResponse",
          `policyDecisionResponse for unknown requestId ${JSON.stringify(input.value.requestId ?? "")}`,
        );
      case "haltRequest":
        if (input.value) turns.halt();
        return;
      case "automatedTrigger":
        return turns.trigger(input.value);
      case "sessionEndRequest":
        if (input.value) void this.#endSession();
        return;
      default:
        return this.#badInput(
          `the frame carries no known InputEvent (keys: ${describeKeys(frame)}); expected one of userInput, toolResponse, toolConfirmation, questionResponse, haltRequest, automatedTrigger, callHookResponse, sessionEndRequest, policyDecisionResponse`,
        );
    }
  }

  /** §13: run the ON_SESSION_END hook (if enabled), then answer `sessionEndResponse: true`. */
  async #endSession(): Promise<void> {
    const state = this.#state as SessionState;
    try {
      await state.hooks.call(LifecycleHook.ON_SESSION_END, undefined, this.#channel.send, this.#ended.signal);
    } catch {
      return; // disconnected while waiting
    }
    this.#channel.send({ case: "sessionEndResponse", value: true });
  }

  /** An answer to nothing ever asked is bad input; a late or repeated answer is only logged. */
  #reportSettle(result: SettleResult, kind: string, unknownMessage: string): void {
    if (result === "unknown") this.#badInput(unknownMessage);
    else if (result === "late") this.#log.info(`late ${kind} ignored: its request was abandoned (haltRequest)`);
    else if (result === "duplicate") this.#log.info(`repeated ${kind} ignored: its request was already answered`);
  }

  /** Reports bad client input as a SOURCE_SYSTEM ERROR step; the session goes on. */
  #badInput(message: string): void {
    const state = this.#state;
    this.#log.warn(`bad input: ${message}`);
    if (state === undefined) return;
    state.ledger.open(systemErrorStep(message), (update) => this.#channel.send({ case: "stepUpdate", value: update }));
  }

  #fail(code: number, reason: string): void {
    this.#log.warn(`closing the connection (${code}): ${reason}`);
    if (this.#port.open) this.#port.close(code, truncateReason(reason));
    this.#onClose(`the connection was closed (${code}): ${reason}`);
  }

  /**
   * Ends the session: stops its turn (unfinished steps are recorded as failed with `reason`), then
   * saves it and frees its id. When the client left (`mayHold`) while a tool call waits for its
   * confirmation, the session is held instead (turn, claim and waits intact) for
   * `confirmationHoldMs`: a client resuming this cascade id within that time adopts it
   * ({@link adopt}); past it the turn ends, the call recorded as not confirmed.
   */
  #onClose(reason: string, mayHold = false): void {
    if (this.#phase === "closed") return;
    const state = this.#state;
    const holdMs = this.#deps.confirmationHoldMs ?? DEFAULT_CONFIRMATION_HOLD_MS;
    if (
      mayHold &&
      this.#phase === "ready" &&
      state !== undefined &&
      state.waitingConfirmations.size > 0 &&
      holdMs > 0
    ) {
      this.#phase = "parked";
      this.#deps.registry.park(state.cascadeId, this);
      this.#log.info(`the client left while a tool call waits for its confirmation; holding the turn for ${holdMs} ms`);
      this.#parkTimer = setTimeout(
        () =>
          this.#guard(() =>
            this.#onClose(`not confirmed: the client left and did not resume the session within ${holdMs} ms`),
          ),
        holdMs,
      );
      this.#parkTimer.unref();
      return;
    }
    if (this.#phase === "parked" && state !== undefined) {
      clearTimeout(this.#parkTimer);
      this.#deps.registry.unpark(state.cascadeId, this);
      if (!reason.startsWith("not confirmed")) reason = `not confirmed (${reason})`;
      this.#log.info(`the turn held for a confirmation ends: ${reason}`);
    }
    const wasInitializing = this.#phase === "initializing";
    this.#phase = "closed";
    this.#ended.abort(new Error(reason));
    this.#claim?.markClosing();
    this.#turns?.current?.scope.abandon(reason);
    if (wasInitializing) return; // #initialize releases the id when it finishes
    void (async () => {
      const done = this.#turns?.current?.done;
      // Every wait of a turn ends with its signal; the bound only matters after a bug broke the turn.
      if (done !== undefined && (await settlesWithin(done, TURN_STOP_GRACE_MS)) === false) {
        this.#log.error(
          `the turn did not stop within ${TURN_STOP_GRACE_MS} ms of the close; saving the session anyway`,
        );
      }
      await this.#persist();
      this.#release();
    })();
  }

  #release(): void {
    this.#claim?.release();
    this.#resolveSettled();
  }

  async #persist(): Promise<void> {
    const state = this.#state;
    if (state === undefined) return;
    try {
      await this.#deps.store.save(state.toStored());
    } catch (error) {
      this.#log.error(`could not save session ${state.cascadeId}: ${(error as Error).message}`);
    }
  }

  /** Runs a connection callback on behalf of this session; a synchronous throw closes the session. */
  #guard(action: () => void): void {
    runOnBehalfOf(this, () => {
      try {
        action();
      } catch (error) {
        this.#log.error(`session failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        this.fault(error);
      }
    });
  }
}

/** Whether `promise` settles within `ms`. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  return Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}
