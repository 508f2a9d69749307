import { newStep, StepSource, StepStatus, StepTarget, StepType, type Step, type ToolCall } from "../step.js";

/** A client function's call as the step that holds it: id `<interaction id>:<index>`, in the interaction's trajectory. */
export function callStep(
  conversationId: string,
  interactionId: string,
  index: number,
  call: ToolCall,
  status: StepStatus,
): Step {
  return newStep(
    {
      id: `${interactionId}:${index}`,
      stepIndex: index,
      type: StepType.TextResponse,
      source: StepSource.Model,
      target: StepTarget.User,
      status,
      cascadeId: conversationId,
      trajectoryId: interactionId,
    },
    { toolCalls: [call] },
  );
}

/**
 * The prompt a turn sent, as the user's step that opens the turn (what a localharness's USER_INPUT
 * step is): the Interactions API takes the prompt as the request's `input` (CreateAgentInteraction
 * in @google/genai 3.3's genai.d.ts) and streams only the steps the agent makes, so history,
 * transcripts and `/history` would otherwise show a turn without its prompt.
 */
export function userInputStep(conversationId: string, stepIndex: number, text: string): Step {
  return newStep(
    {
      id: `${conversationId}:input-${stepIndex}`, // not `<interaction id>:<index>`: retireStepIds skips it
      stepIndex,
      type: StepType.TextResponse,
      source: StepSource.User,
      target: StepTarget.Unspecified,
      status: StepStatus.Done,
      cascadeId: conversationId,
      trajectoryId: conversationId,
    },
    { content: text, contentDelta: text },
  );
}
