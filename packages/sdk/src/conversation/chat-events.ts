import { UsageMark, type TurnEntry, type TurnOutcome } from "../connection/turn.js";
import type { ViewMapper } from "../connection/turn-view.js";
import { StepStatus, StepType } from "../step.js";
import type { Step, StopReason, StreamChunk, ToolCall, UsageMetadata } from "../step.js";
import { stepToChunks } from "./chunks.js";
import { definedProperties } from "../defined-properties.js";

/** A tool finished: for a client tool the value it returned, for a built-in tool its action record at completion. */
export interface ToolResultEvent {
  type: "toolResult";
  toolCall: ToolCall;
  result: unknown;
  step: Step;
}

/** A tool call failed, was refused by a policy or hook, or was cancelled (`error` says which). */
export interface ToolErrorEvent {
  type: "toolError";
  toolCall: ToolCall;
  error: string;
  step: Step;
}

/**
 * The harness waits for the user (§8 confirmation, §9 question) on a step. The SDK answers it
 * through `confirmTool` / the hooks; the event shows it, and is where a paused run will resume.
 */
export interface PermissionRequestEvent {
  type: "permissionRequest";
  /** The call waiting for a confirmation, when the step carries one. */
  toolCall?: ToolCall;
  trajectoryId: string;
  stepIndex: number;
  step: Step;
}

/** The turn's token usage so far (§14), each time the harness reports it. */
export interface UsageEvent {
  type: "usage";
  usage: UsageMetadata;
}

/**
 * The turn paused on a deferred tool confirmation (docs/continuations.md): comes just before its
 * `turnComplete`. The signed continuation to resume it is on `final().awaitingConfirmation`.
 */
export interface AwaitingConfirmationEvent {
  type: "awaitingConfirmation";
  toolCall: ToolCall;
  trajectoryId: string;
  stepIndex: number;
}

/** The last event of a turn that ended without error. */
export interface TurnCompleteEvent {
  type: "turnComplete";
  /** Set when the harness stopped the turn for budget or quota (§16). */
  stopReason?: StopReason;
  /** The turn's position in the conversation, from 0. */
  turnIndex: number;
  /** The turn's usage. */
  usage: UsageMetadata;
}

/**
 * What `ChatStream.events()` yields, for UIs and servers: the chunks of seed 000 (`thought`,
 * `text`, `toolCall`, same rules), then tool results and errors, permission requests, usage,
 * and `turnComplete`. Switch on `type` and ignore the types you do not know: more will be added
 * (a session's `init`, a turn's `result`).
 *
 * @example
 * for await (const event of conversation.chat("list the files").events()) {
 *   if (event.type === "toolResult") console.log(event.toolCall.name, "done");
 * }
 */
export type ChatEvent =
  | StreamChunk
  | ToolResultEvent
  | ToolErrorEvent
  | PermissionRequestEvent
  | UsageEvent
  | AwaitingConfirmationEvent
  | TurnCompleteEvent;

/** What the event mapper needs to know about its turn. */
export interface EventTurn {
  readonly index: number;
  usageUpTo(total: UsageMetadata): UsageMetadata;
  usage(): { usage: UsageMetadata };
}

/** The `events()` mapper: one per view, since it remembers what it already reported. */
export function eventMapper(turn: EventTurn): ViewMapper<ChatEvent> {
  const seenCalls = new Set<string>();
  /** Each call as first seen (with its arguments: a client tool's result step carries the result there). */
  const calls = new Map<string, ToolCall>();
  const finished = new Set<string>();
  const waiting = new Set<string>();
  return {
    map(entry: TurnEntry, out: ChatEvent[]): void {
      if (entry instanceof UsageMark) {
        out.push({ type: "usage", usage: turn.usageUpTo(entry.total) });
        return;
      }
      for (const chunk of stepToChunks(entry, seenCalls)) out.push(chunk);
      for (const call of entry.toolCalls) if (call.id !== "" && !calls.has(call.id)) calls.set(call.id, call);
      if (entry.status === StepStatus.WaitingForUser) {
        if (!waiting.has(entry.id)) {
          waiting.add(entry.id); // §8: reported once while the step waits
          const call = entry.toolCalls[0];
          out.push({
            type: "permissionRequest",
            ...definedProperties({ toolCall: call }),
            trajectoryId: entry.trajectoryId,
            stepIndex: entry.stepIndex,
            step: entry,
          });
        }
        return;
      }
      waiting.delete(entry.id);
      if (entry.type === StepType.ToolCall) toolOutcomes(entry, calls, finished, out);
    },
    end(outcome: TurnOutcome, out: ChatEvent[]): void {
      const paused = outcome.awaitingConfirmation;
      if (paused !== undefined)
        out.push({
          type: "awaitingConfirmation",
          toolCall: paused.toolCall,
          trajectoryId: paused.trajectoryId,
          stepIndex: paused.stepIndex,
        });
      const event: TurnCompleteEvent = { type: "turnComplete", turnIndex: turn.index, usage: turn.usage().usage };
      if (outcome.stopReason !== undefined) event.stopReason = outcome.stopReason;
      out.push(event);
    },
  };
}

/** `toolResult` / `toolError` for each call of a finished tool step, once per call. */
function toolOutcomes(step: Step, calls: ReadonlyMap<string, ToolCall>, finished: Set<string>, out: ChatEvent[]): void {
  if (step.status !== StepStatus.Done && step.status !== StepStatus.Error) return;
  for (const call of step.toolCalls) {
    const key = call.id === "" ? `step:${step.id}` : call.id;
    if (finished.has(key)) continue; // a client tool's own step follows its synthetic one (§7.1)
    finished.add(key);
    const toolCall = calls.get(call.id) ?? call;
    // A synthetic client-tool step carries the result as its call's args (seed 001); a built-in
    // tool's step carries its action with the outcome filled in (§11.2).
    if (step.status === StepStatus.Error) out.push({ type: "toolError", toolCall, error: step.error, step });
    else out.push({ type: "toolResult", toolCall, result: call.args, step });
  }
}
