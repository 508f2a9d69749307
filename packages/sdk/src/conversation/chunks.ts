import { StepSource, StepStatus, StepTarget, StepType } from "../step.js";
import type { Step, StreamChunk } from "../step.js";
import { UsageMark } from "../connection/turn.js";
import type { ViewMapper } from "../connection/turn-view.js";

/**
 * The chunks one step update contributes to a chunk stream (seed 000 rules):
 * - steps addressed to ENVIRONMENT (tool dispatches, synthetic client-tool steps) give nothing;
 * - a failed tool step gives no text or thought: what a harness writes there is the failure, the
 *   step's `error` (upstream 0.1.19 keeps tool failures and pre-tool denials step-level errors
 *   that never leak into the assistant's text, CHANGELOG.md Stars1233 @1493021c);
 * - a `thought` chunk for a MODEL→USER step with a non-empty `thinkingDelta`, then
 * - a `text` chunk for a MODEL→USER step with a non-empty `contentDelta`, then
 * - a `toolCall` chunk per tool call whose id is not in `seenToolCallIds` (ids are added to it;
 *   calls with an empty id are never de-duplicated).
 *
 * `seenToolCallIds` belongs to one stream: pass a fresh set per `chat()` / `receiveChunks()`.
 *
 * @example
 * const seen = new Set<string>();
 * for await (const step of conversation.receiveSteps()) for (const c of stepToChunks(step, seen)) render(c);
 */
export function stepToChunks(step: Step, seenToolCallIds: Set<string>): StreamChunk[] {
  if (step.target === StepTarget.Environment) return [];
  const chunks: StreamChunk[] = [];
  const failedTool = step.type === StepType.ToolCall && step.status === StepStatus.Error;
  if (step.source === StepSource.Model && step.target === StepTarget.User && !failedTool) {
    if (step.thinkingDelta !== "")
      chunks.push({ type: "thought", stepIndex: step.stepIndex, text: step.thinkingDelta });
    if (step.contentDelta !== "") chunks.push({ type: "text", stepIndex: step.stepIndex, text: step.contentDelta });
  }
  for (const toolCall of step.toolCalls) {
    if (toolCall.id !== "") {
      if (seenToolCallIds.has(toolCall.id)) continue;
      seenToolCallIds.add(toolCall.id);
    }
    chunks.push({ type: "toolCall", toolCall });
  }
  return chunks;
}

/** A view mapper from a turn's entries to its chunks ({@link stepToChunks}), with a fresh de-duplication set. */
export function chunkMapper(): ViewMapper<StreamChunk> {
  const seen = new Set<string>();
  return {
    map(entry, out) {
      if (!(entry instanceof UsageMark)) for (const chunk of stepToChunks(entry, seen)) out.push(chunk);
    },
  };
}
