import { SerialQueue } from "../util/serial-queue.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import { stepFromUpdate } from "../mapping/index.js";
import type { CallOptions } from "../call-options.js";
import type { Prompt } from "../prompt.js";
import type { Step, StopReason, ToolResult } from "../step.js";
import { StepStatus } from "../step.js";
import type { Channel } from "../transport/transport.js";
import { linkSignal, raceSignal, throwIfAborted } from "../util/abort.js";
import type {
  HarnessConfig,
  InputEventSchema,
  InitializeConversationResponse,
  OutputEvent,
  StepUpdate,
  TrajectoryStateUpdate,
} from "../wire/index.js";
import { LifecycleHook } from "../wire/wire-enums.gen.js";
import type { Connection, SandboxStatus, UsageSnapshot } from "./connection.js";
import type { QuestionResponse } from "../step.js";
import { fatalStepError } from "./fatal-step-error.js";
import { encodeInitFrame, encodeInputFrame, type FrameSpelling } from "../wire/frame-codec.js";
import { NEWEST_LOCALHARNESS_ERA, type LocalharnessEra } from "../wire/wire-era.js";
import { DEFAULT_INITIALIZE_TIMEOUT_MS, awaitInitializeResponse } from "./initialize-response.js";
import { readFrames } from "./read-frames.js";
import { IdleGate } from "./idle-gate.js";
import { backoffDelay, interruptedByDisconnect, resumeConfig, sleep } from "../transport/reconnect.js";
import { completeConfig, type HarnessConnectionOptions } from "./harness-connection-options.js";
import { consoleLogger } from "../telemetry/logger.js";
import { HarnessRequests } from "./harness-requests.js";
import type { Turn, TurnObserver } from "./turn.js";
import { TurnTracker } from "./turn-tracker.js";
import { latestTurnView, STEP_MAPPER, viewOf } from "./turn-view.js";
import { UsageTracker } from "./usage-tracker.js";
import { toUserInput } from "./user-input.js";

type InputEventInit = MessageInitShape<typeof InputEventSchema>;

/** A dropped channel being re-opened: attempts so far, whether the running turn was kept (held confirmation) or interrupted, and why it dropped. */
interface ReconnectState {
  attempts: number;
  keptTurn: boolean;
  interrupted: boolean;
  cause: SdkError;
}

const DEFAULT_SESSION_END_TIMEOUT_MS = 5_000;
/** Closes after which reconnecting cannot help: the session is gone or the key is refused. */
const FINAL_CODES: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.NotFound,
  ErrorCode.PermissionDenied,
  ErrorCode.InvalidArgument,
]);
/**
 * Connects over `options.transport`, sends the session configuration (§5) and waits for the
 * harness's `initializeConversationResponse`, bounded by `signal`/`timeoutMs`. On failure the
 * channel is closed and nothing is left running.
 *
 * @example
 * const connection = await createHarnessConnection({ transport, config: { cascadeId: "" }, timeoutMs: 10_000 });
 * await connection.send("hello");
 * for await (const step of connection.receiveSteps()) console.log(step.contentDelta);
 */
export async function createHarnessConnection(options: HarnessConnectionOptions): Promise<HarnessConnection> {
  const config = completeConfig(options);
  const link = linkSignal(options);
  let channel: Channel | undefined;
  try {
    const spelling = await eraSpellingOf(options.wireEra);
    // An option the era cannot carry is refused (Unsupported) before anything connects.
    if (spelling !== undefined) encodeInitFrame(config, spelling.init);
    channel = await options.transport.connect({ signal: link.signal });
    throwIfAborted(link.signal);
    const connection = new HarnessConnection(channel, config, options, spelling);
    await awaitInitializeResponse(
      connection.ready,
      link.signal,
      options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
      channel.peer,
    );
    return connection;
  } catch (error) {
    await channel?.close().catch(() => undefined);
    throw SdkError.from(error, ErrorCode.Unavailable);
  } finally {
    link.dispose();
  }
}

/** The writers of an older wire era's spelling (wire-era-spelling.ts). */
interface EraSpelling {
  readonly init: FrameSpelling;
  readonly input: FrameSpelling;
}

