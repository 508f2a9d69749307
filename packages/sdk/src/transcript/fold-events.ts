import { isSyntheticToolStep } from "../connection/synthetic-steps.js";
import type { ChatEvent } from "../conversation/chat-events.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { ToolCall } from "../step.js";
import type { AssistantMessage, ToolCard, ToolCardState, TranscriptBlock, TurnStatus } from "./transcript-types.js";

/** Error codes after which the session is gone: the turn shows `disconnected`. */
const CONNECTION_LOST: ReadonlySet<string> = new Set([
  ErrorCode.ConnectionClosed,
  ErrorCode.HarnessCrashed,
  ErrorCode.Unavailable,
]);

/** The turn status an error ends a turn with: `stopped` for the user's own cancel. */
export function statusOfError(error: SdkError): Exclude<TurnStatus, "running" | "done"> {
  if (error.code === ErrorCode.Canceled) return "stopped";
  return CONNECTION_LOST.has(error.code) ? "disconnected" : "error";
}

/**
 * Folds one {@link ChatEvent} into a running assistant message; returns the same object when
 * nothing changed. `events()` already pairs each call's harness step with the SDK's synthetic
 * client-tool step (one `toolCall`, then one `toolResult` or `toolError` per call id), so every
 * call is one card whatever steps told its story. Unknown event types are ignored.
 */
export function foldEvent(message: AssistantMessage, event: ChatEvent): AssistantMessage {
  if (message.status !== "running") return message;
  switch (event.type) {
    case "thought":
      return appendText(message, "thinking", event.stepIndex, event.text);
    case "text":
      return appendText(message, "text", event.stepIndex, event.text);
    case "toolCall":
      return upsertCard(message, event.toolCall, (card) => card, true);
    case "permissionRequest":
      return event.toolCall === undefined
        ? message
        : upsertCard(message, event.toolCall, (card) => withState(card, "awaiting-approval"));
    case "awaitingConfirmation":
      return upsertCard(message, event.toolCall, (card) => withState(card, "awaiting-approval"));
    case "toolResult": {
      const client = isSyntheticToolStep(event.step);
      return upsertCard(message, event.toolCall, (card) => ({
        ...withoutOutcome(card),
        state: "done",
        result: event.result,
        client,
      }));
    }
    case "toolError": {
      const client = isSyntheticToolStep(event.step);
      return upsertCard(message, event.toolCall, (card) => ({
        ...withoutOutcome(card),
        state: "error",
        error: event.error,
        client,
      }));
    }
    case "usage":
      return { ...message, usage: event.usage };
    case "turnComplete": {
      const done: AssistantMessage = { ...message, status: "done", turnIndex: event.turnIndex, usage: event.usage };
      return event.stopReason === undefined ? done : { ...done, stopReason: event.stopReason };
    }
    default:
      return message;
  }
}

/**
 * Ends a running message: `done` without an error, else the status of the error (see
 * {@link statusOfError}). Calls still running or waiting for approval become `cancelled`;
 * after a normal end a call waiting for approval stays so (the turn paused on it).
 */
export function endTurn(message: AssistantMessage, error?: unknown): AssistantMessage {
  if (message.status !== "running") return message;
  if (error === undefined) return { ...message, status: "done" };
  const failure = SdkError.from(error);
  const blocks = message.blocks.map((block) =>
    block.type === "tool" && (block.state === "running" || block.state === "awaiting-approval")
      ? withState(block, "cancelled")
      : block,
  );
  return { ...message, blocks, status: statusOfError(failure), error: failure };
}

function appendText(
  message: AssistantMessage,
  type: "text" | "thinking",
  stepIndex: number,
  text: string,
): AssistantMessage {
  const blocks = message.blocks.slice();
  const last = blocks.at(-1);
  // A new block after any other kind, so thinking, text and cards read in the order they happened,
  // and for each model call (step), so the text of two calls never runs together.
  if (last !== undefined && last.type === type && last.stepIndex === stepIndex)
    blocks[blocks.length - 1] = { type, text: last.text + text, stepIndex };
  else blocks.push({ type, text, stepIndex });
  return { ...message, blocks };
}

/** Updates the card of `call` (matched by id; calls without an id always get a new card). */
function upsertCard(
  message: AssistantMessage,
  call: ToolCall,
  update: (card: ToolCard) => ToolCard,
  announce = false,
): AssistantMessage {
  const index =
    call.id === "" ? -1 : message.blocks.findIndex((block) => block.type === "tool" && block.id === call.id);
  if (index === -1) {
    const card: ToolCard = {
      type: "tool",
      id: call.id,
      name: call.name,
      args: call.args,
      state: "running",
      client: false,
    };
    return { ...message, blocks: [...message.blocks, update(card)] };
  }
  if (announce) return message; // a call is announced once; its first arguments stay
  const blocks: TranscriptBlock[] = message.blocks.slice();
  blocks[index] = update(blocks[index] as ToolCard);
  return { ...message, blocks };
}

function withState(card: ToolCard, state: ToolCardState): ToolCard {
  return card.state === state ? card : { ...card, state };
}

function withoutOutcome(card: ToolCard): ToolCard {
  const { result: _result, error: _error, ...rest } = card;
  return rest;
}
