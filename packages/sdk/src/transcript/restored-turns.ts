import { isSyntheticToolStep } from "../connection/synthetic-steps.js";
import { eventMapper, type ChatEvent } from "../conversation/chat-events.js";
import { emptyUsage, StepSource, StepStatus, type Step } from "../step.js";

/** One turn of a restored history: the prompt and the events its steps map to. */
export interface RestoredTurn {
  prompt: string;
  events: ChatEvent[];
}

/**
 * The turns of a history (`conversation.history()`, `turnStartIndices()`) as `events()` would
 * have reported them: the same mapper, fed each step's final state (its whole content as the
 * delta), so a restored turn draws exactly like a live one. The prompt is the turn's
 * SOURCE_USER step. A history keeps the harness's own step of a client tool call before the
 * SDK's synthetic one, both finished; live, the synthetic step's outcome came first. So the
 * harness's step is fed as still running: the call is announced with its arguments, and its
 * outcome (the tool's return value or error) comes from the synthetic step, as it did live.
 */
export function restoredTurns(history: readonly Step[], turnStarts: readonly number[]): RestoredTurn[] {
  return turnStarts.map((start, i) => {
    const steps = history.slice(start, turnStarts[i + 1] ?? history.length);
    const prompt = steps.find((step) => step.source === StepSource.User);
    // Usage marks are not part of a history: the mapper's usage side is never asked.
    const mapper = eventMapper({ index: i, usageUpTo: (total) => total, usage: () => ({ usage: emptyUsage() }) });
    const clientCalls = new Set(steps.filter(isSyntheticToolStep).map((step) => step.id));
    const events: ChatEvent[] = [];
    for (const step of steps) {
      if (step === prompt) continue;
      const ranHere = !isSyntheticToolStep(step) && step.toolCalls.some((call) => clientCalls.has(call.id));
      mapper.map(
        {
          ...step,
          contentDelta: step.content,
          thinkingDelta: step.thinking,
          ...(ranHere ? { status: StepStatus.Active } : {}),
        },
        events,
      );
    }
    return { prompt: prompt?.content ?? "", events };
  });
}
