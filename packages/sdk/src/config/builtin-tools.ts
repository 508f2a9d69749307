import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { HarnessSideTools, HarnessSideToolsSchema } from "../wire/index.js";
import { definedProperties } from "../defined-properties.js";

/**
 * Built-in tools the harness runs, by their SDK names (protocol §11.1). `finish` has no switch:
 * it is enabled by a response schema.
 */
export const BuiltinTool = {
  ListDirectory: "list_directory",
  SearchDirectory: "search_directory",
  FindFile: "find_file",
  ViewFile: "view_file",
  CreateFile: "create_file",
  EditFile: "edit_file",
  RunCommand: "run_command",
  AskQuestion: "ask_question",
  StartSubagent: "start_subagent",
  GenerateImage: "generate_image",
  SearchWeb: "search_web",
  ReadUrlContent: "read_url_content",
  /** One-shot timers and cron jobs (upstream `BuiltinTools.SCHEDULE`, 0.1.18; `HarnessSideTools.schedule = 17`). */
  Schedule: "schedule",
} as const;
export type BuiltinTool = (typeof BuiltinTool)[keyof typeof BuiltinTool];

/** The `HarnessSideTools` switch of each built-in (protocol §11.1). */
export const BUILTIN_TOOL_SWITCH = {
  list_directory: "listDir",
  search_directory: "grepSearch",
  find_file: "find",
  view_file: "viewFile",
  create_file: "writeToFile",
  edit_file: "fileEdit",
  run_command: "runCommand",
  ask_question: "userQuestions",
  start_subagent: "subagents",
  generate_image: "generateImage",
  search_web: "searchWeb",
  read_url_content: "readUrlContent",
  schedule: "schedule",
} as const satisfies Record<BuiltinTool, keyof HarnessSideTools>;

/** Built-in tools that change the workspace or the world: enabling them calls for a policy. */
export const WRITE_TOOLS: readonly BuiltinTool[] = [
  BuiltinTool.CreateFile,
  BuiltinTool.EditFile,
  BuiltinTool.RunCommand,
];

const ALL_TOOLS: readonly BuiltinTool[] = Object.values(BuiltinTool);

/**
 * Upstream `BuiltinTools.default()` at 0.1.19, the built-ins an agent gets when it names none:
 * every one but `ask_question` (0.1.18: an autonomous agent has no one to ask; types.py, Stars1233
 * @5ebf9881) and `list_directory` (0.1.19, CHANGELOG.md @1493021c). `disabledTools` subtract from
 * these; `enabledTools` may name any built-in.
 */
export const DEFAULT_TOOLS: readonly BuiltinTool[] = ALL_TOOLS.filter(
  (tool) => tool !== BuiltinTool.AskQuestion && tool !== BuiltinTool.ListDirectory,
);

/**
 * Upstream `BuiltinTools.minimal()` at 0.1.19, the tools of the `lightweight()` preset: 0.1.18's
 * run_command, view_file, create_file, edit_file, list_directory and search_directory
 * (types.py, Stars1233 @5ebf9881) without list_directory, which 0.1.19 took out of every set
 * (CHANGELOG.md @1493021c).
 */
export const MINIMAL_TOOLS: readonly BuiltinTool[] = [
  BuiltinTool.RunCommand,
  BuiltinTool.ViewFile,
  BuiltinTool.CreateFile,
  BuiltinTool.EditFile,
  BuiltinTool.SearchDirectory,
];

