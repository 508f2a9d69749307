import { UsageMark, type Turn } from "../connection/turn.js";
import { STEP_MAPPER, TurnView, type ViewMapper, type ViewSource } from "../connection/turn-view.js";
import { ErrorCode, SdkError } from "../errors.js";
import { emptyUsage, StepType } from "../step.js";
import type { ChatResponse, ModelCallText } from "./chat-response.js";
import type { Step, StopReason, StreamChunk, UsageMetadata } from "../step.js";
import { eventMapper, type ChatEvent } from "./chat-events.js";
import { chunkMapper, stepToChunks } from "./chunks.js";
import { serverSentEvents } from "./server-sent-events.js";
import { validateWithSchema, type StandardSchemaV1 } from "../tools/standard-schema.js";
import type { TurnPump } from "./turn-pump.js";
import type { ContinuationSecret } from "../continuation/continuation-signing.js";
import { definedProperties } from "../defined-properties.js";
import type { UIMessageChunk, UIMessageStreamOptions, UIMessageStreamResponseOptions } from "./ui-message-stream.js";

/** What a {@link ChatStream} needs from its conversation. */
export interface ChatStreamHost {
  /** `conversation.totalUsage()`, for `ChatResponse.usageMetadata`. */
  totalUsage(): Promise<UsageMetadata>;
  /** Validates `ChatResponse.structuredOutput` (the agent's Standard Schema `responseSchema`). */
  readonly structuredOutput?: StandardSchemaV1 | undefined;
  /** Signs the continuation of a paused turn. */
  readonly continuationSecret?: ContinuationSecret | undefined;
}

/** What {@link ChatStream.accepted} resolves with. */
export interface AcceptedTurn {
  /** The turn's position in the conversation, from 0 (turns since the last clear). */
  readonly turnIndex: number;
  /** The same object for every stream of this turn (`chat()`'s, `turns()`'s): compare turns with it. */
  readonly key: object;
}

/** How a turn ended, as {@link ChatStream.outcome} reports it (never a rejection). */
export interface TurnSummary {
  /** False when the prompt never went out (then `error` says why, and nothing else is set). */
  readonly sent: boolean;
  /** As in {@link AcceptedTurn}. */
  readonly turnIndex?: number;
  readonly key?: object;
  /** The turn's usage. */
  readonly usage?: UsageMetadata;
  /** Why the harness stopped it early (budget or quota, §16). */
  readonly stopReason?: StopReason;
  /** Why it failed: `Canceled` after `abort()` or a halt, the turn's error, or why the prompt never went out. */
  readonly error?: SdkError;
}

/** Options of {@link ChatStream.events}. */
export interface EventsOptions {
  /**
   * Keep reading after `abort()` (or a cancel) to the turn's end as the harness reports it, so an
   * interrupted turn shows everything it produced (a streaming session's view). Default false:
   * the view ends at once with `Canceled`.
   */
  throughCancel?: boolean;
}

/**
 * One turn of a conversation, as `conversation.chat()` returns it. The conversation records the
 * turn whether or not anyone reads this object; every way of reading it is an independent view
 * from the turn's start, and any number can be read at once:
 *
 * - `for await (const chunk of stream)`: seed 000's chunks (`thought`, `text`, `toolCall`);
 * - `steps()`: the raw step updates; `events()`: typed {@link ChatEvent}s for UIs;
 * - `final()`: the whole {@link ChatResponse} once the turn is over;
 * - `toReadableStream()`: the events as server-sent-event bytes.
 *
 * A view throws the turn's `SdkError` after its last item. Leaving a view early releases only
 * that view. `abort()` (or the `signal`/`timeoutMs` given to `chat()`) cancels the turn: every
 * view ends at once with `Canceled` (or `DeadlineExceeded`), the harness is asked to halt, and
 * the turn's steps and usage are still recorded until the harness reports it over.
 *
 * @example
 * const stream = conversation.chat("Explain monads");
 * for await (const chunk of stream) if (chunk.type === "text") process.stdout.write(chunk.text);
 * const { usageMetadata } = await stream.final();
 */
export class ChatStream<Output = unknown> implements AsyncIterable<StreamChunk> {
  readonly #started: Promise<TurnPump>;
  readonly #source: Promise<ViewSource>;
  readonly #controller: AbortController;
  readonly #host: ChatStreamHost;
  #pump: TurnPump | undefined;
  #final: Promise<ChatResponse<Output>> | undefined;

