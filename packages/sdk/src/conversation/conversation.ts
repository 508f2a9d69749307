import { Mutex } from "async-mutex";
import type { Connection } from "../connection/connection.js";
import { ErrorCode, SdkError } from "../errors.js";
import { StepType } from "../types.js";
import type { CallOptions, ChatResponse, Prompt, Step, StreamChunk, UsageMetadata } from "../types.js";
import { linkSignal, raceSignal } from "../util/abort.js";
import { stepToChunks } from "./chunks.js";
import { ConversationState } from "./conversation-state.js";
import { assertPromptNotBlank } from "./prompt.js";
import { TurnReader } from "./turn-reader.js";
import type { TurnSummary } from "./turn-reader.js";
import { computeTurnUsage, copyUsage } from "./usage.js";

/** How long an automatic halt (on abort or timeout) may take before the SDK stops waiting for it. */
const HALT_TIMEOUT_MS = 10_000;

/** History size used when `maxHistorySize` is not given. */
export const DEFAULT_MAX_HISTORY_SIZE = 10_000;

/** Options of {@link Conversation}. */
export interface ConversationOptions {
  /**
   * Most steps kept in memory; older ones are dropped from the front. `undefined` → 10,000,
   * `0` → unlimited.
   */
  maxHistorySize?: number | undefined;
}

/**
 * A stateful session over a {@link Connection} (seed 000): step history, turn and compaction
 * indices, token usage, and chat as a chunk stream or a whole response. Construct it with
 * `new Conversation(connection, options)`.
 *
 * Streams are lazy: `chat()` sends nothing until you iterate it. Leaving a `for await` early
 * detaches the stream; the rest of the turn is still recorded into history in the background,
 * and the next `send`/`chat` waits for that turn to end. Aborting a stream (signal or
 * `timeoutMs`) also asks the harness to halt the turn.
 *
 * State methods are async because they take the internal lock; the lock is never held while
 * waiting on the connection, so they never block on the network.
 *
 * @example
 * await using conversation = new Conversation(connection, { maxHistorySize: 5_000 });
 * for await (const chunk of conversation.chat("Explain monads")) {
 *   if (chunk.type === "text") console.log(chunk.text);
 * }
 * console.log(await conversation.turnCount(), await conversation.totalUsage());
 */
export class Conversation implements AsyncDisposable {
  /** The underlying connection. */
  readonly connection: Connection;
  readonly #state: ConversationState;
  readonly #lock = new Mutex();
  /** The reader a stream is consuming right now. */
  #reader: TurnReader | undefined;
  /** Recording of a turn whose stream was left early. */
  #background: Promise<void> | undefined;
  /** `usage.total` before the last `send`, for the next reader's turn usage. */
  #turnStartTotal: UsageMetadata | undefined;

  constructor(connection: Connection, options: ConversationOptions = {}) {
    const max = options.maxHistorySize ?? DEFAULT_MAX_HISTORY_SIZE;
    if (!Number.isSafeInteger(max) || max < 0) {
      throw new SdkError(ErrorCode.InvalidArgument, `maxHistorySize must be an integer >= 0 (0 = unlimited), got ${String(max)}`);
    }
    this.connection = connection;
    this.#state = new ConversationState(max);
    // §5: a resumed session starts with the steps the harness replayed.
    for (const step of connection.initialHistory) this.#state.record(step);
  }

  /** The session id (delegates to the connection). */
  get conversationId(): string {
    return this.connection.conversationId;
  }

  /** True when the connection has no turn running. */
  get isIdle(): boolean {
    return this.connection.isIdle;
  }

  /**
   * Sends `prompt` and streams the chunks of the turn it starts (see {@link stepToChunks}).
   * Nothing is sent until iteration starts. Throws `InvalidArgument` for a blank prompt, the
   * turn's `SdkError` if it fails, and `Canceled` / `DeadlineExceeded` on abort (after asking the
   * harness to halt).
   */
  chat(prompt: Prompt, options?: CallOptions): AsyncIterable<StreamChunk> {
    const seen = new Set<string>();
    return this.#turn(prompt, options, (step) => stepToChunks(step, seen));
  }