/** Options of the built-in tools (antigravity-api.md §3.3 `CapabilitiesConfig`). */
export interface CapabilitiesOptions {
  /** Only these built-ins are enabled. Exclusive with `disabledTools`. */
  enabledTools?: readonly BuiltinTool[];
  /** Every built-in of {@link DEFAULT_TOOLS} but these is enabled. Exclusive with `enabledTools`. */
  disabledTools?: readonly BuiltinTool[];
  /** Context size in tokens that triggers compaction; 0 = harness default (50,000), §15. */
  compactionThreshold?: number;
  /**
   * `run_command` (upstream `RunCommandConfig`): `maxTimeoutMs` 0 = harness default (10 min);
   * `enableSandbox` runs commands in the harness's OS sandbox where it can enforce one
   * (`agent.sandboxStatus` says whether it could; a warning is logged when it could not).
   */
  runCommand?: { maxTimeoutMs?: number; enableDaemonCommands?: boolean; enableSandbox?: boolean };
  /** Subagent limits (§17). */
  subagents?: { maxNestingDepth?: number; allowedSubagents?: readonly string[] };
}

/**
 * The enabled built-ins: {@link DEFAULT_TOOLS} by default, `enabledTools` only, or the defaults but `disabledTools`.
 * Throws `InvalidArgument` when both lists are given or a name is unknown.
 */
export function activeBuiltinTools(capabilities: CapabilitiesOptions = {}): Set<BuiltinTool> {
  const { enabledTools, disabledTools } = capabilities;
  if (enabledTools !== undefined && disabledTools !== undefined) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      "capabilities.enabledTools and capabilities.disabledTools are mutually exclusive: pass one of them",
    );
  }
  for (const name of [...(enabledTools ?? []), ...(disabledTools ?? [])]) {
    if (!ALL_TOOLS.includes(name)) {
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `unknown built-in tool ${JSON.stringify(name)}; known tools: ${ALL_TOOLS.join(", ")}`,
      );
    }
  }
  if (enabledTools !== undefined) return new Set(enabledTools);
  return new Set(DEFAULT_TOOLS.filter((tool) => !(disabledTools ?? []).includes(tool)));
}

/**
 * `HarnessConfig.harnessSideTools` with every switch of §11.1 set explicitly (older harnesses
 * took an absent `enabled` as true, newer ones as false, protocol §3). `manageTask` (field 16)
 * follows upstream 0.1.18's pairing rule: on whenever `run_command` or `schedule` is, so their
 * background tasks can be listed and stopped (CHANGELOG.md @1493021c, "Task Management Pairing").
 */
export function harnessSideTools(
  active: ReadonlySet<BuiltinTool>,
  capabilities: CapabilitiesOptions = {},
): MessageInitShape<typeof HarnessSideToolsSchema> {
  const on = (tool: BuiltinTool): { enabled: boolean } => ({ enabled: active.has(tool) });
  const run = capabilities.runCommand ?? {};
  const sub = capabilities.subagents ?? {};
  const switches = Object.fromEntries(ALL_TOOLS.map((tool) => [BUILTIN_TOOL_SWITCH[tool], on(tool)])) as Record<
    (typeof BUILTIN_TOOL_SWITCH)[BuiltinTool],
    { enabled: boolean }
  >;
  return {
    ...switches,
    manageTask: { enabled: active.has(BuiltinTool.RunCommand) || active.has(BuiltinTool.Schedule) },
    runCommand: {
      ...on(BuiltinTool.RunCommand),
      maxTimeoutMs: run.maxTimeoutMs ?? 0,
      enableDaemonCommands: run.enableDaemonCommands ?? false,
      ...(run.enableSandbox === true ? { enableSandbox: true } : {}),
    },
    subagents: {
      ...on(BuiltinTool.StartSubagent),
      ...definedProperties({ maxNestingDepth: sub.maxNestingDepth }),
      allowedSubagents: [...(sub.allowedSubagents ?? [])],
    },
  };
}

/** The built-ins whose switch is on in `switches` (the inverse of {@link harnessSideTools}). */
export function builtinToolsOf(switches: HarnessSideTools | undefined): Set<BuiltinTool> {
  return new Set(ALL_TOOLS.filter((tool) => switches?.[BUILTIN_TOOL_SWITCH[tool]]?.enabled === true));
}
