import { SerialQueue } from "../util/serial-queue.js";
import type { Connection, UsageSnapshot } from "../connection/connection.js";
import type { QuestionResponse } from "../step.js";
import { Turn, type TurnObserver } from "../connection/turn.js";
import { latestTurnView, observerTaken, STEP_MAPPER, viewOf } from "../connection/turn-view.js";
import { assertPromptNotBlank } from "../prompt.js";
import { addUsage } from "../usage.js";
import { ErrorCode, SdkError } from "../errors.js";
import { emptyUsage, SYNTHETIC_STEP_INDEX_BASE } from "../step.js";
import type { CallOptions } from "../call-options.js";
import type { Prompt } from "../prompt.js";
import type { Step, StopReason, ToolResult, UsageMetadata } from "../step.js";
import { delay, linkSignal, raceSignal, throwIfAborted } from "../util/abort.js";
import { mockStep } from "./mock-step.js";
import { definedProperties } from "../defined-properties.js";

/** One scripted turn of a {@link createMockConnection mock connection}. */
export interface MockTurn {
  /** Step updates the turn yields, in order; completed by {@link mockStep}. Repeat an id (or stepIndex) to update a step. */
  steps: Partial<Step>[];
  /** Added to the connection's `usage.total` just before the turn ends (like a §14 `usageUpdate`). */
  usage?: Partial<UsageMetadata>;
  /** The turn's error, like a FULLY_IDLE carrying an error (§6.3): its readers throw it after the last step. */
  error?: SdkError;
  /** Becomes `lastStopReason` when the turn ends (§16). */
  stopReason?: StopReason;
  /** Wait before each step, in milliseconds (0: the steps follow each other at once). */
  delayMs?: number;
  /** After its steps the turn keeps running (a long tool, a confirmation) until `halt()` or `disconnect()`. */
  untilHalted?: boolean;
  /** Updates of the turn's own steps sent after it ended (the idle-before-DONE race of §6.3). */
  lateSteps?: Partial<Step>[];
  /** Usage added after the turn ended (a `usageUpdate` that follows a halt's idle, §14). */
  lateUsage?: Partial<UsageMetadata>;
}

/** Options of {@link createMockConnection}. */
export interface MockConnectionOptions {
  /** Default `"mock-conversation"`; also the trajectory id of steps that do not set one. */
  conversationId?: string;
  /** The turns `send()` plays, one per call. */
  turns?: MockTurn[];
  /** Steps reported as replayed on resume (`initialHistory`). */
  initialHistory?: Partial<Step>[];
  /** Starting `usage.total`. */
  initialUsage?: Partial<UsageMetadata>;
  /** Simulated latency of every request (`send`, `halt`, ...), in milliseconds. Default 0. */
  latencyMs?: number;
}

/** What the code under test sent through a mock connection, for assertions. */
export interface MockSentLog {
  prompts: Prompt[];
  toolResponses: ToolResult[];
  confirmations: { trajectoryId: string; stepIndex: number; accepted: boolean }[];
  questionResponses: { trajectoryId: string; stepIndex: number; response: QuestionResponse }[];
  /** Number of `halt()` calls. */
  halts: number;
  triggers: string[];
}

/** A scripted {@link Connection} with a log of what was sent. */
export interface MockConnection extends Connection {
  readonly sent: MockSentLog;
  /** Scripted turns not played yet. */
  readonly remainingTurns: number;
  /** True after `disconnect()`. */
  readonly closed: boolean;
  /** Appends a turn to the script. */
  pushTurn(turn: MockTurn): void;
  /**
   * Plays `turn` as a turn the harness starts on its own (after a trigger, §13), now.
   * `FailedPrecondition` while a turn runs.
   */
  startTurn(turn: MockTurn): void;
}

/**
 * A {@link Connection} that plays scripted turns, with the semantics of a real connection:
 * `send` waits for a running turn, then starts the next scripted one (InvalidArgument for a blank
 * prompt, FailedPrecondition when the script is exhausted, nothing sent when the signal is already
 * aborted). The turn plays on its own, read or not: its steps go into its {@link Turn} one by one
 * (`delayMs` apart), then its usage is added, `lastStopReason` set, and it ends with its `error`,
 * if any. `halt()` ends the running turn with `Canceled` (its usage counted); `disconnect()` ends
 * everything with `ConnectionClosed`. `startTurn` plays a turn nobody sent, like a trigger's.
 *
 * @example
 * const connection = createMockConnection({ turns: [{ steps: [{ content: "Hi!" }] }] });
 * const conversation = new Conversation(connection);
 * const response = await conversation.chatToCompletion("Hello");  // response.text === "Hi!"
 */