  /**
   * @internal Made by `Conversation`. `started` resolves with the turn's pump once the prompt is
   * sent; `controller` aborts the sending (its abort rejects `started`).
   */
  constructor(started: Promise<TurnPump>, controller: AbortController, host: ChatStreamHost) {
    this.#controller = controller;
    this.#host = host;
    this.#started = started.then((pump) => {
      this.#pump = pump;
      // Aborted while the prompt was going out: the turn exists now, cancel it.
      if (controller.signal.aborted) pump.cancel(SdkError.from(controller.signal.reason, ErrorCode.Canceled));
      return pump;
    });
    this.#started.catch(() => undefined); // nobody may read this stream; its views report the failure
    this.#source = this.#started.then((pump) => ({ turn: pump.turn, interrupt: pump.interrupt }));
    this.#source.catch(() => undefined);
  }

  /**
   * Resolves once the harness took the turn's prompt — its first step arrived, or it ended — with
   * the turn's index and identity. Rejects when the prompt never went out, or when the harness
   * refused it (the turn ended before any step with an error of its own, not a cancel's).
   */
  async accepted(): Promise<AcceptedTurn> {
    const pump = await this.#started;
    const turn = pump.turn;
    while (turn.size === 0 && !turn.settled) await turn.changed();
    const error = turn.outcome?.error;
    if (turn.size === 0 && error !== undefined && error.code !== ErrorCode.Canceled) throw error;
    return { turnIndex: pump.index, key: turn };
  }

  /**
   * How the turn ended, once the harness reports it over — after `abort()` too, whose halt the
   * harness confirms. Never rejects: a prompt that never went out resolves `{ sent: false, error }`.
   */
  async outcome(): Promise<TurnSummary> {
    let pump: TurnPump;
    try {
      pump = await this.#started;
    } catch (error) {
      return { sent: false, error: SdkError.from(error) };
    }
    const outcome = await pump.turn.over();
    return {
      sent: true,
      turnIndex: pump.index,
      key: pump.turn,
      usage: pump.usage().usage,
      ...definedProperties({ stopReason: outcome.stopReason, error: outcome.error }),
    };
  }

  /** A view of the turn's chunks (seed 000), from its start. */
  [Symbol.asyncIterator](): AsyncIterator<StreamChunk, undefined> {
    return this.#view(chunkMapper());
  }

  /**
   * A view of the turn's raw step updates, from its start. With `throughCancel` it reads on after
   * `abort()` to the turn's end as the harness reports it (as {@link events} does), so a halted
   * turn shows every step its history keeps.
   */
  steps(options: EventsOptions = {}): AsyncIterableIterator<Step, undefined> {
    if (options.throughCancel !== true) return this.#view(STEP_MAPPER);
    return new TurnView(
      this.#started.then((pump) => ({ turn: pump.turn })),
      STEP_MAPPER,
    );
  }

  /** A view of the turn as {@link ChatEvent}s, from its start, ending with `turnComplete`. */
  events(options: EventsOptions = {}): AsyncIterableIterator<ChatEvent, undefined> {
    let events: ViewMapper<ChatEvent> | undefined; // needs the pump: made when the turn has started
    const source = this.#started.then((pump) => {
      events = eventMapper(pump);
      return options.throughCancel === true ? { turn: pump.turn } : { turn: pump.turn, interrupt: pump.interrupt };
    });
    return new TurnView(source, {
      map: (entry, out) => events?.map(entry, out),
      end: (outcome, out) => events?.end?.(outcome, out),
    });
  }

  /**
   * The whole turn once it is over: text and thinking (the chunks' deltas), one step per id in
   * its newest state, structured output, stop reason, the turn's usage and the conversation's after it.
   * Rejects like the views. The same promise every call. With a Standard Schema `responseSchema`
   * the structured output is the schema's validated output; output it refuses rejects with
   * `ExecutionError` (`details`: `issues`, and `response` holding the unvalidated output).
   */
  final(): Promise<ChatResponse<Output>> {
    this.#final ??= this.#settle().then(async (turn) => {
      const pump = this.#pump;
      const response = await validatedOutput<Output>(
        chatResponse(turn, await this.#host.totalUsage(), pump?.usage().usage ?? emptyUsage()),
        this.#host.structuredOutput,
      );
      const paused = turn.outcome?.awaitingConfirmation;
      if (paused !== undefined && pump !== undefined) {
        // Loaded when a turn pauses (a dynamic import): an app that never defers does not download it.
        const { continuationOf } = await import("./paused-turn.js");
        response.awaitingConfirmation = await continuationOf(
          {
            paused,
            turnIndex: pump.index,
            steps: response.steps,
            text: response.text,
            totalUsage: response.usageMetadata,
            turnUsage: response.turnUsage,
            ...definedProperties({ stopReason: response.stopReason }),
          },
          this.#host.continuationSecret,
        );
      }
      return response;
    });
    return this.#final;
  }

  /**
   * Cancels the turn (protocol §13 `haltRequest`): every view ends at once with `Canceled` (or
   * `reason`), history keeps every step received, client tools see their signal abort, and
   * calls left without a result are closed as `(cancelled)`. Before the prompt went out, nothing
   * is sent. After the turn is over it does nothing. Resolves once the turn is over (never rejects).
   */
  abort(reason?: unknown): Promise<void> {
    const error =
      reason === undefined
        ? new SdkError(ErrorCode.Canceled, "the chat was aborted")
        : SdkError.from(reason, ErrorCode.Canceled);
    const pump = this.#pump;
    if (pump !== undefined) pump.cancel(error);
    else if (!this.#controller.signal.aborted) this.#controller.abort(error);
    return this.#started.then(
      (started) => started.turn.over().then(() => undefined),
      () => undefined,
    );
  }

  /**
   * The turn's {@link events} as server-sent-event bytes (see `serverSentEvents` for the exact
   * format), e.g. as the body of a Worker's `Response`. Cancelling the byte stream — the client
   * went away — aborts the turn.
   */
  toReadableStream(): ReadableStream<Uint8Array> {
    return serverSentEvents(
      this.events(),
      () => void this.abort(new SdkError(ErrorCode.Canceled, "the reader of the event stream went away")),
    );
  }

  /**
   * The turn as the AI SDK's UI message stream (the `UIMessageChunk`s of `ai` 7.x that `useChat`
   * reads): text, reasoning, one tool part per call, step boundaries, an approval request when
   * the turn pauses on a decision, `finish` with the usage as message metadata, errors. See
   * docs/ai-sdk.md. The mapping loads on first use (a dynamic import). Cancelling the stream
   * cancels the turn.
   */
  toUIMessageStream(options?: UIMessageStreamOptions): ReadableStream<UIMessageChunk> {
    const { readable, writable } = new TransformStream<UIMessageChunk, UIMessageChunk>();
    import("./ui-message-stream.js")
      .then((m) => m.uiMessageStream(this, options).pipeTo(writable))
      .catch((error: unknown) => writable.abort(error).catch(() => undefined));
    return readable;
  }

  /**
   * {@link toUIMessageStream} as the `Response` a route returns to `useChat`'s
   * `DefaultChatTransport`: server-sent events framed and headed as `ai`'s
   * `createUIMessageStreamResponse` does (`x-vercel-ai-ui-message-stream: v1`).
   *
   * @example
   * return agent.chat(prompt).toUIMessageStreamResponse();
   */
  async toUIMessageStreamResponse(options?: UIMessageStreamResponseOptions): Promise<Response> {
    const { uiMessageStreamResponse } = await import("./ui-message-stream.js");
    return uiMessageStreamResponse(this, options);
  }

  #view<T>(mapper: ViewMapper<T>): TurnView<T> {
    return new TurnView(this.#source, mapper);
  }

  /** The turn once over; rejects with the cancellation or the turn's error. */
  async #settle(): Promise<Turn> {
    const pump = await this.#started;
    const interrupted = await Promise.race([pump.turn.over().then(() => undefined), pump.interrupt.whenFired()]);
    const error = pump.interrupt.reason ?? interrupted ?? pump.turn.outcome?.error;
    if (error !== undefined) throw error;
    return pump.turn;
  }
}

