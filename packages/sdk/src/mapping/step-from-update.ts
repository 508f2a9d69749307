import type { StepUpdate } from "../gen/antigravity/localharness/localharness_pb.js";
import { StepUpdate_Source, StepUpdate_State, StepUpdate_Target } from "../wire/wire-enums.gen.js";
import { StepSource, StepStatus, StepTarget, StepType, type Step } from "../step.js";
import { hasToolAction, toolCallsFromUpdate } from "./tool-calls-from-update.js";

/**
 * The id of a step: `"<trajectoryId>:<stepIndex>"`, or just the index when the update has no
 * trajectory id (§6.4). Stable across the many updates of one step.
 */
export function stepIdOf(trajectoryId: string | undefined, stepIndex: number | undefined): string {
  const index = String(stepIndex ?? 0);
  return trajectoryId ? `${trajectoryId}:${index}` : index;
}

/**
 * Maps one wire `StepUpdate` to an SDK {@link Step}, following upstream's
 * `LocalConnectionStep.from_dict` (protocol §6.4):
 *
 * - `type`: `compaction` → COMPACTION; else `finish` → FINISH; else a built-in action,
 *   `mcpTool` or `customTool` → TOOL_CALL; else non-empty `text` → TEXT_RESPONSE; else
 *   non-empty `thinking` → THINKING; else UNKNOWN. An `error` action does not change the type.
 * - `source`, `status`: the matching SDK value; unset, UNSPECIFIED or unknown numbers → UNKNOWN.
 * - `target`: USER / ENVIRONMENT / UNSPECIFIED; TARGET_MODEL (no SDK counterpart), unset and
 *   unknown numbers → UNKNOWN.
 * - `error`: `error.errorMessage`, else the step's `errorMessage` (field 7), else — for a failed
 *   tool step — its text (the failure, upstream 0.1.19); `httpCode` from `error`.
 * - `isCompleteResponse`: source MODEL, status DONE, target USER and non-empty text.
 * - `structuredOutput` (FINISH only): `JSON.parse(finish.outputString)`. When the text is not
 *   valid JSON the raw string is kept, so the model's answer is never lost; an empty
 *   `outputString` leaves it unset.
 * - `toolCalls`: see {@link toolCallsFromUpdate}.
 *
 * `usageMetadata` is never set here: usage travels in `usageUpdate` frames (§14).
 *
 * @example
 * const step = stepFromUpdate(event.event.value); // event.event.case === "stepUpdate"
 */
export function stepFromUpdate(update: StepUpdate): Step {
  const id = stepIdOf(update.trajectoryId, update.stepIndex);
  const text = update.text ?? "";
  const source = sourceOf(update.source);
  const target = targetOf(update.target);
  const status = statusOf(update.state);
  const type = typeOf(update);
  const step: Step = {
    id,
    stepIndex: update.stepIndex ?? 0,
    type,
    source,
    target,
    status,
    content: text,
    contentDelta: update.textDelta ?? "",
    thinking: update.thinking ?? "",
    thinkingDelta: update.thinkingDelta ?? "",
    toolCalls: toolCallsFromUpdate(update, id),
    // A failed tool step whose harness wrote the failure as its text keeps it as the step's error.
    error:
      update.error?.errorMessage ||
      update.errorMessage ||
      (type === StepType.ToolCall && status === StepStatus.Error ? text : ""),
    isCompleteResponse:
      source === StepSource.Model && status === StepStatus.Done && target === StepTarget.User && text !== "",
    cascadeId: update.cascadeId ?? "",
    trajectoryId: update.trajectoryId ?? "",
    parentTrajectoryId: update.parentTrajectoryId ?? "",
    httpCode: update.error?.httpCode ?? 0,
  };
  if (type === StepType.Finish) {
    const output = structuredOutputOf(update.finish?.outputString);
    if (output !== undefined) step.structuredOutput = output.value;
  }
  return step;
}

function typeOf(update: StepUpdate): StepType {
  if (update.compaction !== undefined) return StepType.Compaction;
  if (update.finish !== undefined) return StepType.Finish;
  if (hasToolAction(update)) return StepType.ToolCall;
  if (update.text) return StepType.TextResponse;
  if (update.thinking) return StepType.Thinking;
  return StepType.Unknown;
}

function sourceOf(source: StepUpdate_Source | undefined): StepSource {
  switch (source) {
    case StepUpdate_Source.SYSTEM:
      return StepSource.System;
    case StepUpdate_Source.USER:
      return StepSource.User;
    case StepUpdate_Source.MODEL:
      return StepSource.Model;
    default:
      return StepSource.Unknown;
  }
}

function targetOf(target: StepUpdate_Target | undefined): StepTarget {
  switch (target) {
    case StepUpdate_Target.USER:
      return StepTarget.User;
    case StepUpdate_Target.ENVIRONMENT:
      return StepTarget.Environment;
    case StepUpdate_Target.UNSPECIFIED:
      return StepTarget.Unspecified;
    default:
      return StepTarget.Unknown; // includes TARGET_MODEL (§6.4)
  }
}

function statusOf(state: StepUpdate_State | undefined): StepStatus {
  switch (state) {
    case StepUpdate_State.ACTIVE:
      return StepStatus.Active;
    case StepUpdate_State.DONE:
      return StepStatus.Done;
    case StepUpdate_State.WAITING_FOR_USER:
      return StepStatus.WaitingForUser;
    case StepUpdate_State.ERROR:
      return StepStatus.Error;
    default:
      return StepStatus.Unknown;
  }
}

/** The parsed output, boxed so that a JSON `null` output is told apart from "none". */
function structuredOutputOf(outputString: string | undefined): { value: unknown } | undefined {
  if (!outputString) return undefined;
  try {
    return { value: JSON.parse(outputString) as unknown };
  } catch {
    return { value: outputString };
  }
}
