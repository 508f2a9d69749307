import type { ChatStream } from "../conversation/chat-stream.js";
import type { TurnCompleteEvent } from "../conversation/chat-events.js";
import type { Conversation } from "../conversation/conversation.js";
import { assertPromptNotBlank } from "../prompt.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { Prompt } from "../prompt.js";
import { emptyUsage } from "../step.js";
import { AsyncQueue } from "../util/async-queue.js";
import {
  MID_TURN_SEMANTICS,
  type MessageReceipt,
  type MidTurnSemantics,
  type SessionEvent,
  type StreamingSessionCapabilities,
  type TurnResultEvent,
} from "./session-events.js";

/** Options of `agent.streamingSession()`. */
export interface StreamingSessionOptions {
  /** What a message sent while a turn runs does (default `"queue"`). */
  midTurn?: MidTurnSemantics | undefined;
}

/** A message the session accepted, until its turn's `result` is out. */
interface Message {
  readonly index: number;
  readonly stream: ChatStream;
  /** Its turn's identity (`ChatStream.accepted().key`), once the harness took the prompt. */
  key?: object;
}

/**
 * A long-lived session over a started agent (seed 003): send user messages at any time, read one
 * event stream across turns. Every turn — the session's, `chat()`'s or a trigger's — yields its
 * {@link ChatEvent}s, then `turnComplete { stopReason, turnIndex, usage }` and at once a
 * `result`, also when it was interrupted or failed. A message sent while a turn runs follows
 * `capabilities.streamingInput.semantics` ({@link MidTurnSemantics}). `closeInput()` refuses
 * further messages; the event stream ends once every accepted message's turn is over, and
 * `wait()` resolves then. See docs/streaming-session.md.
 *
 * @example
 * const session = agent.streamingSession({ midTurn: "interrupt" });
 * await session.sendUserMessage("list the files");
 * for await (const event of session) {
 *   if (event.type === "text") process.stdout.write(event.text);
 *   if (event.type === "result") session.closeInput();
 * }
 */
export class StreamingSession implements AsyncIterable<SessionEvent>, AsyncDisposable {
  readonly capabilities: StreamingSessionCapabilities;
  readonly #conversation: Conversation;
  readonly #events = new AsyncQueue<SessionEvent>();
  readonly #stop = new AbortController();
  /** Accepted messages whose turn's `result` is not out yet (or that never went out). */
  readonly #open = new Set<Message>();
  /** Turns whose `result` is out, by their identity (`AcceptedTurn.key`). */
  readonly #finished = new WeakSet<object>();
  readonly #done: Promise<void>;
  #nextIndex = 0;
  /** True from a turn's start (as the session reads it) to its `turnComplete`. */
  #inTurn = false;
  #inputClosed = false;
  /** The turn being read. */
  #current: ChatStream | undefined;