/**
 * `response` with its structured output validated by `schema` (replaced by the schema's output),
 * else an `ExecutionError` listing the issues. Without a schema or an output, `response` as is.
 */
async function validatedOutput<Output>(
  response: ChatResponse,
  schema: StandardSchemaV1 | undefined,
): Promise<ChatResponse<Output>> {
  if (schema === undefined || response.structuredOutput === undefined) return response as ChatResponse<Output>;
  const result = await validateWithSchema(schema, response.structuredOutput);
  if ("value" in result) return { ...response, structuredOutput: result.value as Output };
  throw new SdkError(
    ErrorCode.ExecutionError,
    `the structured output does not match the response schema: ${result.issues.join("; ")} (the unvalidated response is in details.response)`,
    {
      details: { issues: result.issues, response },
    },
  );
}

/** A turn's {@link ChatResponse}, built from its buffer. */
function chatResponse(turn: Turn, usageMetadata: UsageMetadata, turnUsage: UsageMetadata): ChatResponse {
  const seen = new Set<string>();
  let text = "";
  let thinking = "";
  // One block per model call (a step), in the order its text first came.
  const blocks = new Map<string, ModelCallText>();
  for (let i = 0; i < turn.size; i++) {
    const entry = turn.entry(i);
    if (entry === undefined || entry instanceof UsageMark) continue;
    for (const chunk of stepToChunks(entry, seen)) {
      if (chunk.type === "text") {
        text += chunk.text;
        const key = `${entry.trajectoryId}:${entry.stepIndex}`;
        const block = blocks.get(key);
        if (block === undefined)
          blocks.set(key, { stepIndex: entry.stepIndex, trajectoryId: entry.trajectoryId, text: chunk.text });
        else block.text += chunk.text;
      } else if (chunk.type === "thought") thinking += chunk.text;
    }
  }
  const steps = turn.latestSteps();
  const response: ChatResponse = {
    text,
    textBlocks: [...blocks.values()],
    thinking,
    steps,
    usageMetadata,
    turnUsage,
  };
  for (const step of steps)
    if (step.type === StepType.Finish && step.structuredOutput !== undefined)
      response.structuredOutput = step.structuredOutput;
  const stopReason = turn.outcome?.stopReason;
  if (stopReason !== undefined) response.stopReason = stopReason;
  return response;
}
