import type { PreToolArgs } from "../gen/antigravity/localharness/localharness_pb.js";
import type { ToolCall } from "../step.js";
import { normalizePathArguments } from "./file-uri.js";
import { isRecord } from "../util/json-value.js";
import { parseToolArguments } from "./tool-arguments.js";

/**
 * Harness tool names that are not the SDK's (protocol §11.1): the harness calls the subagent tool
 * by its action field, `invoke_subagent`; steps, policies and hooks say `start_subagent`.
 * Upstream: `local_connection_config.PROTO_FIELD_TO_SDK_NAME`, applied by `hook_router.py`'s
 * `_handle_pre_tool`, `_handle_post_tool` and `_handle_on_tool_error`.
 */
const SDK_NAME_OF_HARNESS_NAME: Readonly<Record<string, string>> = { invoke_subagent: "start_subagent" };

/**
 * Step action fields whose model-facing argument is spelled differently (protocol §11.1, §11.2):
 * a built-in step carries the action sub-message with proto field names (`runCommand.commandLine`
 * → `command_line`), while the call the harness asks policies and PRE_TOOL hooks about carries the
 * arguments as the model wrote them (`CommandLine`). The canonical spelling is the model's — the
 * one upstream's policy examples read (`hooks/policy.py`: `args.get("CommandLine", "")`) and the
 * one the harness accepts back in `modifiedArgs` (0.1.14: `modifiedArgumentsJson`) — so action fields are renamed to it.
 * `find_file`'s `query` is the reference harness's `pattern` (docs/harness.md). Fields that only
 * report results (`exit_code`, `combined_output`, `output`…) keep their names.
 */
const ARGUMENT_OF_ACTION_FIELD: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  run_command: { command_line: "CommandLine", working_dir: "Cwd" },
  find_file: { query: "pattern" },
};

/** Where a call's arguments come from, which decides the spelling they arrive in. */
export type ToolCallOrigin =
  /** A built-in step's action sub-message (snake_case proto field names, §6.4). */
  | "action"
  /** Arguments as the model wrote them: `PreToolArgs.argumentsJson`, MCP and client tool calls. */
  | "arguments";

/** What {@link canonicalToolCall} turns into a {@link ToolCall}. */
export interface RawToolCall {
  id: string;
  /** The name as the harness sent it (`invoke_subagent` or `start_subagent`). */
  name: string;
  args: unknown;
  /** Set (possibly "") for MCP tool calls. */
  serverName?: string;
}

/**
 * The SDK name of a tool the harness names `name`: `invoke_subagent` → `start_subagent`; MCP tools
 * (`serverName` non-empty) and every other name are kept.
 */
export function sdkToolName(name: string, serverName?: string): string {
  if (serverName !== undefined && serverName !== "") return name;
  return Object.hasOwn(SDK_NAME_OF_HARNESS_NAME, name) ? (SDK_NAME_OF_HARNESS_NAME[name] ?? name) : name;
}

/**
 * The one spelling of a tool call that every user-facing surface shows — policy predicates and
 * ask-user handlers, PRE_TOOL hooks, steps and stream chunks: the SDK tool name, arguments in the
 * model's spelling, and `file://` / `cns://` paths under the path keys normalised to local paths
 * with the first one as `canonicalPath` (upstream `hook_router._normalize_path_args` and
 * `LocalConnectionStep.from_dict`). The arguments are copied, never changed in place. Arguments
 * that are not a JSON object (text a harness sent that does not parse) are kept as they are.
 *
 * @example
 * canonicalToolCall({ id: "t:3", name: "run_command", args: { command_line: "ls" } }, "action");
 * // { id: "t:3", name: "run_command", args: { CommandLine: "ls" } }
 */
export function canonicalToolCall(raw: RawToolCall, origin: ToolCallOrigin): ToolCall {
  const name = sdkToolName(raw.name, raw.serverName);
  const call: ToolCall = { id: raw.id, name, args: raw.args };
  if (isRecord(raw.args)) {
    const args = origin === "action" ? renameActionFields(name, raw.args) : { ...raw.args };
    const canonicalPath = normalizePathArguments(args);
    call.args = args;
    if (canonicalPath !== undefined && canonicalPath !== "") call.canonicalPath = canonicalPath;
  }
  if (raw.serverName !== undefined) call.serverName = raw.serverName;
  return call;
}

/**
 * The call a `PreToolArgs` describes (PRE_TOOL hooks, §10; dynamic policy requests, §12), in the
 * canonical spelling. `argumentsJson` is parsed ({@link parseToolArguments} with `nonObject: "text"`):
 * text that is not JSON is kept as a string so a hook or predicate still sees what the harness sent. `serverName` only when non-empty.
 */
export function toolCallFromPreToolArgs(args: PreToolArgs | undefined): ToolCall {
  const serverName = args?.serverName ?? "";
  return canonicalToolCall(
    {
      id: args?.callId ?? "",
      name: args?.toolName ?? "",
      args: parseToolArguments(args?.argumentsJson, { nonObject: "text" }),
      ...(serverName === "" ? {} : { serverName }),
    },
    "arguments",
  );
}

function renameActionFields(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const renames = Object.hasOwn(ARGUMENT_OF_ACTION_FIELD, tool) ? ARGUMENT_OF_ACTION_FIELD[tool] : undefined;
  if (renames === undefined) return { ...args };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const renamed = Object.hasOwn(renames, key) ? (renames[key] ?? key) : key;
    out[renamed] = value;
  }
  return out;
}
