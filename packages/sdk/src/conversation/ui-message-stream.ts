// A turn as the AI SDK's UI message stream (`ai` 7.x, the protocol `useChat` and
// `DefaultChatTransport` read). Every chunk type and field below is one of `ai`'s `UIMessageChunk`
// union (node_modules/ai/dist/index.d.ts, "ui-message-chunks"); the framing is its
// `JsonToSseTransformStream` (`data: <json>\n\n`, then `data: [DONE]\n\n`) and the headers its
// `UI_MESSAGE_STREAM_HEADERS`. Loaded lazily by `ChatStream.toUIMessageStream()`: an app that
// never speaks this protocol does not download it, and `ai` is no dependency of the core.
import { ErrorCode, SdkError } from "../errors.js";
import type { StopReason, ToolCall, UsageMetadata } from "../step.js";
import { UI_APPROVAL_DESCRIPTOR_KEY } from "../continuation/ui-approval.js";
import type { ChatEvent } from "./chat-events.js";
import type { ChatStream } from "./chat-stream.js";

/** `ai`'s `FinishReason`. */
export type UIFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other";

/** The message metadata of the `finish` chunk (and of `message-metadata` chunks: `usage` only). */
export interface UIMessageMetadata {
  /** The turn's usage so far (at `finish`: the whole turn's). */
  usage: UsageMetadata;
  /** The turn's position in the conversation (at `finish`). */
  turnIndex?: number;
  /** Why the harness stopped the turn early (§16), when it did. */
  stopReason?: StopReason;
}

/** The chunks this SDK emits: a subset of `ai`'s `UIMessageChunk<UIMessageMetadata>`, field for field. */
export type UIMessageChunk =
  | { type: "start"; messageId?: string }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | {
      type: "tool-input-available";
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerExecuted: true;
      dynamic: true;
    }
  | { type: "tool-output-available"; toolCallId: string; output: unknown; providerExecuted: true; dynamic: true }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; providerExecuted: true; dynamic: true }
  | { type: "tool-output-denied"; toolCallId: string }
  | {
      type: "tool-approval-request";
      approvalId: string;
      toolCallId: string;
      approvalDescriptor: Record<string, unknown>;
    }
  | { type: "message-metadata"; messageMetadata: UIMessageMetadata }
  | { type: "finish"; finishReason: UIFinishReason; messageMetadata: UIMessageMetadata }
  | { type: "abort"; reason?: string }
  | { type: "error"; errorText: string };

/** Options of `ChatStream.toUIMessageStream()` and `toUIMessageStreamResponse()`. */
export interface UIMessageStreamOptions {
  /**
   * The page's answer this stream resumes (`approvalFromUIMessages(messages).decision`): the
   * answered call's tool part is continued rather than repeated, and a refusal shows as
   * `tool-output-denied`.
   */
  resumed?: { toolCallId: string; approved: boolean };
  /** The `messageId` of the `start` chunk (default none: the page names the message). */
  messageId?: string;
  /**
   * The text of the `error` chunk a failed turn ends with. Default, as `ai`'s own: `"An error
   * occurred."` — error messages can name hosts and paths the page should not see.
   */
  onError?: (error: SdkError) => string;
}

/** Options of `ChatStream.toUIMessageStreamResponse()`. */
export interface UIMessageStreamResponseOptions extends UIMessageStreamOptions {
  status?: number;
  statusText?: string;
  /** Added to (and overriding) {@link UI_MESSAGE_STREAM_HEADERS}. */
  headers?: Record<string, string>;
}

/** The headers of a UI message stream response, as `ai`'s `UI_MESSAGE_STREAM_HEADERS`. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/** The approval id of a paused call: one approval per call. */
function approvalIdOf(toolCallId: string): string {
  return `approval:${toolCallId}`;
}

/** `ai`'s finish reason for how a turn ended: paused on a decision = tool calls; a budget stop = length or other. */
function finishReason(stopReason: StopReason | undefined, paused: boolean): UIFinishReason {
  if (paused) return "tool-calls";
  if (stopReason === undefined) return "stop";
  return stopReason === "MAX_OUTPUT_TOKENS_EXCEEDED" ? "length" : "other";
}

