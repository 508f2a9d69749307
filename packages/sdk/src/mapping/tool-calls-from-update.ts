import type { StepUpdate } from "../gen/antigravity/localharness/localharness_pb.js";
import { writeJson } from "../wire/json-writer.js";
import type { ToolCall } from "../step.js";
import { canonicalToolCall, type ToolCallOrigin } from "./canonical-tool-call.js";
import { parseToolArguments } from "./tool-arguments.js";

/** A built-in action field of `StepUpdate` and the SDK tool name it stands for (§11.1). */
interface BuiltinAction {
  readonly name: string;
  /** Whether the field is set. */
  readonly present: (update: StepUpdate) => boolean;
  /** The action sub-message as a snake_case dict, or undefined when the field is unset. */
  readonly args: (update: StepUpdate) => Record<string, unknown> | undefined;
}

function builtin(name: string, pick: (update: StepUpdate) => { readonly $typeName: string } | undefined): BuiltinAction {
  return {
    name,
    present: (update) => pick(update) !== undefined,
    args: (update) => {
      const action = pick(update);
      // §6.4: args are the sub-message with proto (snake_case) field names, as upstream's
      // MessageToDict(preserving_proto_field_name=True) gives them.
      return action === undefined ? undefined : writeJson(action.$typeName, action, { protoNames: true });
    },
  };
}

/**
 * Built-in action fields in upstream's lookup order (`BUILTIN_TOOL_PROTO_FIELDS`), plus
 * `questions_request` → `ask_question` from the §11.1 table. `finish` is one of them: a FINISH
 * step carries a `finish` tool call whose args are `{ output_string }`, as upstream's does.
 */
const BUILTIN_ACTIONS: readonly BuiltinAction[] = [
  builtin("create_file", (u) => u.createFile),
  builtin("edit_file", (u) => u.editFile),
  builtin("find_file", (u) => u.findFile),
  builtin("list_directory", (u) => u.listDirectory),
  builtin("run_command", (u) => u.runCommand),
  builtin("search_directory", (u) => u.searchDirectory),
  builtin("view_file", (u) => u.viewFile),
  builtin("start_subagent", (u) => u.invokeSubagent),
  builtin("generate_image", (u) => u.generateImage),
  builtin("search_web", (u) => u.searchWeb),
  builtin("read_url_content", (u) => u.readUrlContent),
  builtin("finish", (u) => u.finish),
  builtin("ask_question", (u) => u.questionsRequest),
];

/** True when the update carries a built-in action, `mcpTool` or `customTool` (§6.4 TOOL_CALL rule). */
export function hasToolAction(update: StepUpdate): boolean {
  return update.mcpTool !== undefined || update.customTool !== undefined || BUILTIN_ACTIONS.some((action) => action.present(update));
}

/**
 * The tool call a step update describes, as upstream's `LocalConnectionStep.from_dict` builds it
 * (§6.4): at most one, from the first built-in action field set, else `mcpTool`, else
 * `customTool`. Built-in and MCP calls take the step id as their id; a custom call keeps the
 * id of its `toolCall` (the step id if that is empty). The call is given in the canonical spelling
 * ({@link canonicalToolCall}): built-in action fields renamed to the model's argument names
 * (`command_line` → `CommandLine`), path-like arguments normalised, the first one `canonicalPath`.
 *
 * MCP and custom arguments come from `argumentsJson` ({@link parseToolArguments} with `nonObject:
 * "empty"`): text that is not a JSON object (invalid JSON, an array, a number…) gives `{}`, as
 * upstream does, so tool arguments are always an object.
 * A call with an empty tool name is dropped (upstream), although the step stays TOOL_CALL.
 */
export function toolCallsFromUpdate(update: StepUpdate, stepId: string): ToolCall[] {
  const call = toolCallOf(update, stepId);
  if (call === undefined || call.name === "") return [];
  const { origin, ...raw } = call;
  return [canonicalToolCall(raw, origin)];
}

interface RawCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  serverName?: string;
  origin: ToolCallOrigin;
}

function toolCallOf(update: StepUpdate, stepId: string): RawCall | undefined {
  for (const action of BUILTIN_ACTIONS) {
    const args = action.args(update);
    if (args !== undefined) return { id: stepId, name: action.name, args, origin: "action" };
  }
  if (update.mcpTool !== undefined) {
    const mcp = update.mcpTool;
    return { id: stepId, name: mcp.toolName ?? "", args: parseToolArguments(mcp.argumentsJson, { nonObject: "empty" }), serverName: mcp.serverName ?? "", origin: "arguments" };
  }
  if (update.customTool !== undefined) {
    const call = update.customTool.toolCall;
    return { id: call?.id || stepId, name: call?.name ?? "", args: parseToolArguments(call?.argumentsJson, { nonObject: "empty" }), origin: "arguments" };
  }
  return undefined;
}
