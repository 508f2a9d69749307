// A step of a turn and what it carries: tool calls and results, usage, stop reasons (protocol §6.4).

/**
 * The inference tier asked for (upstream `types.ServiceTier`, `GeminiModelOptions.service_tier`)
 * and the one that served a call (`UsageMetadata.service_tier`, §14). Upstream also passes any
 * other string through as is, so a newer tier name is accepted too.
 */
export type ServiceTier = "standard" | "priority" | "flex" | (string & {});

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
export const StepTarget = {
  User: "USER",
  Environment: "ENVIRONMENT",
  Unspecified: "UNSPECIFIED",
  Unknown: "UNKNOWN",
} as const;
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
  /**
   * Per-step usage, when a legacy harness attaches it (§14 field 20). Upstream deprecated
   * `Step.usage_metadata` in 0.1.16 (CHANGELOG.md @1493021c): read `ChatResponse.turnUsage` and
   * `conversation().totalUsage()`.
   */
  usageMetadata?: UsageMetadata;
  cascadeId: string;
  trajectoryId: string;
  /** Set for subagent steps. */
  parentTrajectoryId: string;
  /** HTTP status of a platform error (400/401/403 ...), else 0. */
  httpCode: number;
}

/** The members that say which step it is; {@link newStep} leaves every other member empty. */
export type StepIdentity = Pick<
  Step,
  "id" | "stepIndex" | "type" | "source" | "target" | "status" | "cascadeId" | "trajectoryId"
>;

/**
 * A step built by a connection that makes its own steps from another wire's events (ACP updates,
 * Interactions API events): `identity` and `fields`, every other member empty (no text, thinking,
 * tool calls or error; not a complete response; no parent trajectory; `httpCode` 0).
 */
export function newStep(identity: StepIdentity, fields?: Partial<Step>): Step {
  return {
    ...identity,
    content: "",
    contentDelta: "",
    thinking: "",
    thinkingDelta: "",
    toolCalls: [],
    error: "",
    isCompleteResponse: false,
    parentTrajectoryId: "",
    httpCode: 0,
    ...fields,
  };
}

/** Why the harness stopped a turn early (budget or quota), protocol §16. */
export type StopReason =
  | "MAX_MODEL_CALLS_EXCEEDED"
  | "MAX_TOOL_CALLS_EXCEEDED"
  | "MAX_INPUT_TOKENS_EXCEEDED"
  | "MAX_OUTPUT_TOKENS_EXCEEDED"
  | "MAX_TOTAL_TOKENS_EXCEEDED"
  | "QUOTA_EXHAUSTED";

/** A fragment of a streamed turn. */
export type StreamChunk =
  | { type: "thought"; stepIndex: number; text: string }
  | { type: "text"; stepIndex: number; text: string }
  | { type: "toolCall"; toolCall: ToolCall };

/** An all-zero usage record. */
export function emptyUsage(): UsageMetadata {
  return {
    promptTokenCount: 0,
    candidatesTokenCount: 0,
    totalTokenCount: 0,
    cachedContentTokenCount: 0,
    thoughtsTokenCount: 0,
  };
}

/** An answer to one question of an `ask_question` step (protocol §9). */
export type QuestionAnswer = { unanswered: true } | { selectedChoiceIndices: number[]; freeformResponse?: string };

/** The answer to a whole `questionsRequest`: one answer per question, or cancelled. */
export type QuestionResponse = { cancelled: true } | { answers: QuestionAnswer[] };