/** Loads the writers of `era` when it is not the newest (a dynamic import: the start-up bundle does not hold them). */
async function eraSpellingOf(era: LocalharnessEra | undefined): Promise<EraSpelling | undefined> {
  if (era === undefined || era === NEWEST_LOCALHARNESS_ERA) return undefined;
  const { initFrameForEra, inputEventForEra } = await import("../wire/wire-era-spelling.js");
  return { init: (json) => initFrameForEra(json, era), input: (json) => inputEventForEra(json, era) };
}

/**
 * The protocol session over any {@link Channel} (seed 001, protocol §5–§18): maps step updates
 * to {@link Step}s, detects the end of each turn (§6.3), and answers the harness's requests —
 * tool calls, hook calls, policy decisions, confirmations and questions — concurrently, each
 * exactly once, without ever blocking the frame reader on user code. Create it with
 * {@link createHarnessConnection}.
 */
export class HarnessConnection implements Connection {
  #channel: Channel;
  readonly #config: HarnessConfig;
  readonly #options: HarnessConnectionOptions;
  readonly #requests: HarnessRequests;
  /** Aborted by `disconnect()` or when the channel closes: the session-wide signal of tools. */
  readonly #session = new AbortController();
  /** @internal Settles when the harness answered the configuration (§5); see {@link createHarnessConnection}. */
  readonly ready: Promise<void>;
  #resolveReady!: () => void;
  #rejectReady!: (error: SdkError) => void;
  #initialized = false;
  #conversationId: string;
  #initialHistory: Step[] = [];
  #sandboxStatus: SandboxStatus | undefined;
  readonly #usage = new UsageTracker();
  readonly #turns = new TurnTracker();
  /** Busy from `send()` or RUNNING until the main trajectory is idle or cancelled. */
  readonly #idle = new IdleGate();
  /** (trajectoryId, stepIndex) of steps now WAITING_FOR_USER, for debouncing (§8). */
  readonly #waiting = new Set<string>();
  #closed: SdkError | undefined;
  #disconnecting: Promise<void> | undefined;
  #sessionEnded: (() => void) | undefined;
  readonly #sendQueue = new SerialQueue();
  /** Set from an unexpected close until the harness answered the resume (transport `reconnect`). */
  #reconnecting: ReconnectState | undefined;
  readonly #resumedListeners: ((history: readonly Step[]) => void)[] = [];
  readonly #closedListeners: ((reason: SdkError) => void)[] = [];
  readonly #reader: Promise<void>;

