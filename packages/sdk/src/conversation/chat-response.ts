import type { Continuation } from "../continuation/continuation.js";
import type { Step, StopReason, ToolCall, UsageMetadata } from "../step.js";

/**
 * The whole result of one turn, as returned by `chatToCompletion`. `Output` is the type of
 * `structuredOutput`, given by the agent's `responseSchema(schema)`.
 */
export interface ChatResponse<Output = unknown> {
  /** Concatenated text deltas of the turn. */
  text: string;
  /** Concatenated thinking deltas of the turn. */
  thinking: string;
  /** The steps of this turn, in arrival order, one entry per step (latest state). */
  steps: Step[];
  /** Cumulative usage of the session after this turn. */
  usageMetadata: UsageMetadata;
  /**
   * Structured output of the turn's FINISH step, when a response schema was set; with a
   * Standard Schema (zod, …) the validated output (docs/tools-hooks-policies.md).
   */
  structuredOutput?: Output;
  stopReason?: StopReason;
  /**
   * Set when the turn paused on a deferred tool confirmation: the call awaiting a decision and
   * the {@link Continuation} to pass to `agent.resume` (docs/continuations.md).
   */
  awaitingConfirmation?: { toolCall: ToolCall; continuation: Continuation };
}
