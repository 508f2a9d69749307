import type { Connection, QuestionResponse, UsageSnapshot } from "../connection/connection.js";
import { assertPromptNotBlank } from "../conversation/prompt.js";
import { addUsage } from "../conversation/usage.js";
import { ErrorCode, SdkError } from "../errors.js";
import { emptyUsage, SYNTHETIC_STEP_INDEX_BASE } from "../types.js";
import type { CallOptions, Prompt, Step, StopReason, ToolResult, UsageMetadata } from "../types.js";
import { abortError, delay, linkSignal, throwIfAborted } from "../util/abort.js";
import { mockStep } from "./mock-step.js";

/** One scripted turn of a {@link createMockConnection mock connection}. */
export interface MockTurn {
  /** Step updates the turn yields, in order; completed by {@link mockStep}. Repeat an id (or stepIndex) to update a step. */
  steps: Partial<Step>[];
  /** Added to the connection's `usage.total` when the turn ends (like a §14 `usageUpdate`). */
  usage?: Partial<UsageMetadata>;
  /** Thrown by `receiveSteps` after the last step, like a FULLY_IDLE carrying an error (§6.3). */
  error?: SdkError;
  /** Becomes `lastStopReason` when the turn ends (§16). */
  stopReason?: StopReason;
  /** Wait before each step, in milliseconds. */
  delayMs?: number;
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
}

interface PreparedTurn {
  steps: Step[];
  spec: MockTurn;
}

interface RunningTurn extends PreparedTurn {
  cursor: number;
  ended: boolean;
  /** Thrown once by the reader that sees the end. */
  error: SdkError | undefined;
  /** Aborted when the turn ends early (halt, disconnect) to wake a reader waiting in `delayMs`. */
  interrupt: AbortController;
}

/**
 * A {@link Connection} that plays scripted turns, with the semantics of a real connection:
 * `send` starts the next turn (InvalidArgument for a blank prompt; FailedPrecondition while a
 * turn runs or when the script is exhausted); `receiveSteps` yields that turn's steps, then the
 * turn ends, `isIdle` turns true, the turn's usage is added and its `error` thrown. A turn ends
 * when it has been read to the end, so an unread turn keeps the connection busy, like a harness
 * that is still working. `halt()` ends the running turn (its reader throws `Canceled`);
 * `disconnect()` ends everything (calls and readers fail with `ConnectionClosed`).
 *
 * @example
 * const connection = createMockConnection({ turns: [{ steps: [{ content: "Hi!" }] }] });
 * const conversation = new Conversation(connection);
 * const response = await conversation.chatToCompletion("Hello");  // response.text === "Hi!"
 */
export function createMockConnection(options: MockConnectionOptions = {}): MockConnection {
  return new ScriptedConnection(options);
}

class ScriptedConnection implements MockConnection {
  readonly conversationId: string;
  readonly initialHistory: readonly Step[];
  readonly sent: MockSentLog = { prompts: [], toolResponses: [], confirmations: [], questionResponses: [], halts: 0, triggers: [] };
  readonly #script: PreparedTurn[] = [];
  readonly #latencyMs: number;
  readonly #latest = new Map<string, Step>();
  #nextIndex = 0;
  #usage: UsageSnapshot;
  #stopReason: StopReason | undefined;
  #turn: RunningTurn | undefined;
  #lastEnded: RunningTurn | undefined;
  #reading = false;
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
    return this.#turn === undefined;
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

  pushTurn(turn: MockTurn): void {
    this.#script.push({ spec: turn, steps: turn.steps.map((p) => this.#complete(p)) });
  }

  async send(prompt: Prompt, options?: CallOptions): Promise<void> {
    await this.#request(options);
    assertPromptNotBlank(prompt);
    if (this.#turn !== undefined) {
      throw new SdkError(ErrorCode.FailedPrecondition, "a turn is running: read it to the end with receiveSteps() or halt() it before sending");
    }
    const next = this.#script.shift();
    if (next === undefined) {
      throw new SdkError(ErrorCode.FailedPrecondition, "the mock connection has no scripted turn left: add one to `turns` or call pushTurn()");
    }
    this.sent.prompts.push(prompt);
    this.#stopReason = undefined;
    this.#lastEnded = undefined;
    this.#turn = { ...next, cursor: 0, ended: false, error: undefined, interrupt: new AbortController() };
  }

