/**
 * Checks that a value has the shape `@google/genai` 3.x types it with (genai.d.ts:
 * `InteractionSSEEvent`, `Interaction`, `Step`, `StepDeltaData`, `Usage`). The client does not
 * validate what it parses, so the emulator's tests do: every event and resource the emulator sends
 * goes through these checks. Returns the problems found (empty when the value fits).
 */

type Json = Record<string, unknown>;

/** `InteractionStatus_2` / `InteractionStatusUpdateStatus` (the `(string & {})` tail aside). */
export const INTERACTION_STATUSES = [
  "in_progress",
  "requires_action",
  "completed",
  "failed",
  "cancelled",
  "incomplete",
  "budget_exceeded",
  "queued",
  "requires_continuation",
] as const;

const STEP_TYPES = new Set([
  "code_execution_call",
  "code_execution_result",
  "file_search_call",
  "file_search_result",
  "function_call",
  "function_result",
  "google_maps_call",
  "google_maps_result",
  "google_search_call",
  "google_search_result",
  "mcp_server_tool_call",
  "mcp_server_tool_result",
  "model_output",
  "processing_call",
  "processing_result",
  "retrieval_call",
  "retrieval_result",
  "thought",
  "url_context_call",
  "url_context_result",
  "user_input",
]);

const USAGE_NUMBERS = [
  "initial_input_tokens",
  "total_cached_tokens",
  "total_input_tokens",
  "total_output_tokens",
  "total_thought_tokens",
  "total_tokens",
  "total_tool_use_tokens",
];

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkUsage(usage: unknown, at: string, out: string[]): void {
  if (usage === undefined) return;
  if (!isObject(usage)) return void out.push(`${at} is not an object`);
  for (const key of Object.keys(usage)) {
    if (USAGE_NUMBERS.includes(key)) {
      if (typeof usage[key] !== "number") out.push(`${at}.${key} is not a number`);
    } else if (!key.endsWith("_by_modality") && key !== "grounding_tool_count")
      out.push(`${at}.${key} is not a field of Usage`);
  }
}

function checkStatus(status: unknown, at: string, out: string[]): void {
  if (!(INTERACTION_STATUSES as readonly unknown[]).includes(status))
    out.push(`${at} ${JSON.stringify(status)} is not an interaction status`);
}

/** `Step` (the union of genai.d.ts); the fields of the step types the emulator sends are checked in full. */
export function checkStep(step: unknown, at: string, out: string[] = []): string[] {
  if (!isObject(step)) return [...out, `${at} is not an object`];
  const type = step["type"];
  if (typeof type !== "string" || !STEP_TYPES.has(type))
    return [...out, `${at}.type ${JSON.stringify(type)} is not a Step type`];
  const allowed = (keys: string[]): void => {
    for (const key of Object.keys(step)) if (!keys.includes(key)) out.push(`${at}.${key} is not a field of ${type}`);
  };
  const textContents = (list: unknown, where: string): void => {
    if (list === undefined) return;
    if (!Array.isArray(list)) return void out.push(`${where} is not an array`);
    list.forEach((c, i) => {
      if (!isObject(c) || c["type"] !== "text" || typeof c["text"] !== "string")
        out.push(`${where}[${i}] is not a TextContent`);
    });
  };
  switch (type) {
    case "function_call": // FunctionCallStep
      allowed(["type", "id", "name", "arguments"]);
      if (typeof step["id"] !== "string" || typeof step["name"] !== "string" || !isObject(step["arguments"]))
        out.push(`${at}: FunctionCallStep needs id, name, arguments (an object)`);
      break;
    case "function_result": // FunctionResultStep
      allowed(["type", "call_id", "name", "result", "is_error"]);
      if (typeof step["call_id"] !== "string") out.push(`${at}.call_id is not a string`);
      if (!(typeof step["result"] === "string" || isObject(step["result"]) || Array.isArray(step["result"])))
        out.push(`${at}.result is not a string, object or content list`);
      if (step["is_error"] !== undefined && typeof step["is_error"] !== "boolean")
        out.push(`${at}.is_error is not a boolean`);
      break;
    case "model_output": // ModelOutputStep
      allowed(["type", "content", "error"]);
      textContents(step["content"], `${at}.content`);
      break;
    case "thought": // ThoughtStep
      allowed(["type", "summary", "signature"]);
      textContents(step["summary"], `${at}.summary`);
      break;
    case "user_input": // UserInputStep
      allowed(["type", "content"]);
      textContents(step["content"], `${at}.content`);
      break;
    default:
      break;
  }
  return out;
}

