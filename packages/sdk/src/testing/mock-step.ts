import { StepSource, StepStatus, StepTarget, StepType } from "../step.js";
import type { Step } from "../step.js";

/** Where {@link mockStep} takes the values a partial step leaves out. */
export interface MockStepDefaults {
  /** Trajectory of the step when `init.trajectoryId` is unset (default `"mock-trajectory"`). */
  trajectoryId?: string;
  /** Index of the step when `init.stepIndex` is unset (default 0). */
  stepIndex?: number;
  /** The previous update of the same step: unset fields are carried over from it, and text accumulates. */
  previous?: Step;
}

/**
 * Completes a partial step with sane defaults, for tests and mock scripts:
 * `id` = `"<trajectoryId>:<stepIndex>"` (§6.4); source MODEL, target USER, status DONE;
 * `type` inferred like §6.4 (tool calls → TOOL_CALL, text → TEXT_RESPONSE, thinking → THINKING);
 * `isCompleteResponse` computed like §6.4 (MODEL ∧ DONE ∧ text ∧ USER).
 *
 * Text: give `contentDelta` and `content` accumulates onto `previous.content`; give only `content`
 * and `contentDelta` is what it adds to `previous.content` (the whole text for a first update).
 * `thinking` / `thinkingDelta` work the same way.
 *
 * @example
 * mockStep({ content: "Hello" });  // a finished MODEL→USER answer, contentDelta "Hello"
 */
export function mockStep(init: Partial<Step> = {}, defaults: MockStepDefaults = {}): Step {
  const prev = defaults.previous;
  const trajectoryId = init.trajectoryId ?? prev?.trajectoryId ?? defaults.trajectoryId ?? "mock-trajectory";
  const stepIndex = init.stepIndex ?? prev?.stepIndex ?? defaults.stepIndex ?? 0;
  const [content, contentDelta] = accumulate(init.content, init.contentDelta, prev?.content ?? "");
  const [thinking, thinkingDelta] = accumulate(init.thinking, init.thinkingDelta, prev?.thinking ?? "");
  const toolCalls = init.toolCalls ?? prev?.toolCalls ?? [];
  const source = init.source ?? prev?.source ?? StepSource.Model;
  const target = init.target ?? prev?.target ?? StepTarget.User;
  const status = init.status ?? StepStatus.Done;
  const step: Step = {
    id: init.id ?? prev?.id ?? `${trajectoryId}:${stepIndex}`,
    stepIndex,
    type: init.type ?? prev?.type ?? inferType(toolCalls.length > 0, content, thinking),
    source,
    target,
    status,
    content,
    contentDelta,
    thinking,
    thinkingDelta,
    toolCalls,
    error: init.error ?? "",
    isCompleteResponse:
      init.isCompleteResponse ??
      (source === StepSource.Model && status === StepStatus.Done && content !== "" && target === StepTarget.User),
    cascadeId: init.cascadeId ?? prev?.cascadeId ?? trajectoryId,
    trajectoryId,
    parentTrajectoryId: init.parentTrajectoryId ?? prev?.parentTrajectoryId ?? "",
    httpCode: init.httpCode ?? 0,
  };
  if (init.structuredOutput !== undefined) step.structuredOutput = init.structuredOutput;
  if (init.usageMetadata !== undefined) step.usageMetadata = init.usageMetadata;
  return step;
}

function accumulate(full: string | undefined, delta: string | undefined, before: string): [string, string] {
  if (full !== undefined && delta !== undefined) return [full, delta];
  if (delta !== undefined) return [before + delta, delta];
  if (full !== undefined) return [full, full.startsWith(before) ? full.slice(before.length) : full];
  return [before, ""];
}

function inferType(hasToolCalls: boolean, content: string, thinking: string): StepType {
  if (hasToolCalls) return StepType.ToolCall;
  if (content !== "") return StepType.TextResponse;
  if (thinking !== "") return StepType.Thinking;
  return StepType.Unknown;
}
