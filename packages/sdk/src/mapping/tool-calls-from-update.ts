import type { StepUpdate } from "../gen/antigravity/localharness/localharness_pb.js";
import { writeJson } from "../wire/json-writer.js";
import type { ToolCall } from "../step.js";
import { canonicalToolCall, type ToolCallOrigin } from "./canonical-tool-call.js";
import { parseToolArguments, toolCallArguments } from "./tool-arguments.js";

/** A built-in action set on a step update: the SDK tool name it stands for (§11.1) and its sub-message. */
interface BuiltinAction {
  readonly name: string;
  readonly action: { readonly $typeName: string };
}

/**
 * The first built-in action field set, in upstream's lookup order (`BUILTIN_TOOL_PROTO_FIELDS`),
 * plus `skill_lookup` (0.1.19 wire) and `questions_request` → `ask_question` from the §11.1 table. `finish` is one of them: a FINISH
 * step carries a `finish` tool call whose args are `{ output_string }`, as upstream's does.
 * Plain property reads: every step update is checked (twice), and a table of accessor closures
 * cost more than the rest of mapping a text step.
 */
function builtinActionOf(u: StepUpdate): BuiltinAction | undefined {
  if (u.createFile !== undefined) return { name: "create_file", action: u.createFile };
  if (u.editFile !== undefined) return { name: "edit_file", action: u.editFile };
  if (u.findFile !== undefined) return { name: "find_file", action: u.findFile };
  if (u.listDirectory !== undefined) return { name: "list_directory", action: u.listDirectory };
  if (u.runCommand !== undefined) return { name: "run_command", action: u.runCommand };
  if (u.searchDirectory !== undefined) return { name: "search_directory", action: u.searchDirectory };
  if (u.viewFile !== undefined) return { name: "view_file", action: u.viewFile };
  if (u.invokeSubagent !== undefined) return { name: "start_subagent", action: u.invokeSubagent };
  if (u.generateImage !== undefined) return { name: "generate_image", action: u.generateImage };
  if (u.searchWeb !== undefined) return { name: "search_web", action: u.searchWeb };
  if (u.readUrlContent !== undefined) return { name: "read_url_content", action: u.readUrlContent };
  // skill_lookup (= 37, upstream localharness.proto @257f843a) is newer than upstream's table; named as its field.
  if (u.skillLookup !== undefined) return { name: "skill_lookup", action: u.skillLookup };
  if (u.finish !== undefined) return { name: "finish", action: u.finish };
  if (u.questionsRequest !== undefined) return { name: "ask_question", action: u.questionsRequest };
  return undefined;
}

/** True when the update carries a built-in action, `mcpTool` or `customTool` (§6.4 TOOL_CALL rule). */
export function hasToolAction(update: StepUpdate): boolean {
  return update.mcpTool !== undefined || update.customTool !== undefined || builtinActionOf(update) !== undefined;
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
 * upstream does, so tool arguments are always an object. A custom call's genai.Struct `arguments`,
 * when set, comes first ({@link toolCallArguments}).
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
  const builtin = builtinActionOf(update);
  // §6.4: args are the sub-message with proto (snake_case) field names, as upstream's
  // MessageToDict(preserving_proto_field_name=True) gives them.
  if (builtin !== undefined)
    return {
      id: stepId,
      name: builtin.name,
      args: writeJson(builtin.action.$typeName, builtin.action, { protoNames: true }),
      origin: "action",
    };
  if (update.mcpTool !== undefined) {
    const mcp = update.mcpTool;
    return {
      id: stepId,
      name: mcp.toolName ?? "",
      args: parseToolArguments(mcp.argumentsJson, { nonObject: "empty" }),
      serverName: mcp.serverName ?? "",
      origin: "arguments",
    };
  }
  if (update.customTool !== undefined) {
    const call = update.customTool.toolCall;
    return {
      id: call?.id || stepId,
      name: call?.name ?? "",
      args: toolCallArguments(call),
      origin: "arguments",
    };
  }
  return undefined;
}