function checkDelta(delta: unknown, at: string, out: string[]): void {
  if (!isObject(delta)) return void out.push(`${at} is not an object`);
  switch (delta["type"]) {
    case "text": // TextDelta
      if (typeof delta["text"] !== "string" || Object.keys(delta).length !== 2)
        out.push(`${at}: TextDelta is { type, text }`);
      break;
    case "thought_summary": // ThoughtSummaryDelta
      if (
        delta["content"] !== undefined &&
        !(
          isObject(delta["content"]) &&
          delta["content"]["type"] === "text" &&
          typeof delta["content"]["text"] === "string"
        )
      )
        out.push(`${at}.content is not a TextContent`);
      break;
    case "arguments_delta": // ArgumentsDelta
      if (delta["arguments"] !== undefined && typeof delta["arguments"] !== "string")
        out.push(`${at}.arguments is not a string`);
      break;
    case "function_result": // FunctionResultDelta
      if (delta["result"] === undefined) out.push(`${at}.result is missing`);
      break;
    default:
      out.push(`${at}.type ${JSON.stringify(delta["type"])} is not a delta the emulator sends`);
  }
}

/** `InteractionSseEventInteraction`. */
function checkLifecycleInteraction(value: unknown, at: string, out: string[]): void {
  if (!isObject(value)) return void out.push(`${at} is not an object`);
  const keys = [
    "agent",
    "continuation_token",
    "created",
    "id",
    "model",
    "object",
    "service_tier",
    "status",
    "steps",
    "updated",
    "usage",
  ];
  for (const key of Object.keys(value))
    if (!keys.includes(key)) out.push(`${at}.${key} is not a field of InteractionSseEventInteraction`);
  if (typeof value["id"] !== "string") out.push(`${at}.id is not a string`);
  checkStatus(value["status"], `${at}.status`, out);
  checkUsage(value["usage"], `${at}.usage`, out);
}

/** One `InteractionSSEEvent`. */
export function checkEvent(event: unknown): string[] {
  const out: string[] = [];
  if (!isObject(event)) return ["the event is not an object"];
  const type = event["event_type"];
  const at = String(type);
  if (event["event_id"] !== undefined && typeof event["event_id"] !== "string")
    out.push(`${at}.event_id is not a string`);
  const allowed = (keys: string[]): void => {
    for (const key of Object.keys(event))
      if (![...keys, "event_type", "event_id"].includes(key)) out.push(`${at}.${key} is not a field of this event`);
  };
  switch (type) {
    case "interaction.created": // InteractionCreatedEvent
    case "interaction.completed": // InteractionCompletedEvent
      allowed(["interaction"]);
      checkLifecycleInteraction(event["interaction"], `${at}.interaction`, out);
      break;
    case "interaction.status_update": // InteractionStatusUpdate
      allowed(["interaction_id", "status", "usage", "continuation_token"]);
      if (typeof event["interaction_id"] !== "string") out.push(`${at}.interaction_id is not a string`);
      checkStatus(event["status"], `${at}.status`, out);
      checkUsage(event["usage"], `${at}.usage`, out);
      break;
    case "step.start": // StepStart
      allowed(["index", "step"]);
      if (typeof event["index"] !== "number") out.push(`${at}.index is not a number`);
      checkStep(event["step"], `${at}.step`, out);
      break;
    case "step.delta": // StepDelta
      allowed(["index", "delta", "metadata"]);
      if (typeof event["index"] !== "number") out.push(`${at}.index is not a number`);
      checkDelta(event["delta"], `${at}.delta`, out);
      break;
    case "step.stop": // StepStop
      allowed(["index", "usage", "step_usage"]);
      if (typeof event["index"] !== "number") out.push(`${at}.index is not a number`);
      checkUsage(event["usage"], `${at}.usage`, out);
      checkUsage(event["step_usage"], `${at}.step_usage`, out);
      break;
    case "error": // ErrorEvent_2 { error?: ErrorT { code?, message? } }
      allowed(["error"]);
      if (event["error"] !== undefined) {
        const error = event["error"];
        if (
          !isObject(error) ||
          (error["code"] !== undefined && typeof error["code"] !== "string") ||
          (error["message"] !== undefined && typeof error["message"] !== "string")
        )
          out.push(`${at}.error is not an ErrorT`);
      }
      break;
    default:
      out.push(`event_type ${JSON.stringify(type)} is not an InteractionSSEEvent`);
  }
  return out;
}

/** An `Interaction` resource. */
export function checkInteraction(value: unknown): string[] {
  const out: string[] = [];
  if (!isObject(value)) return ["the interaction is not an object"];
  if (typeof value["id"] !== "string") out.push("id is not a string");
  checkStatus(value["status"], "status", out);
  if (value["steps"] !== undefined) {
    if (!Array.isArray(value["steps"])) out.push("steps is not an array");
    else value["steps"].forEach((step, i) => checkStep(step, `steps[${i}]`, out));
  }
  checkUsage(value["usage"], "usage", out);
  for (const key of ["previous_interaction_id", "environment_id", "created", "updated", "agent"]) {
    if (value[key] !== undefined && typeof value[key] !== "string") out.push(`${key} is not a string`);
  }
  if (value["errors"] !== undefined && !Array.isArray(value["errors"])) out.push("errors is not an array");
  return out;
}