export function createMockConnection(options: MockConnectionOptions = {}): MockConnection {
  return new ScriptedConnection(options);
}

interface PreparedTurn {
  spec: MockTurn;
  steps: Step[];
  lateSteps: Step[];
}

class ScriptedConnection implements MockConnection {
  readonly conversationId: string;
  readonly initialHistory: readonly Step[];
  readonly sent: MockSentLog = {
    prompts: [],
    toolResponses: [],
    confirmations: [],
    questionResponses: [],
    halts: 0,
    triggers: [],
  };
  readonly #script: PreparedTurn[] = [];
  readonly #latencyMs: number;
  readonly #latest = new Map<string, Step>();
  #nextIndex = 0;
  #usage: UsageSnapshot;
  #stopReason: StopReason | undefined;
  #observer: TurnObserver | undefined;
  /** The latest turn, running or over. */
  #turn: Turn | undefined;
  readonly #sends = new SerialQueue();
  /** Aborted to stop the running turn's playback (halt, disconnect). */
  #stop: AbortController | undefined;
  #closed = false;

  constructor(options: MockConnectionOptions) {
    this.conversationId = options.conversationId ?? "mock-conversation";
    this.#latencyMs = options.latencyMs ?? 0;
    this.initialHistory = (options.initialHistory ?? []).map((p) => this.#complete(p));
    const total = addUsage(emptyUsage(), { ...emptyUsage(), ...options.initialUsage });
    this.#usage = { total, byTrajectory: new Map([[this.conversationId, total]]) };
    for (const turn of options.turns ?? []) this.pushTurn(turn);
  }

  get isIdle(): boolean {
    return this.#turn === undefined || this.#turn.settled;
  }

  get usage(): UsageSnapshot {
    return this.#usage;
  }

  get lastStopReason(): StopReason | undefined {
    return this.#stopReason;
  }

  get remainingTurns(): number {
    return this.#script.length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  observeTurns(observer: TurnObserver): void {
    if (this.#observer !== undefined) throw observerTaken();
    this.#observer = observer;
    if (this.#turn !== undefined && !this.#turn.settled) observer.turnStarted(this.#turn);
  }

  pushTurn(turn: MockTurn): void {
    this.#script.push({
      spec: turn,
      steps: turn.steps.map((p) => this.#complete(p)),
      lateSteps: (turn.lateSteps ?? []).map((p) => this.#complete(p)),
    });
  }

  startTurn(turn: MockTurn): void {
    if (this.#closed) throw closedError();
    if (!this.isIdle)
      throw new SdkError(
        ErrorCode.FailedPrecondition,
        "a turn is running: a harness starts a turn on its own only when idle",
      );
    this.pushTurn(turn);
    this.#play(this.#script.pop() as PreparedTurn, false);
  }

  send(prompt: Prompt, options?: CallOptions): Promise<Turn> {
    try {
      assertPromptNotBlank(prompt);
    } catch (error) {
      return Promise.reject(SdkError.from(error));
    }
    // One gate: prompts go out in call order, each after the running turn.
    return this.#sends.run(() => this.#send(prompt, options));
  }

  async #send(prompt: Prompt, options?: CallOptions): Promise<Turn> {
    const link = linkSignal(options);
    try {
      await this.#request({ signal: link.signal });
      while (this.#turn !== undefined && !this.#turn.settled) await raceSignal(this.#turn.over(), link.signal);
      if (this.#closed) throw closedError();
      throwIfAborted(link.signal);
      const next = this.#script.shift();
      if (next === undefined) {
        throw new SdkError(
          ErrorCode.FailedPrecondition,
          "the mock connection has no scripted turn left: add one to `turns` or call pushTurn()",
        );
      }
      this.sent.prompts.push(prompt);
      return this.#play(next, true);
    } finally {
      link.dispose();
    }
  }

  async waitForIdle(options?: CallOptions): Promise<void> {
    const link = linkSignal(options);
    try {
      while (this.#turn !== undefined && !this.#turn.settled) {
        if (this.#closed) throw closedError();
        await raceSignal(this.#turn.over(), link.signal);
      }
      if (this.#closed) throw closedError();
    } finally {
      link.dispose();
    }
  }

  receiveSteps(options?: CallOptions): AsyncIterable<Step> {
    return latestTurnView(
      () => viewOf(this.#turn),
      () => STEP_MAPPER,
      options,
    );
  }

  async sendToolResponse(result: ToolResult, options?: CallOptions): Promise<void> {
    await this.#request(options);
    this.sent.toolResponses.push(result);
  }

  async sendToolConfirmation(
    trajectoryId: string,
    stepIndex: number,
    accepted: boolean,
    options?: CallOptions,
  ): Promise<void> {
    await this.#request(options);
    this.sent.confirmations.push({ trajectoryId, stepIndex, accepted });
  }

  async sendQuestionResponse(
    trajectoryId: string,
    stepIndex: number,
    response: QuestionResponse,
    options?: CallOptions,
  ): Promise<void> {
    await this.#request(options);
    this.sent.questionResponses.push({ trajectoryId, stepIndex, response });
  }

  async halt(options?: CallOptions): Promise<void> {
    await this.#request(options);
    this.sent.halts++;
    // §13: the harness stops the turn and reports it idle; the turn then ends with Canceled.
    const turn = this.#turn;
    if (turn !== undefined && !turn.settled) {
      turn.halt();
      this.#stop?.abort();
    }
  }

  async sendTrigger(message: string, options?: CallOptions): Promise<void> {
    await this.#request(options);
    this.sent.triggers.push(message);
  }

  async disconnect(options?: CallOptions): Promise<void> {
    if (this.#closed) return;
    throwIfAborted(options?.signal);
    this.#closed = true;
    this.#stop?.abort();
  }

  /** Starts `prepared` as the current turn and plays it in the background. */
  #play(prepared: PreparedTurn, solicited: boolean): Turn {
    this.#stopReason = undefined;
    const turn = new Turn({ solicited });
    const stop = new AbortController();
    this.#turn = turn;
    this.#stop = stop;
    this.#observer?.turnStarted(turn);
    void this.#run(turn, prepared, stop.signal);
    return turn;
  }

  async #run(turn: Turn, { spec, steps, lateSteps }: PreparedTurn, stop: AbortSignal): Promise<void> {
    const delayMs = spec.delayMs ?? 0;
    try {
      for (const step of steps) {
        if (delayMs > 0) await delay(delayMs, stop);
        else await Promise.resolve(); // one step per tick, as frames arrive
        if (stop.aborted) break;
        turn.push(step);
      }
      if (spec.untilHalted === true && !stop.aborted)
        await new Promise((resolve) => stop.addEventListener("abort", resolve, { once: true }));
    } catch {
      // stopped while waiting: halted or disconnected
    }
    if (this.#closed) {
      turn.end({ error: closedError() });
      return;
    }
    if (spec.usage !== undefined) this.#addUsage(turn, spec.usage);
    const error = turn.halted ? new SdkError(ErrorCode.Canceled, "the turn was halted") : spec.error;
    if (error === undefined && spec.stopReason !== undefined) this.#stopReason = spec.stopReason;
    turn.end(definedProperties({ error, stopReason: this.#stopReason }));
    if (lateSteps.length === 0 && spec.lateUsage === undefined) return;
    await Promise.resolve();
    for (const step of lateSteps) turn.push(step);
    if (spec.lateUsage !== undefined) this.#addUsage(turn, spec.lateUsage);
  }

  #addUsage(turn: Turn, usage: Partial<UsageMetadata>): void {
    const total = addUsage(this.#usage.total, { ...emptyUsage(), ...usage });
    this.#usage = { total, byTrajectory: new Map([[this.conversationId, total]]) };
    turn.pushUsage(total);
  }
  /** The common prologue of a request: closed and abort checks, then the simulated latency. */
  async #request(options: CallOptions | undefined): Promise<void> {
    if (this.#closed) throw closedError();
    const link = linkSignal(options);
    try {
      throwIfAborted(link.signal);
      if (this.#latencyMs > 0) await delay(this.#latencyMs, link.signal);
      if (this.#closed) throw closedError();
    } finally {
      link.dispose();
    }
  }

  #complete(partial: Partial<Step>): Step {
    const trajectoryId = partial.trajectoryId ?? this.conversationId;
    const key = partial.id ?? (partial.stepIndex === undefined ? undefined : `${trajectoryId}:${partial.stepIndex}`);
    const previous = key === undefined ? undefined : this.#latest.get(key);
    const stepIndex = partial.stepIndex ?? previous?.stepIndex ?? this.#nextIndex;
    const step = mockStep(
      partial,
      previous === undefined ? { trajectoryId, stepIndex } : { trajectoryId, stepIndex, previous },
    );
    if (step.stepIndex < SYNTHETIC_STEP_INDEX_BASE) this.#nextIndex = Math.max(this.#nextIndex, step.stepIndex + 1);
    this.#latest.set(step.id, step);
    return step;
  }
}

function closedError(): SdkError {
  return new SdkError(ErrorCode.ConnectionClosed, "the connection was disconnected: create a new one to continue");
}
