import type {
  HarnessSideTools,
  MessageInitShape,
  UserQuestionsRequestSchema,
  UserQuestionsResponse,
} from "@antigravity-ts/sdk/wire";
import type { StepFields } from "../step-ledger.js";
import type { SandboxPolicy } from "./command-launch.js";
import type { WorkspaceRoots } from "./workspace-paths.js";
import type { TaskBoard } from "./tasks/task-board.js";

/** A tool failure; its message becomes the step's error and what the model sees. */
export class ToolError extends Error {
  override readonly name = "ToolError";
}

/** What a built-in tool may use while it runs. */
export interface ToolContext {
  readonly workspace: WorkspaceRoots;
  /** Environment of subprocesses: an allow-list of the harness's plus `InputConfig.env` (§3; tools/command-env.ts). */
  readonly env: Readonly<Record<string, string>>;
  /** run_command limit (`RunCommandToolConfig.maxTimeoutMs`, 0 → 10 min, §5.1). */
  readonly runCommandTimeoutMs: number;
  /** run_command's sandbox (`RunCommandToolConfig.enable_sandbox`, where it can be enforced); undefined: none. */
  readonly sandbox: SandboxPolicy | undefined;
  /** Aborts on halt or disconnect. */
  readonly signal: AbortSignal;
  /** The session's timers and background commands (schedule, manage_task, run_command IsDaemon). */
  readonly tasks: TaskBoard;
  /** `RunCommandToolConfig.enable_daemon_commands`: run_command may start background commands. */
  readonly daemonCommands: boolean;
  /** Sends an ACTIVE update of the running step (e.g. command output so far). */
  progress(patch: StepFields): void;
  /** Puts the step in WAITING_FOR_USER with a `questionsRequest` and waits for the answer (§9). */
  askUser(request: MessageInitShape<typeof UserQuestionsRequestSchema>): Promise<UserQuestionsResponse>;
}

/** The result of a successful built-in call. */
export interface ToolOutcome {
  /** The action payload of the finished step (§11.2), e.g. `{ runCommand: {…} }`. */
  action: StepFields;
  /** The JSON object the model sees; also `PostToolArgs.result` (§10). */
  response: Record<string, unknown>;
  /** Step `text`, where §11.2 puts output there (search_directory). */
  text?: string;
}

/** Names of the built-in tools, as the model sees them (the SDK names of §11.1). */
export type BuiltinToolName =
  | "list_directory"
  | "view_file"
  | "find_file"
  | "search_directory"
  | "create_file"
  | "edit_file"
  | "run_command"
  | "ask_question"
  | "skill_lookup"
  | "schedule"
  | "manage_task";

/** A harness-side tool (§11). */
export interface BuiltinTool {
  readonly name: BuiltinToolName;
  readonly description: string;
  /** JSON Schema of the model-facing arguments. */
  readonly parameters: Record<string, unknown>;
  /** Whether the session's `HarnessSideTools` switch enables it (absent or `enabled:false` → off). */
  enabled(switches: HarnessSideTools | undefined): boolean;
  /** Step fields shown before the call runs, derived from the arguments alone. */
  describe(args: Record<string, unknown>): StepFields;
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome>;
}

/** The `HarnessSideTools` switches of the built-ins (§11.1). */
export type ToolSwitch =
  | "listDir"
  | "viewFile"
  | "find"
  | "grepSearch"
  | "writeToFile"
  | "fileEdit"
  | "runCommand"
  | "userQuestions"
  | "schedule"
  | "manageTask";

/** What {@link defineBuiltinTool} needs: a tool without `enabled`, plus the switch that enables it. */
export interface BuiltinToolSpec extends Omit<BuiltinTool, "enabled"> {
  /** Enabled by `HarnessSideTools[toolSwitch].enabled === true`; absent or false → off (§3 schema notes). */
  readonly toolSwitch: ToolSwitch;
}

/** A built-in tool enabled by its `HarnessSideTools` switch. */
export function defineBuiltinTool(spec: BuiltinToolSpec): BuiltinTool {
  const { toolSwitch, ...tool } = spec;
  return { ...tool, enabled: (switches) => switches?.[toolSwitch]?.enabled === true };
}

/** JSON Schema of an arguments object. */
export function objectSchema(
  properties: Record<string, Record<string, unknown>>,
  required: readonly string[] = [],
): Record<string, unknown> {
  return { type: "object", properties, required: [...required] };
}

/** A described parameter of a JSON Schema type. */
export function param(type: "string" | "integer" | "boolean", description: string): Record<string, unknown> {
  return { type, description };
}