  /** Sends `prompt`, waits for the turn to end and returns all of it. Fails like {@link chat}. */
  async chatToCompletion(prompt: Prompt, options?: CallOptions): Promise<ChatResponse> {
    const seen = new Set<string>();
    const steps = new Map<string, Step>();
    let text = "";
    let thinking = "";
    let structuredOutput: { value: unknown } | undefined;
    for await (const step of this.#turn(prompt, options, undefined)) {
      steps.set(step.id, step); // a re-sent step keeps its first position and takes the newest state
      if (step.type === StepType.Finish && step.structuredOutput !== undefined) structuredOutput = { value: step.structuredOutput };
      for (const chunk of stepToChunks(step, seen)) {
        if (chunk.type === "text") text += chunk.text;
        else if (chunk.type === "thought") thinking += chunk.text;
      }
    }
    const response: ChatResponse = { text, thinking, steps: [...steps.values()], usageMetadata: await this.totalUsage() };
    if (structuredOutput !== undefined) response.structuredOutput = structuredOutput.value;
    const stopReason = this.connection.lastStopReason;
    if (stopReason !== undefined) response.stopReason = stopReason;
    return response;
  }

  /**
   * Sends a prompt and marks a turn boundary, without reading the turn: follow with
   * {@link receiveSteps} or {@link receiveChunks}. Waits first for a turn still being recorded in
   * the background. Throws `FailedPrecondition` while a stream is reading a turn.
   */
  async send(prompt: Prompt, options?: CallOptions): Promise<void> {
    assertPromptNotBlank(prompt);
    const link = linkSignal(options);
    try {
      await this.#settle(link.signal);
      this.#assertNoStream();
      const totalAtStart = copyUsage(this.connection.usage.total);
      await this.connection.send(prompt, { signal: link.signal });
      this.#turnStartTotal = totalAtStart;
      await this.#lock.runExclusive(() => this.#state.startTurn());
    } catch (error) {
      throw SdkError.from(error);
    } finally {
      link.dispose();
    }
  }

  /**
   * The step updates of the current turn, each recorded into history before it is yielded.
   * Ends with the turn. Aborting halts the turn; breaking out leaves it recording in background.
   */
  receiveSteps(options?: CallOptions): AsyncIterable<Step> {
    return this.#turn(undefined, options, undefined);
  }

  /** {@link receiveSteps} turned into chunks by {@link stepToChunks}, one de-duplication set per call. */
  receiveChunks(options?: CallOptions): AsyncIterable<StreamChunk> {
    const seen = new Set<string>();
    return this.#turn(undefined, options, (step) => stepToChunks(step, seen));
  }

  /** A copy of the retained steps, oldest first, one entry per step id (its newest update). */
  history(): Promise<Step[]> {
    return this.#lock.runExclusive(() => this.#state.history());
  }

  /** Turns started since the last {@link clearHistory}; trimming old steps does not lower it. */
  turnCount(): Promise<number> {
    return this.#lock.runExclusive(() => this.#state.turnCount());
  }

  /** History positions where the retained turns start (turns trimmed away are dropped). */
  turnStartIndices(): Promise<number[]> {
    return this.#lock.runExclusive(() => this.#state.turnStartIndices());
  }

  /** History positions of the retained COMPACTION steps (§15). */
  compactionIndices(): Promise<number[]> {
    return this.#lock.runExclusive(() => this.#state.compactionIndices());
  }

  /** Content of the newest retained step with `isCompleteResponse`, or `""`. */
  lastResponse(): Promise<string> {
    return this.#lock.runExclusive(() => this.#state.lastResponse());
  }

  /** Session usage since the last clear: the harness total (§14), plus summed per-step usage of legacy harnesses. */
  totalUsage(): Promise<UsageMetadata> {
    return this.#lock.runExclusive(() => this.#state.totalUsage(this.connection.usage.total));
  }

