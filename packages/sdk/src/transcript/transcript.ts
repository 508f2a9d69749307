import type { ChatEvent } from "../conversation/chat-events.js";
import { addUsage } from "../usage.js";
import { ErrorCode, SdkError } from "../errors.js";
import { emptyUsage, type Step, type UsageMetadata } from "../step.js";
import { endTurn, foldEvent } from "./fold-events.js";
import { restoredTurns } from "./restored-turns.js";
import type { AssistantMessage, TranscriptMessage, TranscriptState } from "./transcript-types.js";

/** Options of {@link Transcript}. */
export interface TranscriptOptions {
  /** Usage before the first turn of this transcript (e.g. `await conversation.totalUsage()` after a restore). */
  usage?: UsageMetadata;
}

/** Anything whose turn can be read as {@link ChatEvent}s: a `ChatStream`. */
export interface ChatEventSource {
  events(): AsyncIterable<ChatEvent>;
}

/**
 * A headless transcript a UI can draw: folds each turn's `ChatStream.events()` into messages —
 * the user's prompt, then the agent's thinking, text and one card per tool call with its
 * arguments, state and result or error — with each turn's status and usage. No DOM, no
 * framework: read {@link state}, and {@link subscribe} to redraw on every change (it fits
 * React's `useSyncExternalStore`, a Svelte store or plain DOM code).
 *
 * @example
 * const transcript = new Transcript();
 * transcript.subscribe(draw);
 * agent.connection.onClosed?.((reason) => transcript.connectionClosed(reason)); // disconnected while idle too
 * const stream = conversation.chat(prompt);
 * stop.onclick = () => void stream.abort(); // the turn shows "stopped", not an error
 * await transcript.follow(stream, prompt);
 */
export class Transcript {
  #state: TranscriptState;
  #baseUsage: UsageMetadata;
  #nextId = 0;
  readonly #listeners = new Set<(state: TranscriptState) => void>();

  constructor(options: TranscriptOptions = {}) {
    this.#baseUsage = options.usage ?? emptyUsage();
    this.#state = { messages: [], running: false, connection: "connected", usage: this.#baseUsage };
  }

  /** The current state; a new object after each change, the same one until then. */
  get state(): TranscriptState {
    return this.#state;
  }

  /** Calls `listener` with the new state after every change; returns the function that unsubscribes. */
  subscribe(listener: (state: TranscriptState) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /**
   * Reads one turn to its end: {@link begin}, {@link apply} for each event, then {@link end}
   * with the error the stream ended with, if any. Never throws: a failed turn is in the message
   * (`status`, `error`). Returns the finished assistant message.
   */
  async follow(stream: ChatEventSource, prompt: string): Promise<AssistantMessage> {
    this.begin(prompt);
    try {
      for await (const event of stream.events()) this.apply(event);
    } catch (error) {
      return this.end(SdkError.from(error));
    }
    return this.end();
  }

  /**
   * Starts a turn: the user's message and a running assistant message. Throws
   * `FailedPrecondition` while a turn runs (one turn at a time, like a conversation).
   */
  begin(prompt: string): void {
    if (this.#state.running)
      throw new SdkError(
        ErrorCode.FailedPrecondition,
        "a turn is already running in this transcript: end() it (or await follow()) before beginning the next",
      );
    const user: TranscriptMessage = { role: "user", id: this.#id(), text: prompt };
    const agent: AssistantMessage = {
      role: "assistant",
      id: this.#id(),
      blocks: [],
      status: "running",
      usage: emptyUsage(),
    };
    this.#commit([...this.#state.messages, user, agent], true);
  }

  /** Folds one event of the running turn into its assistant message; does nothing when no turn runs. */
  apply(event: ChatEvent): void {
    const current = this.#running();
    if (current === undefined) return;
    const next = foldEvent(current, event);
    if (next !== current) this.#replaceLast(next, next.status === "running");
  }

  /**
   * Ends the running turn: `done` without `error`; with one, `stopped` for `Canceled` (the
   * user's Stop), `disconnected` for a lost connection, else `error`. Returns the message.
   */
  end(error?: unknown): AssistantMessage {
    const current = this.#running();
    const last = this.#state.messages.at(-1);
    if (current === undefined) {
      if (last?.role === "assistant") return last;
      throw new SdkError(ErrorCode.FailedPrecondition, "no turn to end: begin() one first");
    }
    const ended = endTurn(current, error);
    this.#replaceLast(ended, false);
    return ended;
  }

  /**
   * The connection closed for good (pass it to `connection.onClosed`): the transcript shows
   * `disconnected` at once, idle or not; a running turn ends `disconnected` with `reason`.
   */
  connectionClosed(reason: unknown): void {
    if (this.#state.connection === "disconnected") return;
    const error = SdkError.from(reason, ErrorCode.ConnectionClosed);
    const current = this.#running();
    let messages = this.#state.messages;
    if (current !== undefined) {
      const ended = endTurn(
        current,
        error.code === ErrorCode.Canceled
          ? new SdkError(ErrorCode.ConnectionClosed, error.message, { cause: error })
          : error,
      );
      messages = [...messages.slice(0, -1), ended];
    }
    this.#state = { ...this.#state, connection: "disconnected", disconnectReason: error };
    this.#commit(messages, false);
  }

  /**
   * Adds the turns of a restored conversation before any live turn (`history` and
   * `turnStarts` as `conversation.history()` / `turnStartIndices()` give them), each `done`.
   * Restored turns carry no usage of their own: pass the conversation's total as
   * {@link TranscriptOptions.usage}.
   */
  restore(history: readonly Step[], turnStarts: readonly number[]): void {
    if (this.#state.running)
      throw new SdkError(
        ErrorCode.FailedPrecondition,
        "restore() a transcript before its first live turn, not while a turn runs",
      );
    const added: TranscriptMessage[] = [];
    for (const turn of restoredTurns(history, turnStarts)) {
      added.push({ role: "user", id: this.#id(), text: turn.prompt });
      let agent: AssistantMessage = {
        role: "assistant",
        id: this.#id(),
        blocks: [],
        status: "running",
        usage: emptyUsage(),
      };
      for (const event of turn.events) agent = foldEvent(agent, event);
      added.push(endTurn(agent));
    }
    this.#commit([...this.#state.messages, ...added], false);
  }

  #running(): AssistantMessage | undefined {
    const last = this.#state.messages.at(-1);
    return this.#state.running && last?.role === "assistant" && last.status === "running" ? last : undefined;
  }

  #replaceLast(message: AssistantMessage, running: boolean): void {
    this.#commit([...this.#state.messages.slice(0, -1), message], running);
  }

  #commit(messages: readonly TranscriptMessage[], running: boolean): void {
    let usage = this.#baseUsage;
    for (const message of messages) if (message.role === "assistant") usage = addUsage(usage, message.usage);
    this.#state = { ...this.#state, messages, running, usage };
    for (const listener of this.#listeners) listener(this.#state);
  }

  #id(): string {
    return `m${++this.#nextId}`;
  }
}
