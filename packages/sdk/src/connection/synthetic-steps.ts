import {
  StepSource,
  StepStatus,
  StepTarget,
  StepType,
  SYNTHETIC_STEP_INDEX_BASE,
  type Step,
  type ToolCall,
  type ToolResult,
} from "../step.js";

/** Where a synthetic client-tool step belongs. */
export interface SyntheticStepContext {
  /** Synthetic index from `SYNTHETIC_STEP_INDEX_BASE` up, one per tool call (§18). */
  stepIndex: number;
  /** The turn's main trajectory ("" when not known yet). */
  trajectoryId: string;
  cascadeId: string;
}

/** A synthetic step, built as one literal (a spread copy of a finished step's 17 members costs more than the rest of it). */
function base(call: ToolCall, context: SyntheticStepContext, status: StepStatus, content: string, error: string): Step {
  return {
    id: call.id,
    stepIndex: context.stepIndex,
    type: StepType.ToolCall,
    source: StepSource.Model,
    target: StepTarget.Environment,
    status,
    content,
    contentDelta: "",
    thinking: "",
    thinkingDelta: "",
    toolCalls: [call],
    error,
    isCompleteResponse: false,
    cascadeId: context.cascadeId,
    trajectoryId: context.trajectoryId,
    parentTrajectoryId: "",
    httpCode: 0,
  };
}

/**
 * The ACTIVE step the SDK yields when a client tool starts (§18, seed 001): id = call id, type
 * TOOL_CALL, source MODEL, target ENVIRONMENT, content = tool name, toolCalls = [call].
 */
export function activeToolStep(call: ToolCall, context: SyntheticStepContext): Step {
  return base(call, context, StepStatus.Active, call.name, "");
}

/**
 * The step that closes a client tool call, at the same synthetic index: DONE with
 * `toolCalls[0].args` replaced by the result value (seed 001) and `content` the result as JSON,
 * or ERROR with `error` set (the call keeps its arguments). `responseJson`: the `toolResponse`'s,
 * when the result is JSON already (a runner's result), to reuse its text.
 */
export function finishedToolStep(
  call: ToolCall,
  result: ToolResult,
  context: SyntheticStepContext,
  responseJson?: string,
): Step {
  if (result.error !== undefined) return base(call, context, StepStatus.Error, call.name, result.error);
  const value = result.result === undefined ? null : result.result;
  // An object result is sent as it is: the answer's `responseJson` (when given) is its JSON already.
  const json =
    responseJson !== undefined && typeof value === "object" && value !== null && !Array.isArray(value)
      ? responseJson
      : JSON.stringify(value);
  return base({ ...call, args: value }, context, StepStatus.Done, json, "");
}

/**
 * True for a step the SDK made for a client tool call (§18, seed 001), as opposed to a step
 * the harness sent: target ENVIRONMENT, type TOOL_CALL, index ≥ `SYNTHETIC_STEP_INDEX_BASE`, and
 * an id equal to the id of its single tool call (harness step ids are `"<trajectoryId>:<index>"`).
 *
 * @example
 * if (isSyntheticToolStep(step) && step.status === StepStatus.Active) showSpinner(step.toolCalls[0]);
 */
export function isSyntheticToolStep(step: Step): boolean {
  return (
    step.target === StepTarget.Environment &&
    step.type === StepType.ToolCall &&
    step.stepIndex >= SYNTHETIC_STEP_INDEX_BASE &&
    step.toolCalls.length === 1 &&
    step.toolCalls[0]?.id === step.id
  );
}
