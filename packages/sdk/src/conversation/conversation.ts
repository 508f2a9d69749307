import { Mutex } from "async-mutex";
import type { Connection } from "../connection/connection.js";
import type { Turn, TurnOutcome } from "../connection/turn.js";
import type { ContinuationSecret } from "../continuation/continuation-signing.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import type { ChatResponse } from "./chat-response.js";
import type { Prompt } from "../prompt.js";
import type { Step, StreamChunk, UsageMetadata } from "../step.js";
import { abortError, linkSignal, raceSignal, throwIfAborted, type LinkedSignal } from "../util/abort.js";
import type { StandardSchemaV1 } from "../tools/standard-schema.js";
import { ChatStream, type ChatStreamHost } from "./chat-stream.js";
import { restoreSnapshot, SnapshotSaver, takeSnapshot } from "./conversation-persistence.js";
import type { ConversationSnapshot } from "./conversation-snapshot.js";
import { ConversationState } from "./conversation-state.js";
import type { ConversationStore } from "./conversation-store.js";
import { TurnPump, type PumpHost } from "./turn-pump.js";
import { TurnWatchers } from "./turn-readers.js";
import { latestTurnView, STEP_MAPPER } from "../connection/turn-view.js";
import { chunkMapper } from "./chunks.js";

/** How long an automatic halt (on abort or timeout) may take before the SDK stops waiting for it. */
const HALT_TIMEOUT_MS = 10_000;

/** History size used when `maxHistorySize` is not given. */
export const DEFAULT_MAX_HISTORY_SIZE = 10_000;

/** Options of {@link Conversation}. */
export interface ConversationOptions<Output = unknown> {
  /**
   * Validates each turn's structured output in `final()` (the agent passes its Standard Schema
   * `responseSchema`): `ChatResponse.structuredOutput` is the schema's output.
   */
  structuredOutput?: StandardSchemaV1<unknown, Output> | undefined;
  /**
   * Most steps kept in memory; older ones are dropped from the front (never separating a tool
   * call from its result). `undefined` → 10,000, `0` → unlimited.
   */
  maxHistorySize?: number | undefined;
  /**
   * Persists the conversation (seed 002): a snapshot is saved to the store after every turn —
   * finished, failed or cancelled — and after late updates of an ended turn. See {@link Conversation.load}.
   */
  store?: ConversationStore | undefined;
  /** Receives failures of the automatic saves (default `console.warn`); {@link Conversation.save} rejects instead. */
  onSaveError?: ((error: SdkError) => void) | undefined;
  /** Signs the continuation of a turn that paused on a deferred confirmation (`final().awaitingConfirmation`; docs/continuations.md). */
  continuationSecret?: ContinuationSecret | undefined;
  /** Told how each turn ended, as it ends (before its readers see the end): the agent closes a session whose turn paused. */
  onTurnEnded?: ((outcome: TurnOutcome) => void) | undefined;
}

/** Options of {@link Conversation.history}. */
export interface HistoryOptions {
  /** At most this many of the newest steps, starting where no tool call is cut from its result. */
  last?: number;
}

