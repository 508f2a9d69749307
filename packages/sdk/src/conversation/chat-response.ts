import type { Continuation } from "../continuation/continuation.js";
import type { Step, StopReason, ToolCall, UsageMetadata } from "../step.js";

/**
 * The whole result of one turn, as returned by `chatToCompletion`. `Output` is the type of
 * `structuredOutput`, given by the agent's `responseSchema(schema)`.
 */
export interface ChatResponse<Output = unknown> {
  /**
   * The turn's text deltas concatenated as they came, as upstream defines it (the Python SDK's
   * `ChatResponse.text()` is `"".join` of its `Text` chunks): the text of separate model calls is
   * not separated here. {@link textBlocks} keeps each model call's text apart.
   */
  text: string;
  /**
   * The text of each model call of the turn, in order: one entry per model step that produced
   * text (its `stepIndex` and `trajectoryId`), whose concatenation is {@link text}. Show these as
   * separate paragraphs: `textBlocks.map((block) => block.text).join("\n\n")`.
   */
  textBlocks: ModelCallText[];
  /** Concatenated thinking deltas of the turn. */
  thinking: string;
  /** The steps of this turn, in arrival order, one entry per step (latest state). */
  steps: Step[];
  /**
   * Cumulative usage of the session after this turn (`conversation().totalUsage()` then; upstream
   * reads it as `agent.conversation.total_usage`).
   */
  usageMetadata: UsageMetadata;
  /**
   * This turn's usage, every model call of it (upstream 0.1.16+ `ChatResponse.usage_metadata`,
   * types.py Stars1233 @4bfe2531: "accumulated token usage across all model invocations in this
   * turn"); usage reported after the turn ended is in `conversation().lastTurnUsage()`.
   */
  turnUsage: UsageMetadata;
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

/** The text one model call produced in a turn (its step; the `text` chunks with this `stepIndex`). */
export interface ModelCallText {
  /** The model call's step. */
  stepIndex: number;
  /** The trajectory of that step (a subagent's steps have their own). */
  trajectoryId: string;
  text: string;
}
