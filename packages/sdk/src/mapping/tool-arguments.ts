import type { ToolCall } from "../gen/antigravity/localharness/localharness_pb.js";
import { plainOfStruct } from "../wire/genai-struct-read.js";

/**
 * How {@link parseToolArguments} treats `argumentsJson` that is not a JSON object. Upstream has
 * two behaviours, and each caller names the one it follows:
 *
 * - `"text"` — what a PRE_TOOL hook or a dynamic policy gets (`PreToolArgs`, §10, §12): text that
 *   does not parse is passed on as the text itself (upstream `hook_router._handle_pre_tool`,
 *   `test_handle_pre_tool_no_args`), and any other JSON value as it is, so a hook sees what the
 *   harness sent.
 * - `"empty"` — what a step's tool call or a client tool gets (`mcpTool`, `customTool`,
 *   `toolCall`, §6.4, §9): anything that is not a JSON object gives `{}` (upstream
 *   `LocalConnectionStep.from_dict`), so tool arguments are always an object.
 *
 * Absent or empty text gives `{}` in both.
 */
export type NonObjectArguments = "text" | "empty";

/** The arguments of a call from its wire `argumentsJson`; see {@link NonObjectArguments} for the two options. */
export function parseToolArguments(json: string | undefined, options: { nonObject: "empty" }): Record<string, unknown>;
export function parseToolArguments(json: string | undefined, options: { nonObject: NonObjectArguments }): unknown;
export function parseToolArguments(json: string | undefined, options: { nonObject: NonObjectArguments }): unknown {
  if (json === undefined || json === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return options.nonObject === "text" ? json : {};
  }
  if (options.nonObject === "text") return value;
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}

/**
 * The arguments of a client or custom tool call (`ToolCall`, §7 and §6.4): its `arguments`
 * genai.Struct when the harness set one, else `argumentsJson` with `nonObject: "empty"`. Upstream
 * reads the Struct first (local_connection_test.py, Stars1233 @238766a3:
 * `test_handle_tool_call_with_proto_arguments_struct`, `…_arguments_precedence_over_arguments_json`,
 * `test_local_connection_step_from_dict_custom_tool_wire_struct`). A Struct with no fields is taken
 * as unset, so an empty Struct beside `argumentsJson` does not hide the arguments.
 */
export function toolCallArguments(
  call: Pick<ToolCall, "arguments" | "argumentsJson"> | undefined,
): Record<string, unknown> {
  if (call?.arguments !== undefined && call.arguments.fields.length > 0) return plainOfStruct(call.arguments);
  return parseToolArguments(call?.argumentsJson, { nonObject: "empty" });
}