  /** Usage of the last finished turn, or `undefined` before a turn finished. */
  lastTurnUsage(): Promise<UsageMetadata | undefined> {
    return this.#lock.runExclusive(() => this.#state.lastTurnUsage());
  }

  /** Forgets steps, turns, compaction indices and usage; later usage counts from now. */
  clearHistory(): Promise<void> {
    return this.#lock.runExclusive(() => this.#state.clear(this.connection.usage.total));
  }

  /** Closes the connection (idempotent). A turn recording in background then ends. */
  async disconnect(options?: CallOptions): Promise<void> {
    await this.connection.disconnect(options);
  }

  /** `await using` support: {@link disconnect}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /**
   * Sends `prompt` (if any) and yields the turn's recorded steps, or what `map` makes of each
   * (chunks), from this one generator; see {@link receiveSteps}.
   */
  #turn(prompt: Prompt | undefined, options: CallOptions | undefined, map: undefined): AsyncGenerator<Step, void, undefined>;
  #turn<T>(prompt: Prompt | undefined, options: CallOptions | undefined, map: (step: Step) => readonly T[]): AsyncGenerator<T, void, undefined>;
  async *#turn<T>(prompt: Prompt | undefined, options: CallOptions | undefined, map: ((step: Step) => readonly T[]) | undefined): AsyncGenerator<Step | T, void, undefined> {
    const link = linkSignal(options);
    let halt: Promise<void> | undefined;
    const onAbort = (): void => {
      // Abort or timeout mid-turn: ask the harness to stop the turn (§13).
      halt ??= this.connection.halt({ timeoutMs: HALT_TIMEOUT_MS }).catch(() => undefined);
    };
    try {
      if (prompt !== undefined) await this.send(prompt, { signal: link.signal });
      await this.#settle(link.signal);
      this.#assertNoStream();
      const reader = this.#openReader();
      this.#reader = reader;
      link.signal.addEventListener("abort", onAbort, { once: true });
      if (link.signal.aborted) onAbort();
      try {
        for (;;) {
          const result = await reader.next(link.signal);
          if (result.done === true) return;
          if (map === undefined) yield result.value;
          else for (const item of map(result.value)) yield item;
        }
      } finally {
        link.signal.removeEventListener("abort", onAbort);
        this.#reader = undefined;
        if (!reader.finished) this.#recordInBackground(reader, halt);
      }
    } finally {
      link.dispose();
    }
  }

  #openReader(): TurnReader {
    const started = this.#turnStartTotal !== undefined;
    const totalAtStart = this.#turnStartTotal ?? copyUsage(this.connection.usage.total);
    this.#turnStartTotal = undefined;
    return new TurnReader(this.connection.receiveSteps(), {
      // Synchronous, so no lock: nothing else can touch the state until it returns. The lock
      // orders the state methods, which only ever hold it for synchronous work too.
      record: (step) => this.#state.record(step),
      finish: async (summary: TurnSummary) => {
        if (!started && !summary.sawSteps) return; // an idle read, not a turn
        const turn = computeTurnUsage({ totalAtStart, totalAtEnd: this.connection.usage.total, stepUsages: summary.stepUsages });
        await this.#lock.runExclusive(() => this.#state.endTurn(turn));
      },
    });
  }

  #recordInBackground(reader: TurnReader, halt: Promise<void> | undefined): void {
    const background = reader.drain(halt).finally(() => {
      if (this.#background === background) this.#background = undefined;
    });
    this.#background = background;
  }

  /** Waits until no turn is being recorded in the background. */
  async #settle(signal: AbortSignal): Promise<void> {
    while (this.#background !== undefined) await raceSignal(this.#background, signal);
  }

  #assertNoStream(): void {
    if (this.#reader !== undefined) {
      throw new SdkError(ErrorCode.FailedPrecondition, "a stream is still reading the current turn: finish it or break out of it first");
    }
  }
}