  /** @internal Use {@link createHarnessConnection}. */
  /**
   * @param spelling the writers of an era other than the newest (`options.wireEra`); {@link createHarnessConnection} loads them.
   */
  constructor(channel: Channel, config: HarnessConfig, options: HarnessConnectionOptions, spelling?: EraSpelling) {
    this.#spelling = spelling;
    this.#channel = channel;
    this.#config = config;
    this.#options = options;
    this.#conversationId = config.cascadeId ?? "";
    this.ready = new Promise<void>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    this.#requests = new HarnessRequests({
      options,
      sessionSignal: this.#session.signal,
      conversationId: () => this.#conversationId,
      send: (event) => this.#sendInput(event),
      turnForRequest: () => this.#turns.forActivity(),
      currentTurn: () => this.#turns.latest,
      mainTrajectory: () => this.#turns.main,
      warn: (message) => this.#warn(message),
    });
    this.#sendInit(config);
    this.#reader = this.#read();
  }

  get conversationId(): string {
    return this.#conversationId;
  }

  get isIdle(): boolean {
    return !this.#idle.busy;
  }

  get initialHistory(): readonly Step[] {
    return this.#initialHistory;
  }

  get sandboxStatus(): SandboxStatus | undefined {
    return this.#sandboxStatus;
  }

  readonly #spelling: EraSpelling | undefined;

  /** The localharness wire era this connection writes (`options.wireEra`, default the newest). */
  get wireEra(): LocalharnessEra {
    return this.#options.wireEra ?? NEWEST_LOCALHARNESS_ERA;
  }

  retireStepIds(ids: Iterable<string>): void {
    this.#turns.retiredIds.retire(ids);
  }

  /**
   * Calls `listener` with the history the harness replays each time the connection resumed the
   * session after an unexpected close (transport `reconnect`; docs/runtimes.md "Reconnect"). Step
   * ids are `(trajectoryId, stepIndex)`: merging by id neither loses nor doubles a step.
   */
  onResumed(listener: (history: readonly Step[]) => void): void {
    this.#resumedListeners.push(listener);
  }

  /**
   * Calls `listener` once with the reason when the connection closes for good (the channel ended
   * and no reconnect follows, or `disconnect()`), idle or not; at once when it already closed.
   */
  onClosed(listener: (reason: SdkError) => void): void {
    const closed = this.#closed;
    if (closed !== undefined) listener(closed);
    else this.#closedListeners.push(listener);
  }

  get usage(): UsageSnapshot {
    return this.#usage.snapshot();
  }

  get lastStopReason(): StopReason | undefined {
    return this.#turns.lastStopReason;
  }

  observeTurns(observer: TurnObserver): void {
    this.#turns.observe(this.#options.telemetry?.observeTurns(observer, this) ?? observer);
  }

  /** The configuration sent to the harness. */
  get config(): HarnessConfig {
    return this.#config;
  }

  /**
   * Starts a turn (§6.1). Waits first for a turn still running in the harness (bounded by
   * `signal`/`timeoutMs`). Throws `InvalidArgument` for a blank prompt, `ConnectionClosed` once
   * closed; sends nothing when the signal is already aborted.
   */
  send(prompt: Prompt, options?: CallOptions): Promise<Turn> {
    let input: ReturnType<typeof toUserInput>;
    try {
      input = toUserInput(prompt);
    } catch (error) {
      return Promise.reject(SdkError.from(error));
    }
    return this.#sendQueue.run(() => this.#send(input, options));
  }

  async #send(input: ReturnType<typeof toUserInput>, options?: CallOptions): Promise<Turn> {
    this.#assertOpen();
    throwIfAborted(options?.signal);
    await this.waitForIdle(options);
    this.#assertOpen();
    throwIfAborted(options?.signal);
    const turn = this.#turns.startSolicited();
    this.#idle.setBusy(true);
    try {
      this.#sendInput({ event: { case: "userInput", value: input } });
    } catch (error) {
      const failure = SdkError.from(error, ErrorCode.ConnectionClosed);
      turn.end({ error: failure });
      this.#idle.setBusy(false);
      throw failure;
    }
    return turn;
  }

  /**
   * The steps of the current turn (the running one, else the last), from its first step, ending
   * when the main trajectory is idle (§6.3). Throws the turn's `SdkError` after its last step.
   */
  receiveSteps(options?: CallOptions): AsyncIterable<Step> {
    return latestTurnView(
      () => viewOf(this.#turns.latest),
      () => STEP_MAPPER,
      options,
    );
  }

  async sendToolResponse(result: ToolResult, options?: CallOptions): Promise<void> {
    throwIfAborted(options?.signal);
    this.#requests.sendToolResult(result);
  }

  async sendToolConfirmation(
    trajectoryId: string,
    stepIndex: number,
    accepted: boolean,
    options?: CallOptions,
  ): Promise<void> {
    throwIfAborted(options?.signal);
    this.#sendInput({ event: { case: "toolConfirmation", value: { trajectoryId, stepIndex, accepted } } });
  }

  async sendQuestionResponse(
    trajectoryId: string,
    stepIndex: number,
    response: QuestionResponse,
    options?: CallOptions,
  ): Promise<void> {
    throwIfAborted(options?.signal);
    this.#requests.sendQuestionResponse(trajectoryId, stepIndex, response);
  }

  /** Asks the harness to stop the turn (§13); the turn then ends with `Canceled`. Tools' signals abort. */
  async halt(options?: CallOptions): Promise<void> {
    throwIfAborted(options?.signal);
    this.#turns.running?.halt();
    this.#sendInput({ event: { case: "haltRequest", value: true } });
  }

  async sendTrigger(message: string, options?: CallOptions): Promise<void> {
    throwIfAborted(options?.signal);
    this.#sendInput({ event: { case: "automatedTrigger", value: message } });
  }

  /** Resolves when no turn is running; rejects with `ConnectionClosed` once the connection closed. */
  waitForIdle(options?: CallOptions): Promise<void> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    return this.#idle.wait(options);
  }

  /**
   * Ends the session (§13): runs the session-end hook round trip when one is registered
   * (bounded by `sessionEndTimeoutMs`), then closes the channel. A running turn fails with
   * `ConnectionClosed`. Idempotent.
   */
  disconnect(options?: CallOptions): Promise<void> {
    this.#disconnecting ??= this.#disconnect(options);
    return this.#disconnecting;
  }

  async #disconnect(options?: CallOptions): Promise<void> {
    const link = linkSignal({
      timeoutMs: this.#options.sessionEndTimeoutMs ?? DEFAULT_SESSION_END_TIMEOUT_MS,
      ...options,
    });
    try {
      if (
        this.#closed === undefined &&
        this.#initialized &&
        this.#config.enabledHooks.includes(LifecycleHook.ON_SESSION_END)
      ) {
        // §13: the harness runs ON_SESSION_END through callHookRequest, then answers sessionEndResponse.
        const ended = new Promise<void>((resolve) => (this.#sessionEnded = resolve));
        try {
          this.#sendInput({ event: { case: "sessionEndRequest", value: true } });
          await raceSignal(ended, link.signal);
        } catch (error) {
          this.#warn(`session end hooks did not complete: ${SdkError.from(error).message}`);
        }
      }
    } finally {
      link.dispose();
      this.#shutdown(new SdkError(ErrorCode.ConnectionClosed, "the connection was closed by disconnect()"));
      await this.#channel.close(options).catch(() => undefined);
      await this.#reader;
    }
  }

  #assertOpen(): void {
    if (this.#closed !== undefined) throw this.#closed;
  }

  #sendInput(event: InputEventInit): void {
    this.#assertOpen();
    this.#channel.send(encodeInputFrame(event, this.#spelling?.input));
  }

  #warn(message: string): void {
    (this.#options.logger ?? consoleLogger).warn(message);
  }

  /** §5: the first frame of every channel is the bare InitializeConversationEvent, not an InputEvent. */
  #sendInit(config: HarnessConfig): void {
    this.#channel.send(encodeInitFrame(config, this.#spelling?.init));
  }

  /**
   * Reads the channel until it ends; then, when the transport offers `reconnect` and nobody
   * asked to close, re-opens it with backoff and resumes the session by id (§5 RESUME) until it
   * answers, `maxAttempts` fail, or the harness no longer has the session (`NotFound`).
   */
  async #read(): Promise<void> {
    let failure = await readFrames(
      this.#channel,
      (event) => this.#route(event),
      (error, frame) => this.#protocolError(error, frame),
    );
    const policy = this.#options.transport.reconnect;
    while (policy !== undefined && this.#closed === undefined && this.#initialized && !FINAL_CODES.has(failure.code)) {
      const state = (this.#reconnecting ??= this.#onDrop(failure));
      if (state.attempts >= policy.maxAttempts) break;
      const attempt = state.attempts++;
      try {
        await sleep(backoffDelay(policy, attempt), this.#session.signal);
        const channel = await this.#options.transport.connect({ signal: this.#session.signal });
        if (this.#closed !== undefined) {
          await channel.close().catch(() => undefined);
          break;
        }
        this.#channel = channel;
        this.#sendInit(resumeConfig(this.#config, this.#conversationId));
      } catch (error) {
        failure = SdkError.from(error, ErrorCode.Unavailable);
        continue;
      }
      failure = await readFrames(
        this.#channel,
        (event) => this.#route(event),
        (error, frame) => this.#protocolError(error, frame),
      );
    }
    this.#shutdown(failure);
  }

  /**
   * The channel dropped: sends wait (busy) until the session is resumed. A running turn ends as
   * interrupted — the harness stops a turn whose client left — unless it waits for a tool
   * confirmation, which the harness holds (`--confirmation-hold-ms`) and re-sends on resume (§8).
   */
  #onDrop(cause: SdkError): ReconnectState {
    const turn = this.#turns.running;
    const keptTurn = turn !== undefined && this.#waiting.size > 0;
    if (turn !== undefined && !keptTurn) turn.end({ error: interruptedByDisconnect(cause) });
    this.#waiting.clear(); // a held WAITING step comes again after the resume and is answered again
    this.#idle.setBusy(true);
    return { attempts: 0, keptTurn, interrupted: turn !== undefined && !keptTurn, cause };
  }

  /** The harness answered the resume (§5): the replayed history goes to the listeners, sends go on. */
  #onResumed(response: InitializeConversationResponse): void {
    const state = this.#reconnecting;
    if (state === undefined) return;
    this.#reconnecting = undefined;
    const history = response.history.map((update) => this.#turns.retiredIds.live(stepFromUpdate(update)));
    this.#usage.update(response.cumulativeUsage, response.trajectoryUsage);
    let interrupted = state.interrupted;
    // A kept turn goes on only if the harness held it: its step is still WAITING_FOR_USER.
    if (state.keptTurn && !history.some((step) => step.status === StepStatus.WaitingForUser)) {
      this.#turns.running?.end({ error: interruptedByDisconnect(state.cause) });
      interrupted = true;
    }
    for (const listener of this.#resumedListeners) listener(history);
    if (!state.keptTurn || interrupted) this.#idle.setBusy(false);
    this.#options.transport.reconnect?.onReconnected?.({
      conversationId: this.#conversationId,
      attempt: state.attempts,
      interruptedTurn: interrupted,
      replayedSteps: history.length,
    });
  }

  #protocolError(error: SdkError, frame: string): void {
    if (this.#options.onProtocolError !== undefined) this.#options.onProtocolError(error, frame);
    else this.#warn(`ignored a frame: ${error.message}`);
  }

  /** Marks the connection closed and fails everything waiting on it. */
  #shutdown(reason: SdkError): void {
    if (this.#closed !== undefined) return;
    this.#closed = reason;
    this.#session.abort(reason);
    this.#rejectReady(
      reason.code === ErrorCode.ConnectionClosed
        ? new SdkError(
            ErrorCode.Unavailable,
            `the harness closed the connection before answering the session configuration: ${reason.message}`,
            { cause: reason },
          )
        : reason,
    );
    this.#turns.latest?.end({ error: reason });
    this.#sessionEnded?.();
    this.#idle.fail(reason);
    for (const listener of this.#closedListeners.splice(0)) {
      try {
        listener(reason);
      } catch (error) {
        this.#warn(`an onClosed listener threw: ${SdkError.from(error).message}`);
      }
    }
  }

  #route(event: OutputEvent): void {
    switch (event.event.case) {
      case "initializeConversationResponse":
        return this.#onInit(event.event.value);
      case "stepUpdate":
        return this.#onStep(event.event.value);
      case "trajectoryStateUpdate":
        return this.#onState(event.event.value);
      case "toolCall":
        return this.#requests.onToolCall(event.event.value);
      case "callHookRequest":
        if (event.event.value.type === LifecycleHook.PRE_TURN) this.#turns.markActive();
        return this.#requests.onHookRequest(event.event.value);
      case "policyDecisionRequest":
        return this.#requests.onPolicyRequest(event.event.value);
      case "usageUpdate":
        this.#usage.update(event.event.value.total, event.event.value.agents);
        // §14: recorded in the running turn too, in order with its steps.
        this.#turns.running?.pushUsage(this.#usage.total());
        return;
      case "sessionEndResponse":
        this.#sessionEnded?.();
        return;
      default:
        return; // an event this SDK does not know (newer harness): ignored
    }
  }

  #onInit(response: InitializeConversationResponse): void {
    if (this.#initialized) return this.#onResumed(response);
    this.#initialized = true;
    if (response.cascadeId) this.#conversationId = response.cascadeId;
    this.#initialHistory = response.history.map(stepFromUpdate);
    const sandbox = response.sandboxStatus;
    if (sandbox !== undefined)
      this.#sandboxStatus = {
        available: sandbox.available === true,
        unavailableReason: sandbox.unavailableReason ?? "",
      };
    this.#usage.update(response.cumulativeUsage, response.trajectoryUsage);
    this.#resolveReady();
  }

  #onStep(update: StepUpdate): void {
    const step = stepFromUpdate(update);
    if (step.status === StepStatus.WaitingForUser) {
      const key = `${step.trajectoryId}:${step.stepIndex}`;
      if (this.#waiting.has(key)) return; // §8: the harness re-sends WAITING steps; answer once
      this.#waiting.add(key);
    } else if (this.#waiting.size > 0) {
      this.#waiting.delete(`${step.trajectoryId}:${step.stepIndex}`);
    }
    const { turn, late } = this.#turns.pushStep(step);
    if (late) return; // an update of a turn that is over (§6.3) asks nothing more
    if (step.status === StepStatus.WaitingForUser) this.#requests.onWaitingStep(step, update);
    const fatal = fatalStepError(step);
    if (fatal !== undefined) turn.end({ error: fatal });
  }

  #onState(update: TrajectoryStateUpdate): void {
    const effect = this.#turns.onState(update);
    if (effect !== undefined) this.#idle.setBusy(effect === "running");
  }
}
