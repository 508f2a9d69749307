import type { Continuation } from "./continuation/continuation.js";
import type { ServiceTier } from "./config/model-options.js";

/** What kind of event a {@link Step} records (protocol §6.4 classification). */
export const StepType = {
  TextResponse: "TEXT_RESPONSE",
  ToolCall: "TOOL_CALL",
  SystemMessage: "SYSTEM_MESSAGE",
  Compaction: "COMPACTION",
  Finish: "FINISH",
  Thinking: "THINKING",
  Unknown: "UNKNOWN",
} as const;
export type StepType = (typeof StepType)[keyof typeof StepType];

/** Who produced a step. */
export const StepSource = { System: "SYSTEM", User: "USER", Model: "MODEL", Unknown: "UNKNOWN" } as const;
export type StepSource = (typeof StepSource)[keyof typeof StepSource];

/** Who a step is addressed to. ENVIRONMENT steps are tool dispatches, hidden from chunk streams. */
export const StepTarget = { User: "USER", Environment: "ENVIRONMENT", Unspecified: "UNSPECIFIED", Unknown: "UNKNOWN" } as const;
export type StepTarget = (typeof StepTarget)[keyof typeof StepTarget];

/** Lifecycle state of a step. A step is sent many times while ACTIVE, then once DONE or ERROR. */
export const StepStatus = {
  Active: "ACTIVE",
  Done: "DONE",
  WaitingForUser: "WAITING_FOR_USER",
  Error: "ERROR",
  Canceled: "CANCELED",
  TerminalError: "TERMINAL_ERROR",
  Unknown: "UNKNOWN",
} as const;
export type StepStatus = (typeof StepStatus)[keyof typeof StepStatus];

/** Index of the first synthetic step the SDK makes for a client-side tool call (seed 001). */
export const SYNTHETIC_STEP_INDEX_BASE = 50_000;

/** A tool invocation requested by the model (built-in, MCP or client-side). */
export interface ToolCall {
  /** Correlation id; built-in calls use the step id. Empty ids are never de-duplicated. */
  id: string;
  /** SDK tool name: built-ins as in protocol §11.1 (`run_command`), MCP and custom tools by their own name. */
  name: string;
  /** Arguments as a JSON value. */
  args: unknown;
  /** Local path the call targets, for file tools (normalised from `file://` URIs). */
  canonicalPath?: string;
  /** MCP server name, for MCP tool calls. */
  serverName?: string;
}

/** The outcome of a client-side tool call: a result or an error, never both. */
export interface ToolResult {
  id: string;
  name: string;
  result?: unknown;
  error?: string;
}

/** Token counts. The wire carries uint64 strings; counts here are plain numbers. */
export interface UsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount: number;
  thoughtsTokenCount: number;
  /**
   * The tier that served the calls (upstream `UsageMetadata.service_tier`, §14), when the harness
   * reports one; may differ from the tier asked for (e.g. `"priority"` downgraded to `"standard"`).
   */
  serviceTier?: ServiceTier;
}

/** One event of the agent's trajectory, as the SDK sees it (protocol §6.4). */
export interface Step {
  /** `"<trajectoryId>:<stepIndex>"`, stable across the updates of one step. */
  id: string;
  stepIndex: number;
  type: StepType;
  source: StepSource;
  target: StepTarget;
  status: StepStatus;
  /** Full accumulated text. */
  content: string;
  /** Text added by this update. */
  contentDelta: string;
  /** Full accumulated thinking. */
  thinking: string;
  /** Thinking added by this update. */
  thinkingDelta: string;
  toolCalls: ToolCall[];
  /** Error text, when the step failed. */
  error: string;
  /** True for a finished model answer addressed to the user. */
  isCompleteResponse: boolean;
  /** Parsed structured output of a FINISH step. */
  structuredOutput?: unknown;
  /** Per-step usage, when the harness attaches it. */
  usageMetadata?: UsageMetadata;
  cascadeId: string;
  trajectoryId: string;
  /** Set for subagent steps. */
  parentTrajectoryId: string;
  /** HTTP status of a platform error (400/401/403 ...), else 0. */
  httpCode: number;
}

/** Why the harness stopped a turn early (budget or quota), protocol §16. */
export type StopReason =
  | "MAX_MODEL_CALLS_EXCEEDED"
  | "MAX_TOOL_CALLS_EXCEEDED"
  | "MAX_INPUT_TOKENS_EXCEEDED"
  | "MAX_OUTPUT_TOKENS_EXCEEDED"
  | "MAX_TOTAL_TOKENS_EXCEEDED"
  | "QUOTA_EXHAUSTED";

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

/** A fragment of a streamed turn. */
export type StreamChunk =
  | { type: "thought"; stepIndex: number; text: string }
  | { type: "text"; stepIndex: number; text: string }
  | { type: "toolCall"; toolCall: ToolCall };

/** Options every async call accepts. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** One part of a user prompt (protocol §6.1). */
export type PromptPart =
  | { text: string }
  | { media: { mimeType: string; data: Uint8Array; description?: string } }
  | { slashCommand: string };

/** A prompt: plain text or a list of parts. */
export type Prompt = string | readonly PromptPart[];

/** An all-zero usage record. */
export function emptyUsage(): UsageMetadata {
  return { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0, cachedContentTokenCount: 0, thoughtsTokenCount: 0 };
}