/**
 * A stateful session over a {@link Connection} (seed 000): step history, turn and compaction
 * indices, token usage, and chat as a {@link ChatStream}. Construct it with
 * `new Conversation(connection, options)`; it observes every turn of the connection.
 *
 * Every turn — sent by `chat`/`send`, or started by the harness on its own (a trigger) — is
 * recorded into history as its steps arrive, whether or not anyone reads it. `chat()` sends at
 * once and returns the turn as a stream whose views (chunks, steps, events, `final()`, SSE bytes)
 * are independent cursors over the turn. A new prompt goes out when the running turn is over.
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
export class Conversation<Output = unknown> implements AsyncDisposable {
  /** The underlying connection. */
  readonly connection: Connection;
  readonly #state: ConversationState;
  readonly #lock = new Mutex();
  readonly #host: PumpHost & ChatStreamHost;
  /** The latest turn, running or over. */
  #latest: TurnPump | undefined;
  /** The latest turn while its usage may still grow with late reports (§14); cleared by `clearHistory`. */
  #revisable: TurnPump | undefined;
  /** The pump of each turn, by the `Turn` the connection reported and `send()` returns. */
  readonly #pumps = new WeakMap<Turn, TurnPump>();
  /** Sends whose prompt has not gone out yet (`waitForIdle` waits for them). */
  readonly #sending = new Set<Promise<unknown>>();
  readonly #watchers = new TurnWatchers();
  readonly #saver: SnapshotSaver | undefined;

  constructor(connection: Connection, options: ConversationOptions<Output> = {}) {
    const max = options.maxHistorySize ?? DEFAULT_MAX_HISTORY_SIZE;
    if (!Number.isSafeInteger(max) || max < 0) {
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `maxHistorySize must be an integer >= 0 (0 = unlimited), got ${String(max)}`,
      );
    }
    this.connection = connection;
    this.#state = new ConversationState(max);
    this.#host = {
      state: this.#state,
      usageTotal: () => this.connection.usage.total,
      halt: (pump) => this.#halt(pump),
      totalUsage: () => this.totalUsage(),
      changed: () => this.#saver?.schedule(),
      structuredOutput: options.structuredOutput,
      continuationSecret: options.continuationSecret,
      ended: options.onTurnEnded,
    };
    this.#saver =
      options.store === undefined
        ? undefined
        : new SnapshotSaver({ store: options.store, onSaveError: options.onSaveError }, () => this.snapshot());
    // §5: a resumed session starts with the steps the harness replayed (its prompts count as turns).
    this.#state.replay(connection.initialHistory);
    connection.observeTurns({ turnStarted: (turn) => this.#onTurn(turn) });
    // After a reconnect (docs/runtimes.md "Reconnect") the replay merges by step id: nothing lost or doubled.
    connection.onResumed?.((history) => {
      this.#state.replay(history);
      this.#saver?.schedule();
    });
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
   * Resolves once no turn runs (upstream `Conversation`/`Connection.wait_for_idle`): waits for
   * the current turn — one sent here or one the harness started on its own, such as a trigger's —
   * and for the prompts already queued behind it. A failed or cancelled turn counts as over.
   * Bounded by `signal`/`timeoutMs` (`Canceled` / `DeadlineExceeded`); cancels nothing.
   */
  async waitForIdle(options?: CallOptions): Promise<void> {
    const link = linkSignal(options);
    try {
      for (;;) {
        throwIfAborted(link.signal);
        if (this.#sending.size > 0) await raceSignal(Promise.allSettled([...this.#sending]), link.signal);
        const running = this.#latest;
        if (running !== undefined && !running.turn.settled) await raceSignal(running.turn.over(), link.signal);
        else if (this.#sending.size === 0) return;
      }
    } finally {
      link.dispose();
    }
  }

  /**
   * Sends `prompt` — at once, or when the running turn is over — and returns its turn as a
   * {@link ChatStream}. The turn is recorded whether or not the stream is read. Failures come
   * through the stream's views: `InvalidArgument` for a blank prompt, the turn's `SdkError`, and
   * `Canceled` / `DeadlineExceeded` when `signal` / `timeoutMs` (which bound the whole turn)
   * cancel it. An already-aborted signal sends nothing.
   */
  chat(prompt: Prompt, options?: CallOptions): ChatStream<Output> {
    const controller = new AbortController();
    let link: LinkedSignal | undefined;
    try {
      // Without a signal or a deadline there is nothing to link (and one AbortController less per turn).
      link = options?.signal === undefined && options?.timeoutMs === undefined ? undefined : linkSignal(options);
      if (link?.signal.aborted === true) controller.abort(abortError(link.signal));
    } catch (error) {
      controller.abort(SdkError.from(error));
    }
    const started = this.#begin(prompt, controller.signal);
    const stream = new ChatStream<Output>(started, controller, this.#host);
    if (link !== undefined) {
      const linked = link;
      if (!linked.signal.aborted)
        linked.signal.addEventListener("abort", () => void stream.abort(abortError(linked.signal)), { once: true });
      started.then((pump) => pump.turn.over()).then(linked.dispose, linked.dispose);
    }
    return stream;
  }

  /** `chat(prompt, options).final()`: the whole turn, once it is over. */
  chatToCompletion(prompt: Prompt, options?: CallOptions): Promise<ChatResponse<Output>> {
    return this.chat(prompt, options).final();
  }

  /**
   * Sends a prompt — when the running turn is over — without reading its turn: follow with
   * {@link receiveSteps} or {@link receiveChunks}. Resolves once the prompt went out. Throws
   * `InvalidArgument` for a blank prompt; sends nothing when the signal is already aborted.
   */
  async send(prompt: Prompt, options?: CallOptions): Promise<void> {
    const link = linkSignal(options);
    try {
      await this.#begin(prompt, link.signal);
    } finally {
      link.dispose();
    }
  }

  /**
   * The step updates of the current turn (the running one, else the last), from its first step,
   * ending with the turn. Aborting (`signal`, `timeoutMs`) stops this reader, as on a
   * `Connection`; the turn runs on (cancel it with {@link cancel} or `ChatStream.abort()`).
   * Breaking out only leaves this reader.
   */
  receiveSteps(options?: CallOptions): AsyncIterable<Step> {
    return latestTurnView(
      () => this.#latest,
      () => STEP_MAPPER,
      options,
    );
  }

  /** {@link receiveSteps} turned into chunks by the seed 000 rules. */
  receiveChunks(options?: CallOptions): AsyncIterable<StreamChunk> {
    return latestTurnView(() => this.#latest, chunkMapper, options);
  }

  /**
   * Every turn as it starts — the running one first, if any — including turns nobody sent (a
   * trigger's), until `signal` aborts (`Canceled`), the loop is left, or the conversation is
   * disconnected. Each is a {@link ChatStream} over that turn.
   */
  turns(options?: { signal?: AbortSignal }): AsyncIterable<ChatStream<Output>> {
    return {
      [Symbol.asyncIterator]: () => {
        const running = this.#latest?.turn.settled === false ? this.#streamOf(this.#latest) : undefined;
        // The watchers hold this conversation's streams (#streamOf), typed by its Output.
        return this.#watchers.watch(running, options) as AsyncIterator<ChatStream<Output>, undefined>;
      },
    };
  }

  /**
   * Cancels the running turn (protocol §13 `haltRequest`): its views end at once with `Canceled`,
   * history keeps every step received, calls left without a result are closed as `(cancelled)`.
   * Resolves when the harness reports the turn over (bounded by `signal`/`timeoutMs`); does
   * nothing when no turn runs.
   */
  cancel(options?: CallOptions): Promise<void> {
    return this.#cancel(false, options);
  }

  /** {@link cancel}, then removes the turn — its prompt and every step — from this client's history (seed 002). */
  cancelIncludingUser(options?: CallOptions): Promise<void> {
    return this.#cancel(true, options);
  }

  /**
   * A copy of the retained steps, oldest first, one entry per step id (its newest update). With
   * `last`, at most the newest `last` steps, starting where no tool call is separated from its
   * result (so possibly fewer).
   */
  history(options?: HistoryOptions): Promise<Step[]> {
    const last = options?.last;
    if (last !== undefined && (!Number.isSafeInteger(last) || last < 0)) {
      return Promise.reject(
        new SdkError(ErrorCode.InvalidArgument, `history({ last }) takes an integer >= 0, got ${String(last)}`),
      );
    }
    return this.#lock.runExclusive(() => this.#state.history(last));
  }

  /** Turns started since the last {@link clearHistory} (triggers' turns too); trimming old steps does not lower it. */
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
    return this.#lock.runExclusive(() => {
      this.#reviseLastTurn();
      return this.#state.totalUsage(this.connection.usage.total);
    });
  }

  /** Usage of the last finished turn, including usage reported after it ended; `undefined` before one ended. */
  lastTurnUsage(): Promise<UsageMetadata | undefined> {
    return this.#lock.runExclusive(() => {
      this.#reviseLastTurn();
      return this.#state.lastTurnUsage();
    });
  }

  /** Forgets steps, turns, compaction indices and usage; later usage counts from now. */
  clearHistory(): Promise<void> {
    return this.#lock.runExclusive(() => {
      this.#revisable = undefined;
      this.#state.clear(this.connection.usage.total);
    });
  }

  /**
   * The conversation as a versioned, JSON-serialisable value: history, turn and compaction
   * indices, usage (see {@link ConversationSnapshot}). A deep copy: later turns never change it.
   */
  snapshot(): Promise<ConversationSnapshot> {
    return this.#lock.runExclusive(() => {
      this.#reviseLastTurn();
      return takeSnapshot(this.#state, this.conversationId, this.connection.usage.total);
    });
  }

  /**
   * Saves a snapshot to the `store` now, after the saves already requested (the automatic ones
   * run after every turn). Rejects with the store's `SdkError`; `FailedPrecondition` without a store.
   */
  async save(): Promise<void> {
    if (this.#saver === undefined)
      throw new SdkError(
        ErrorCode.FailedPrecondition,
        "this conversation has no store: pass `store` in its options (or use Conversation.load)",
      );
    await this.#saver.save();
  }

  /**
   * A conversation over `connection` that continues from `snapshot` (from {@link snapshot}, a
   * store, or JSON): its history, turns and usage, then the steps the harness replayed when it
   * resumed the session (§5) recorded over them. Steps left running (the process died mid-turn)
   * are closed as ERROR `(cancelled)`. Throws `InvalidArgument` for an invalid snapshot and
   * `FailedPrecondition` when it is of another conversation than the connection's session.
   *
   * @example
   * const conversation = Conversation.restore(connection, JSON.parse(saved));
   */
  static restore<Output = unknown>(
    connection: Connection,
    snapshot: ConversationSnapshot,
    options: ConversationOptions<Output> = {},
  ): Conversation<Output> {
    const conversation = new Conversation<Output>(connection, options);
    restoreSnapshot(conversation.#state, connection, snapshot);
    return conversation;
  }

  /**
   * The conversation of `connection`'s session from `options.store`: restored when the store
   * holds it (see {@link restore}), else new; either way saved to the store after every turn.
   *
   * @example
   * const conversation = await Conversation.load(connection, { store: createMemoryConversationStore() });
   */
  static async load<Output = unknown>(
    connection: Connection,
    options: ConversationOptions<Output> & { store: ConversationStore },
  ): Promise<Conversation<Output>> {
    const snapshot = connection.conversationId === "" ? undefined : await options.store.load(connection.conversationId);
    return snapshot === undefined
      ? new Conversation(connection, options)
      : Conversation.restore(connection, snapshot, options);
  }

  /**
   * Closes the connection (idempotent): a running turn ends with `ConnectionClosed`, `turns()`
   * loops end. With a store, resolves after the last automatic save.
   */
  async disconnect(options?: CallOptions): Promise<void> {
    this.#watchers.end();
    try {
      await this.connection.disconnect(options);
    } finally {
      if (this.#saver !== undefined) {
        await this.#latest?.turn.over();
        await this.#saver.settled();
      }
    }
  }

  /** `await using` support: {@link disconnect}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /** The connection started a turn: record it from its first step. */
  #onTurn(turn: Turn): void {
    const previous = this.#revisable;
    if (previous?.turn.settled === true) this.#state.endTurn(previous.usage(), true); // late usage of the previous turn (§14)
    const pump = new TurnPump(turn, this.#host);
    this.#latest = pump;
    this.#revisable = pump;
    this.#pumps.set(turn, pump);
    this.#watchers.push(() => this.#streamOf(pump));
  }

  /**
   * Sends `prompt` through the connection — its queue is the one gate: prompts go out in call
   * order, each once the running turn is over (upstream's `send()` drains an unfinished turn
   * first) — and returns the pump of the turn it started.
   */
  async #begin(prompt: Prompt, signal: AbortSignal): Promise<TurnPump> {
    let sent: Promise<Turn> | undefined;
    try {
      throwIfAborted(signal);
      sent = this.connection.send(prompt, { signal });
      this.#sending.add(sent);
      const turn = await sent;
      const pump = this.#pumps.get(turn);
      if (pump === undefined)
        throw new SdkError(
          ErrorCode.Internal,
          "the connection sent the prompt but reported no turn for it: a Connection must report each turn to its observer (observeTurns) before send() resolves",
        );
      return pump;
    } catch (error) {
      throw SdkError.from(error);
    } finally {
      if (sent !== undefined) this.#sending.delete(sent);
    }
  }

  #streamOf(pump: TurnPump): ChatStream<Output> {
    return new ChatStream<Output>(Promise.resolve(pump), new AbortController(), this.#host);
  }

  async #cancel(remove: boolean, options: CallOptions | undefined): Promise<void> {
    const link = linkSignal(options);
    try {
      const pump = this.#latest;
      if (pump === undefined || pump.turn.settled) return;
      pump.cancel(
        new SdkError(
          ErrorCode.Canceled,
          remove ? "the turn was cancelled by cancelIncludingUser()" : "the turn was cancelled by cancel()",
        ),
        remove,
      );
      await raceSignal(pump.turn.over(), link.signal);
    } finally {
      link.dispose();
    }
  }

  /** Asks the harness to halt `pump`'s turn while it is the running one (§13). Failures are moot: the turn ends anyway. */
  #halt(pump: TurnPump): void {
    if (pump !== this.#latest || pump.turn.settled) return;
    this.connection.halt({ timeoutMs: HALT_TIMEOUT_MS }).catch(() => undefined);
  }

  /** The last turn's usage may have grown since it ended (a usage report after the idle, §14). */
  #reviseLastTurn(): void {
    const pump = this.#revisable;
    if (pump?.turn.settled === true) this.#state.endTurn(pump.usage(), true);
  }
}
