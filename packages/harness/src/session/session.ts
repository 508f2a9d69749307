import type { InitializeConversationEvent, InputEvent, UserInput } from "@antigravity-ts/sdk/wire";
import {
  LifecycleHook,
  TrajectoryStateUpdate_State,
  HarnessConfig_SessionContinuationMode,
  createMessage,
  decodeInitFrame,
  decodeInputEventFrame,
  errorText,
} from "@antigravity-ts/sdk/internal";
import { runTurn, type TurnInput } from "../loop/agent-loop.js";
import { HANDED_OVER, truncateReason, type ClientFrame, type ClientPort } from "../loop/client-port.js";
import { runOnBehalfOf, type FaultOwner } from "../crash-guard.js";
import type { Logger } from "../log.js";
import { OutputChannel } from "../loop/output-channel.js";
import type { SettleResult } from "../loop/pending-replies.js";
import { CloseCode, SessionInitError, initializeSession, type SessionDependencies } from "./session-init.js";
import type { ParkedSession, SessionClaim } from "./session-registry.js";
import type { SessionState } from "../loop/session-state.js";
import { systemErrorStep } from "../step-builder.js";
import { TRIGGER_PREFIX } from "../loop/model-transcript.js";
import { TurnScope } from "../loop/turn-scope.js";
import { toUsageMetadata } from "../model/usage.js";
import { MAX_PROMPT_BYTES, normalizeLegacyInputFrame, userInputMedia, userInputText } from "./read-user-input.js";
import { mediaByteLength } from "../model/media.js";

/**
 * Default of {@link SessionDependencies.confirmationHoldMs}: how long a session whose client left
 * while a tool call awaited confirmation stays resumable with that turn (`--confirmation-hold-ms`).
 */
export const DEFAULT_CONFIRMATION_HOLD_MS = 10 * 60 * 1000;

/** Longest a closed session waits for its aborted turn to stop before it is saved and its id freed. */
const TURN_STOP_GRACE_MS = 3000;

