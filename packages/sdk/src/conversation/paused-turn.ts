import type { PausedConfirmation } from "../connection/turn.js";
import { StepStatus, type Step, type StopReason, type ToolCall, type ToolResult, type UsageMetadata } from "../step.js";
import { signContinuation, type ContinuationSecret } from "../continuation/continuation-signing.js";
import { CONTINUATION_VERSION, type Continuation, type PendingToolCall } from "../continuation/continuation.js";

/** What a paused turn looked like when it ended (ChatStream.final() gathers it). */
export interface PausedTurn {
  paused: PausedConfirmation;
  turnIndex: number;
  /** The turn's steps, newest state of each, in arrival order. */
  steps: readonly Step[];
  text: string;
  totalUsage: UsageMetadata;
  turnUsage: UsageMetadata;
  stopReason?: StopReason;
}

/**
 * The continuation of a turn paused on a deferred confirmation (seed 004's fields that apply):
 * the paused calls as the wire kept them (`paused.calls`), else the turn's tool calls of the main
 * trajectory in order, up to the awaited one, with results for those that finished. Signed with `secret` (the agent's `continuationSecret`) when given.
 */
export async function continuationOf(
  turn: PausedTurn,
  secret?: ContinuationSecret,
): Promise<{ toolCall: ToolCall; continuation: Continuation }> {
  const { paused } = turn;
  const { pendingToolCalls, awaitingIndex, completedResults } = paused.calls ?? callsOf(turn);
  const continuation: Continuation = {
    version: CONTINUATION_VERSION,
    payload: {
      conversationId: paused.conversationId,
      turnIndex: turn.turnIndex,
      totalUsage: turn.totalUsage,
      turnUsage: turn.turnUsage,
      pendingToolCalls: [...pendingToolCalls],
      awaitingIndex,
      completedResults: [...completedResults],
      responseContent: turn.text,
      stopReason: turn.stopReason ?? null,
      createdAt: new Date().toISOString(),
    },
  };
  return {
    toolCall: paused.toolCall,
    continuation: secret === undefined ? continuation : await signContinuation(continuation, secret),
  };
}

/**
 * The calls of a turn paused in a harness session: the turn's tool calls of the main trajectory in
 * order, up to the awaited one, with results for those that finished.
 */
function callsOf(turn: PausedTurn): NonNullable<PausedConfirmation["calls"]> {
  const { paused } = turn;
  const pendingToolCalls: PendingToolCall[] = [];
  const completedResults: ToolResult[] = [];
  for (const step of turn.steps) {
    const call = step.toolCalls[0];
    if (call === undefined || step.trajectoryId !== paused.trajectoryId || step.stepIndex > paused.stepIndex) continue;
    const awaited = step.stepIndex === paused.stepIndex;
    pendingToolCalls.push({
      id: awaited ? paused.toolCall.id : call.id,
      name: call.name,
      args: call.args ?? null,
      trajectoryId: step.trajectoryId,
      stepIndex: step.stepIndex,
    });
    if (awaited) continue;
    if (step.status === StepStatus.Done) completedResults.push({ id: call.id, name: call.name, result: step.content });
    else if (
      step.status === StepStatus.Error ||
      step.status === StepStatus.Canceled ||
      step.status === StepStatus.TerminalError
    )
      completedResults.push({ id: call.id, name: call.name, error: step.error });
  }
  let awaitingIndex = pendingToolCalls.findIndex((call) => call.stepIndex === paused.stepIndex);
  if (awaitingIndex < 0) {
    pendingToolCalls.push({
      id: paused.toolCall.id,
      name: paused.toolCall.name,
      args: paused.toolCall.args ?? null,
      trajectoryId: paused.trajectoryId,
      stepIndex: paused.stepIndex,
    });
    awaitingIndex = pendingToolCalls.length - 1;
  }
  return { pendingToolCalls, awaitingIndex, completedResults };
}