  /** @internal Opened by `StartedAgent.streamingSession()`. */
  constructor(conversation: Conversation, options: StreamingSessionOptions = {}) {
    const semantics = options.midTurn ?? "queue";
    if (!MID_TURN_SEMANTICS.includes(semantics)) {
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `midTurn must be one of ${MID_TURN_SEMANTICS.join(", ")}, got ${JSON.stringify(semantics)}`,
      );
    }
    this.capabilities = Object.freeze({ streamingInput: Object.freeze({ supported: true as const, semantics }) });
    this.#conversation = conversation;
    this.#events.push({ type: "init", conversationId: conversation.conversationId, capabilities: this.capabilities });
    this.#done = this.#run();
  }

  /**
   * Sends a user message and resolves with its {@link MessageReceipt} once the harness took it:
   * its prompt went out and its turn produced a first step (or ended). Under `queue` that is at
   * the next turn boundary; the events need not be read first. Throws `InvalidArgument` for a
   * blank prompt, `FailedPrecondition` after `closeInput()` or — under `between-turns-only` —
   * while a turn runs. A message that never goes out rejects, and an `error` event says so.
   */
  sendUserMessage(prompt: Prompt): Promise<MessageReceipt> {
    try {
      if (this.#inputClosed)
        throw new SdkError(
          ErrorCode.FailedPrecondition,
          "the session's input is closed (closeInput()): open a new streaming session to send more",
        );
      assertPromptNotBlank(prompt);
      if (this.capabilities.streamingInput.semantics === "between-turns-only" && this.#busy()) {
        throw new SdkError(
          ErrorCode.FailedPrecondition,
          'a turn is running and this session takes input between turns only: wait for the turn\'s turnComplete event before sending (or open the session with midTurn "queue" or "interrupt")',
        );
      }
    } catch (error) {
      return Promise.reject(SdkError.from(error));
    }
    if (this.capabilities.streamingInput.semantics === "interrupt") this.#supersede();
    const message: Message = { index: this.#nextIndex++, stream: this.#conversation.chat(prompt) };
    this.#open.add(message);
    const receipt = this.#accept(message);
    receipt.catch(() => undefined); // reported as an `error` event too
    return receipt;
  }

  /**
   * Halts the running turn, if any (protocol §13): its partial output stays, and its
   * `turnComplete` and `result { interrupted: true }` follow. Messages waiting behind it still
   * go out. Resolves once the turn is over.
   */
  interrupt(): Promise<void> {
    const current = this.#current;
    if (current === undefined) return Promise.resolve();
    return haltWhenAccepted(current, new SdkError(ErrorCode.Canceled, "the turn was interrupted (interrupt())"));
  }

  /** The next event; `undefined` once the session is over (after `closeInput()` and the last turn). */
  async nextEvent(): Promise<SessionEvent | undefined> {
    const next = await this.#events.read();
    return next.done === true ? undefined : next.value;
  }

  /** The events, shared with {@link nextEvent} (one reader: each event is read once). Leaving the loop early does not end the session. */
  [Symbol.asyncIterator](): AsyncIterator<SessionEvent, undefined> {
    return this.#events.readerIterator();
  }

  /** Refuses further messages; the event stream ends once every accepted message's turn is over. Idempotent. */
  closeInput(): void {
    this.#inputClosed = true;
    this.#maybeFinish();
  }

  /** Resolves once the session is over: after {@link closeInput}, when the last accepted message's turn has its `result`. */
  wait(): Promise<void> {
    return this.#done;
  }

  /** `await using`: closes the input, interrupts the running turn and waits for the end. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.closeInput();
    if (this.#open.size > 0) await this.interrupt();
    await this.wait();
  }

  /** Between turns means: no turn read but not yet complete, none running, no message still waiting to go out. */
  #busy(): boolean {
    return this.#inTurn || this.#open.size > 0 || !this.#conversation.isIdle;
  }

  /**
   * `interrupt`: halt the running turn, and every earlier message's turn once the harness took
   * its prompt (a halt before that could drop the prompt from the harness's transcript).
   */
  #supersede(): void {
    const reason = new SdkError(ErrorCode.Canceled, "the turn was interrupted by a newer user message");
    const current = this.#current;
    if (current !== undefined) void haltWhenAccepted(current, reason); // also a turn the session did not send (a trigger's)
    for (const earlier of this.#open) void haltWhenAccepted(earlier.stream, reason);
  }

  async #accept(message: Message): Promise<MessageReceipt> {
    let accepted;
    try {
      accepted = await message.stream.accepted();
    } catch (error) {
      const failure = SdkError.from(error);
      // Never went out: the session reports it. Refused by the harness: its turn's `result` does.
      if (!(await message.stream.outcome()).sent) {
        this.#open.delete(message);
        this.#events.push({ type: "error", error: failure, messageIndex: message.index });
      }
      this.#maybeFinish();
      throw failure;
    }
    message.key = accepted.key;
    if (this.#finished.has(accepted.key)) this.#open.delete(message);
    this.#maybeFinish();
    return { messageIndex: message.index, turnIndex: accepted.turnIndex };
  }

  /** Forwards every turn of the conversation, in order, until the session is over. */
  async #run(): Promise<void> {
    try {
      for await (const stream of this.#conversation.turns({ signal: this.#stop.signal })) {
        this.#inTurn = true;
        this.#current = stream;
        await this.#forward(stream);
        this.#maybeFinish();
      }
    } catch (error) {
      const failure = SdkError.from(error);
      if (!this.#stop.signal.aborted) this.#events.push({ type: "error", error: failure });
    } finally {
      this.#inTurn = false;
      this.#events.end();
    }
  }

  /**
   * One turn's events to its end as the harness reports it — also after a halt, so an
   * interrupted turn shows everything it produced — then `turnComplete` and `result`.
   */
  async #forward(stream: ChatStream): Promise<void> {
    let complete: TurnCompleteEvent | undefined;
    try {
      for await (const event of stream.events({ throughCancel: true })) {
        if (event.type === "turnComplete") complete = event;
        else this.#events.push(event);
      }
    } catch {
      // The turn's error is its outcome's, reported in `result` below.
    }
    const outcome = await stream.outcome();
    if (complete === undefined) {
      complete = { type: "turnComplete", turnIndex: outcome.turnIndex ?? -1, usage: outcome.usage ?? emptyUsage() };
      if (outcome.stopReason !== undefined) complete.stopReason = outcome.stopReason;
    }
    const result: TurnResultEvent = {
      type: "result",
      turnIndex: complete.turnIndex,
      success: outcome.error === undefined,
      interrupted: outcome.error?.code === ErrorCode.Canceled,
      usage: complete.usage,
    };
    if (complete.stopReason !== undefined) result.stopReason = complete.stopReason;
    if (outcome.error !== undefined) result.error = outcome.error;
    // Before the events go out: a message sent on seeing turnComplete is between turns.
    const key = outcome.key;
    if (key !== undefined) {
      this.#finished.add(key);
      for (const message of this.#open) if (message.key === key) this.#open.delete(message);
    }
    this.#inTurn = false;
    this.#events.push(complete);
    this.#events.push(result);
  }

  /** Ends the event stream once the input is closed and every accepted message's turn is out. */
  #maybeFinish(): void {
    if (this.#inputClosed && this.#open.size === 0 && !this.#inTurn && !this.#stop.signal.aborted)
      this.#stop.abort(new SdkError(ErrorCode.Canceled, "the streaming session is over"));
  }
}

/**
 * Halts `stream`'s turn once the harness took its prompt (a halt before that could drop the
 * prompt from the harness's transcript); resolves when the turn is over.
 */
async function haltWhenAccepted(stream: ChatStream, reason: SdkError): Promise<void> {
  if (
    (await stream.accepted().then(
      () => true,
      () => false,
    )) === false
  )
    return;
  await stream.abort(reason);
}