/**
 * The UI message chunks of a turn, from its {@link ChatEvent}s:
 *
 * - `start`, then per model call `start-step` … `finish-step` (a call ends where its usage is
 *   reported after tool activity, or where text follows tool activity or comes from another
 *   step), then `finish` with the
 *   turn's usage as `messageMetadata` (and `message-metadata` with the usage so far each time
 *   the harness reports it);
 * - `thought` deltas as a reasoning part and `text` deltas as a text part (`*-start`, `*-delta`,
 *   `*-end`), closed when anything else comes;
 * - one tool part per call, harness and client tools alike (a client tool's synthetic steps are
 *   paired with its call by `events()`): `tool-input-available` (`dynamic`, `providerExecuted`:
 *   the server runs it, the page only shows it), then `tool-output-available` or
 *   `tool-output-error`;
 * - a turn paused on a decision (`deferToUser`, a confirmation left to the user): a
 *   `tool-approval-request` whose `approvalDescriptor` carries the signed continuation, and
 *   `finish` with reason `tool-calls`;
 * - a failed turn: `error`; a turn cancelled on the server: `abort`.
 *
 * Cancelling the stream (the page stopped, or went away) cancels the turn.
 */
export function uiMessageStream(
  stream: ChatStream,
  options: UIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  const events = stream.events();
  const mapper = new UIMessageMapper(options);
  let done = false;
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      controller.enqueue(
        options.messageId === undefined ? { type: "start" } : { type: "start", messageId: options.messageId },
      );
    },
    async pull(controller) {
      const out: UIMessageChunk[] = [];
      try {
        while (out.length === 0 && !done) {
          const next = await events.next();
          if (next.done === true) done = true;
          else if (next.value.type === "awaitingConfirmation") {
            const paused = (await stream.final()).awaitingConfirmation;
            mapper.awaiting(next.value.toolCall, paused?.continuation, out);
          } else mapper.map(next.value, out);
        }
      } catch (error) {
        done = true;
        mapper.fail(SdkError.from(error), out);
      }
      for (const chunk of out) controller.enqueue(chunk);
      if (done) controller.close();
    },
    async cancel() {
      done = true;
      await events.return?.();
      void stream.abort(new SdkError(ErrorCode.Canceled, "the reader of the UI message stream went away"));
    },
  });
}

/** Folds {@link ChatEvent}s into {@link UIMessageChunk}s; one per stream (it tracks open parts and steps). */
class UIMessageMapper {
  readonly #options: UIMessageStreamOptions;
  #stepOpen = false;
  /** A tool was called or answered in the open step: the next model output belongs to the next call. */
  #toolActivity = false;
  /** The step index of the open step's model output (text and thinking of one call share it). */
  #modelStep: number | undefined;
  #part: { kind: "text" | "reasoning"; id: string } | undefined;
  #parts = 0;
  #paused = false;

  constructor(options: UIMessageStreamOptions) {
    this.#options = options;
  }