  receiveSteps(options?: CallOptions): AsyncIterable<Step> {
    return this.#read(options);
  }

  async sendToolResponse(result: ToolResult, options?: CallOptions): Promise<void> {
    await this.#request(options);
    this.sent.toolResponses.push(result);
  }

  async sendToolConfirmation(trajectoryId: string, stepIndex: number, accepted: boolean, options?: CallOptions): Promise<void> {
    await this.#request(options);
    this.sent.confirmations.push({ trajectoryId, stepIndex, accepted });
  }

  async sendQuestionResponse(trajectoryId: string, stepIndex: number, response: QuestionResponse, options?: CallOptions): Promise<void> {
    await this.#request(options);
    this.sent.questionResponses.push({ trajectoryId, stepIndex, response });
  }

  async halt(options?: CallOptions): Promise<void> {
    await this.#request(options);
    this.sent.halts++;
    // §13: the harness stops the turn; the step iterator then raises a cancellation.
    if (this.#turn !== undefined) this.#end(this.#turn, new SdkError(ErrorCode.Canceled, "the turn was halted"), true);
  }

  async sendTrigger(message: string, options?: CallOptions): Promise<void> {
    await this.#request(options);
    this.sent.triggers.push(message);
  }

  async disconnect(options?: CallOptions): Promise<void> {
    if (this.#closed) return;
    throwIfAborted(options?.signal);
    this.#closed = true;
    if (this.#turn !== undefined) this.#end(this.#turn, closedError(), false);
  }

  async *#read(options: CallOptions | undefined): AsyncGenerator<Step, void, undefined> {
    const link = linkSignal(options);
    try {
      if (this.#closed) throw closedError();
      throwIfAborted(link.signal);
      if (this.#reading) throw new SdkError(ErrorCode.FailedPrecondition, "receiveSteps() is already being read: one reader at a time");
      this.#reading = true;
      try {
        yield* this.#play(this.#turn ?? this.#lastEnded, link.signal);
      } finally {
        this.#reading = false;
      }
    } finally {
      link.dispose();
    }
  }

  async *#play(turn: RunningTurn | undefined, signal: AbortSignal): AsyncGenerator<Step, void, undefined> {
    if (turn === undefined) return;
    const delayMs = turn.spec.delayMs ?? 0;
    while (!turn.ended) {
      throwIfAborted(signal);
      if (turn.cursor >= turn.steps.length) {
        this.#end(turn, turn.spec.error, true);
        break;
      }
      if (delayMs > 0) {
        const wait = linkSignal({ signal }, turn.interrupt.signal);
        try {
          await delay(delayMs, wait.signal);
        } catch {
          if (signal.aborted) throw abortError(signal);
          continue; // interrupted: the turn ended early, re-check
        } finally {
          wait.dispose();
        }
      }
      const step = turn.steps[turn.cursor++];
      if (step !== undefined) yield step;
    }
    if (this.#closed) throw closedError();
    const error = turn.error;
    turn.error = undefined;
    if (error !== undefined) throw error;
  }

  #end(turn: RunningTurn, error: SdkError | undefined, countUsage: boolean): void {
    turn.ended = true;
    turn.error = error;
    this.#turn = undefined;
    this.#lastEnded = turn;
    if (countUsage && turn.spec.usage !== undefined) {
      const total = addUsage(this.#usage.total, { ...emptyUsage(), ...turn.spec.usage });
      this.#usage = { total, byTrajectory: new Map([[this.conversationId, total]]) };
    }
    if (countUsage && error === undefined && turn.spec.stopReason !== undefined) this.#stopReason = turn.spec.stopReason;
    turn.interrupt.abort();
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
    const step = mockStep(partial, previous === undefined ? { trajectoryId, stepIndex } : { trajectoryId, stepIndex, previous });
    if (step.stepIndex < SYNTHETIC_STEP_INDEX_BASE) this.#nextIndex = Math.max(this.#nextIndex, step.stepIndex + 1);
    this.#latest.set(step.id, step);
    return step;
  }
}

function closedError(): SdkError {
  return new SdkError(ErrorCode.ConnectionClosed, "the connection was disconnected: create a new one to continue");
}
