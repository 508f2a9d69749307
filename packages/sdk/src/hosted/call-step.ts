import { StepSource, type StepStatus, StepTarget, StepType, type Step, type ToolCall } from "../step.js";

/** A client function's call as the step that holds it: id `<interaction id>:<index>`, in the interaction's trajectory. */
export function callStep(
  conversationId: string,
  interactionId: string,
  index: number,
  call: ToolCall,
  status: StepStatus,
): Step {
  return {
    id: `${interactionId}:${index}`,
    stepIndex: index,
    type: StepType.TextResponse,
    source: StepSource.Model,
    target: StepTarget.User,
    status,
    content: "",
    contentDelta: "",
    thinking: "",
    thinkingDelta: "",
    toolCalls: [call],
    error: "",
    isCompleteResponse: false,
    cascadeId: conversationId,
    trajectoryId: interactionId,
    parentTrajectoryId: "",
    httpCode: 0,
  };
}