  map(event: ChatEvent, out: UIMessageChunk[]): void {
    switch (event.type) {
      case "thought":
      case "text": {
        // Another model call: after tool activity, or text of another step (issue 26 item 3: the
        // calls' text is not glued).
        if (this.#toolActivity || (this.#modelStep !== undefined && this.#modelStep !== event.stepIndex))
          this.#endStep(out);
        this.#openStep(out);
        this.#modelStep = event.stepIndex;
        const kind = event.type === "text" ? "text" : "reasoning";
        if (this.#part?.kind !== kind) {
          this.#closePart(out);
          this.#part = { kind, id: `${kind}-${this.#parts++}` };
          out.push({ type: `${kind}-start`, id: this.#part.id });
        }
        out.push({ type: `${kind}-delta`, id: this.#part.id, delta: event.text });
        return;
      }
      case "toolCall":
        if (event.toolCall.id === this.#options.resumed?.toolCallId) return; // the page shows this call already
        this.#toolStep(out);
        out.push({
          type: "tool-input-available",
          toolCallId: event.toolCall.id,
          toolName: event.toolCall.name,
          input: event.toolCall.args,
          providerExecuted: true,
          dynamic: true,
        });
        return;
      case "toolResult":
        this.#toolStep(out);
        out.push({
          type: "tool-output-available",
          toolCallId: event.toolCall.id,
          output: event.result ?? null,
          providerExecuted: true,
          dynamic: true,
        });
        return;
      case "toolError": {
        this.#toolStep(out);
        const resumed = this.#options.resumed;
        if (resumed !== undefined && !resumed.approved && resumed.toolCallId === event.toolCall.id)
          out.push({ type: "tool-output-denied", toolCallId: event.toolCall.id });
        else
          out.push({
            type: "tool-output-error",
            toolCallId: event.toolCall.id,
            errorText: event.error,
            providerExecuted: true,
            dynamic: true,
          });
        return;
      }
      case "usage":
        if (this.#toolActivity) this.#endStep(out);
        out.push({ type: "message-metadata", messageMetadata: { usage: event.usage } });
        return;
      case "turnComplete": {
        this.#endStep(out);
        const metadata: UIMessageMetadata = { usage: event.usage, turnIndex: event.turnIndex };
        if (event.stopReason !== undefined) metadata.stopReason = event.stopReason;
        out.push({
          type: "finish",
          finishReason: finishReason(event.stopReason, this.#paused),
          messageMetadata: metadata,
        });
        return;
      }
      default:
        return; // permissionRequest: a confirmation the server answers is not the page's to answer
    }
  }

  /** The turn paused on `call`: ask the page, carrying the continuation that resumes it. */
  awaiting(call: ToolCall, continuation: unknown, out: UIMessageChunk[]): void {
    this.#toolStep(out);
    this.#paused = true;
    out.push({
      type: "tool-approval-request",
      approvalId: approvalIdOf(call.id),
      toolCallId: call.id,
      approvalDescriptor: { [UI_APPROVAL_DESCRIPTOR_KEY]: continuation },
    });
  }

  fail(error: SdkError, out: UIMessageChunk[]): void {
    this.#closePart(out);
    if (error.code === ErrorCode.Canceled) out.push({ type: "abort", reason: error.message });
    else out.push({ type: "error", errorText: this.#options.onError?.(error) ?? "An error occurred." });
  }

  #toolStep(out: UIMessageChunk[]): void {
    this.#closePart(out);
    this.#openStep(out);
    this.#toolActivity = true;
  }

  #openStep(out: UIMessageChunk[]): void {
    if (this.#stepOpen) return;
    out.push({ type: "start-step" });
    this.#stepOpen = true;
    this.#toolActivity = false;
  }

  #endStep(out: UIMessageChunk[]): void {
    this.#closePart(out);
    if (this.#stepOpen) out.push({ type: "finish-step" });
    this.#stepOpen = false;
    this.#toolActivity = false;
    this.#modelStep = undefined;
  }

  #closePart(out: UIMessageChunk[]): void {
    if (this.#part === undefined) return;
    out.push({ type: `${this.#part.kind}-end`, id: this.#part.id });
    this.#part = undefined;
  }
}

/** {@link uiMessageStream} framed as `ai` frames it: `data: <chunk JSON>\n\n` per chunk, then `data: [DONE]\n\n`. */
export function uiMessageStreamBytes(chunks: ReadableStream<UIMessageChunk>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return chunks.pipeThrough(
    new TransformStream<UIMessageChunk, Uint8Array>({
      transform: (chunk, controller) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)),
      flush: (controller) => controller.enqueue(encoder.encode("data: [DONE]\n\n")),
    }),
  );
}

/** A `Response` of the turn's UI message stream, as `ai`'s `createUIMessageStreamResponse` makes one. */
export function uiMessageStreamResponse(stream: ChatStream, options: UIMessageStreamResponseOptions = {}): Response {
  const { status, statusText, headers, ...streamOptions } = options;
  const init: ResponseInit = {
    headers: { ...UI_MESSAGE_STREAM_HEADERS, ...headers },
    ...(status === undefined ? {} : { status }),
    ...(statusText === undefined ? {} : { statusText }),
  };
  return new Response(uiMessageStreamBytes(uiMessageStream(stream, streamOptions)), init);
}