/** A prompt waiting for its turn, or one refused, whose refusal is reported in its turn's place. */
type QueuedInput = TurnInput | { refused: string };

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
  /**
   * Frames that came after one the full decoder is loading for (frame-codec: a frame the fast
   * reader leaves undecided); handled in order once it is decoded. Undefined when none waits.
   */
  #behindSlowFrame: string[] | undefined;
  #state: SessionState | undefined;
  #claim: SessionClaim | undefined;
  #log: Logger;
  #current: { scope: TurnScope; done: Promise<void> } | undefined;
  #queue: QueuedInput[] = [];
  #sessionStart: Promise<void> = Promise.resolve();
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
          // Decoded here, so that no later frame overtakes it while the full decoder loads.
          const init = initEventOf(frame.text);
          this.#initEvent = init instanceof Promise ? await init : init;
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
      this.#fail(CloseCode.unsupportedData, "binary frames are not supported: send each message as one JSON text frame (protocol §4)");
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
        this.#log.error(`initialisation failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
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
      const init = error instanceof SessionInitError ? error : new SessionInitError(CloseCode.internal, (error as Error).message);
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
    this.#sendInitResponse(state, initialized.resumed);
    // §5.3: the session-start hook is dispatched by the harness after the init response.
    if (state.hooks.enabled(LifecycleHook.ON_SESSION_START)) {
      this.#sessionStart = state.hooks
        .call(LifecycleHook.ON_SESSION_START, undefined, this.#channel.send, this.#ended.signal)
        .then(() => {}, () => {});
    }
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
      },
    });
  }

  #handle(frame: string): void {
    if (this.#state === undefined) return;
    if (this.#behindSlowFrame !== undefined) {
      this.#behindSlowFrame.push(frame);
      return;
    }
    const decoded = decodeInputEventFrame(normalizeLegacyInputFrame(frame));
    if (!(decoded instanceof Promise)) return this.#dispatch(frame, decoded);
    const waiting: string[] = (this.#behindSlowFrame = []);
    void decoded
      .then(
        (event) => this.#guard(() => this.#dispatch(frame, event)),
        (error: unknown) => this.#guard(() => this.#dispatch(frame, error)),
      )
      .finally(() => {
        this.#behindSlowFrame = undefined;
        for (const next of waiting) this.#guard(() => this.#handle(next));
      });
  }

  /** Acts on one decoded frame (an InputEvent), or reports why it could not be decoded (the error). */
  #dispatch(frame: string, decoded: unknown): void {
    const state = this.#state;
    if (state === undefined || this.#phase === "closed") return;
    if (!isInputEvent(decoded)) {
      this.#badInput(`could not decode the frame as an InputEvent: ${errorText(decoded)}`);
      return;
    }
    const input = decoded.event;
    const key = (trajectoryId: string | undefined, stepIndex: number | undefined): string => state.stepKey(trajectoryId ?? "", stepIndex ?? 0);
    switch (input.case) {
      case "userInput":
        return this.#onUserInput(input.value);
      case "toolResponse":
        return this.#reportSettle(state.toolResponses.settle(input.value.id ?? "", input.value), "toolResponse", `toolResponse for unknown tool call id ${JSON.stringify(input.value.id ?? "")}`);
      case "toolConfirmation":
        return this.#reportSettle(state.confirmations.settle(key(input.value.trajectoryId, input.value.stepIndex), input.value), "toolConfirmation", `toolConfirmation for step ${key(input.value.trajectoryId, input.value.stepIndex)}, which is not waiting for a confirmation`);
      case "questionResponse":
        return this.#reportSettle(state.questions.settle(key(input.value.trajectoryId, input.value.stepIndex), input.value), "questionResponse", `questionResponse for step ${key(input.value.trajectoryId, input.value.stepIndex)}, which asked no questions`);
      case "callHookResponse":
        return this.#reportSettle(state.hooks.replies.settle(input.value.requestId ?? "", input.value), "callHookResponse", `callHookResponse for unknown requestId ${JSON.stringify(input.value.requestId ?? "")}`);
      case "policyDecisionResponse":
        return this.#reportSettle(state.policyReplies.settle(input.value.requestId ?? "", input.value), "policyDecisionResponse", `policyDecisionResponse for unknown requestId ${JSON.stringify(input.value.requestId ?? "")}`);
      case "haltRequest":
        if (input.value) this.#halt();
        return;
      case "automatedTrigger":
        return this.#trigger(input.value);
      case "sessionEndRequest":
        if (input.value) void this.#endSession();
        return;
      default:
        return this.#badInput(`the frame carries no known InputEvent (keys: ${describeKeys(frame)}); expected one of userInput, toolResponse, toolConfirmation, questionResponse, haltRequest, automatedTrigger, callHookResponse, sessionEndRequest, policyDecisionResponse`);
    }
  }

  #onUserInput(userInput: UserInput): void {
    const text = userInputText(userInput);
    const bytes = Buffer.byteLength(text);
    // A whitespace-only prompt is legal (§6.1: upstream sends " "); a userInput without parts is not.
    if (bytes > MAX_PROMPT_BYTES || userInput.parts.length === 0) {
      const message = bytes > MAX_PROMPT_BYTES ? `prompt of ${bytes} bytes refused: the limit is ${MAX_PROMPT_BYTES} bytes` : "userInput without parts refused: send at least one text part";
      // Reported in the place of its turn: a FULLY_IDLE in the middle of a running turn would end that turn for the client (§6.3).
      this.#queue.push({ refused: message });
    } else {
      const media = userInputMedia(userInput);
      const input = "refused" in media ? media : { userInput, text, media };
      if (queuedBytes([...this.#queue, input]) > MAX_QUEUED_INPUT_BYTES) {
        this.#fail(CloseCode.policy, `more than ${MAX_QUEUED_INPUT_BYTES} bytes of prompts queued behind the running turn; wait for its end`);
        return;
      }
      this.#queue.push(input);
    }
    this.#pump();
  }

  #trigger(text: string): void {
    const state = this.#state as SessionState;
    if (this.#current !== undefined && !this.#current.scope.signal.aborted) {
      state.queueTrigger(text);
      return;
    }
    this.#queue.push(triggerInput(text));
    this.#pump();
  }

  #pump(): void {
    const state = this.#state;
    if (state === undefined || this.#current !== undefined || this.#phase !== "ready") return;
    const input = this.#queue.shift();
    if (input === undefined) return;
    if ("refused" in input) {
      this.#badInput(input.refused);
      this.#channel.send({ case: "trajectoryStateUpdate", value: { trajectoryId: state.cascadeId, state: TrajectoryStateUpdate_State.FULLY_IDLE, error: input.refused } });
      this.#pump();
      return;
    }
    const scope = new TurnScope(state.ledger, this.#channel, this.#ended.signal);
    const done = (async () => {
      await this.#sessionStart;
      await runTurn(state, input, scope, { beforeIdle: () => this.#persist() });
    })()
      .catch((error: unknown) => {
        if (scope.signal.aborted) return;
        const message = `internal harness error: ${errorText(error)}`;
        this.#log.error(message);
        scope.openStep(systemErrorStep(message));
        scope.send({ case: "trajectoryStateUpdate", value: { trajectoryId: state.cascadeId, state: TrajectoryStateUpdate_State.FULLY_IDLE, error: message } });
      })
      .finally(async () => {
        await this.#persist();
        this.#current = undefined;
        if (!scope.signal.aborted) for (const trigger of state.takeTriggers()) this.#queue.push(triggerInput(trigger));
        this.#pump();
      });
    this.#current = { scope, done };
  }

  /**
   * §13: stop at once, end the open steps, report the usage counted so far, send FULLY_IDLE, and
   * nothing more for that turn. FULLY_IDLE, not CANCELLED: upstream's own halt test
   * (`local_connection_test.py::test_cancel_e2e_raises_cancelled_error`) sends FULLY_IDLE after the
   * halt, and upstream raises `AntigravityExecutionError("Turn cancelled")` on any CANCELLED before
   * checking whether the client asked (issue 10 item 1). CANCELLED stays for a PRE_TURN deny.
   */
  #halt(): void {
    const current = this.#current;
    const state = this.#state as SessionState;
    if (current === undefined || current.scope.signal.aborted) {
      this.#log.info("haltRequest while idle: nothing to stop");
      return;
    }
    current.scope.cancel("cancelled by haltRequest");
    state.takeTriggers();
    this.#channel.send({ case: "trajectoryStateUpdate", value: { trajectoryId: state.cascadeId, state: TrajectoryStateUpdate_State.FULLY_IDLE } });
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
    if (mayHold && this.#phase === "ready" && state !== undefined && state.waitingConfirmations.size > 0 && holdMs > 0) {
      this.#phase = "parked";
      this.#deps.registry.park(state.cascadeId, this);
      this.#log.info(`the client left while a tool call waits for its confirmation; holding the turn for ${holdMs} ms`);
      this.#parkTimer = setTimeout(() => this.#guard(() => this.#onClose(`not confirmed: the client left and did not resume the session within ${holdMs} ms`)), holdMs);
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
    this.#current?.scope.abandon(reason);
    if (wasInitializing) return; // #initialize releases the id when it finishes
    void (async () => {
      const done = this.#current?.done;
      // Every wait of a turn ends with its signal; the bound only matters after a bug broke the turn.
      if (done !== undefined && (await settlesWithin(done, TURN_STOP_GRACE_MS)) === false) {
        this.#log.error(`the turn did not stop within ${TURN_STOP_GRACE_MS} ms of the close; saving the session anyway`);
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
  return Promise.race([promise.then(() => true, () => true), timeout]).finally(() => clearTimeout(timer));
}

/** Prompts (text and media) one connection may queue behind its running turn (issue 8 item 7). */
const MAX_QUEUED_INPUT_BYTES = 64 * 1024 * 1024;

function queuedBytes(queue: readonly QueuedInput[]): number {
  let bytes = 0;
  for (const input of queue) if (!("refused" in input)) bytes += Buffer.byteLength(input.text) + (input.media ?? []).reduce((sum, m) => sum + mediaByteLength(m), 0);
  return bytes;
}

function triggerInput(text: string): TurnInput {
  const userInput = createMessage<UserInput>("antigravity.localharness.UserInput", { parts: [{ part: { case: "text", value: text } }] });
  return { userInput, text: `${TRIGGER_PREFIX} ${text}` };
}

/**
 * The first frame as an InitializeConversationEvent, or undefined when it is not one
 * (initializeSession reports what is wrong with it); a promise while the full decoder loads.
 */
function initEventOf(frame: string): InitializeConversationEvent | undefined | Promise<InitializeConversationEvent | undefined> {
  const decoded = decodeInitFrame(frame);
  return decoded instanceof Promise ? decoded.catch(() => undefined) : decoded;
}

/** The cascade id a first frame asks to resume (any continuation mode but CREATE_ONLY), if it names one. */
function resumedCascadeId(init: InitializeConversationEvent | undefined): string | undefined {
  const config = init?.config;
  if (config?.sessionContinuationMode === HarnessConfig_SessionContinuationMode.CREATE_ONLY) return undefined;
  return config?.cascadeId === "" ? undefined : config?.cascadeId;
}

function isInputEvent(value: unknown): value is InputEvent {
  return typeof value === "object" && value !== null && (value as { $typeName?: unknown }).$typeName === "antigravity.localharness.InputEvent";
}

function describeKeys(frame: string): string {
  try {
    const json: unknown = JSON.parse(frame);
    return typeof json === "object" && json !== null ? Object.keys(json).join(", ") || "none" : typeof json;
  } catch {
    return "not JSON";
  }
}

