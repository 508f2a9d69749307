import type { HarnessConfig, PolicyRule, SystemInstructions } from "@antigravity-ts/sdk/wire";
import {
  AgentBehavior,
  BudgetConfig_BudgetScope,
  LifecycleHook,
  PolicyConfig_WorkspaceContainment,
} from "@antigravity-ts/sdk/internal";
import { DEFAULT_COMPACTION_THRESHOLD } from "./compaction.js";
import type { ToolDeclaration } from "../model/provider.js";
import { createFinishTool, type FinishTool } from "../tools/finish.js";
import { enabledBuiltins } from "../tools/registry.js";
import type { BuiltinTool } from "../tools/tool.js";
import type { ToolWorkerPool } from "../tools/tool-pool.js";
import { sandboxStatus, type SandboxPolicy, type SandboxStatus } from "../tools/command-launch.js";
import { createWorkspaceRoots, type WorkspaceRoots } from "../tools/workspace-paths.js";
import { createSkillLookupTool } from "../tools/skill-lookup.js";
import { runCommandWithDaemons } from "../tools/run-command.js";
import { loadSkillCatalog, type SkillCatalog } from "../tools/skills/skill-catalog.js";
import { loadRulesFiles, type RulesFile } from "../tools/skills/rules-files.js";
import { toolOutputLimitOf, type ToolOutputLimit } from "./tool-output-limit.js";

/** Default run_command limit when `maxTimeoutMs` is 0 (§5.1: "0 = harness default, 10 min"). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 10 * 60 * 1000;

/** Session-level limits of `BudgetConfig` (protocol.md `BudgetConfig`); 0 = unlimited. */
export interface SessionBudget {
  maxModelCalls: number;
  maxToolCalls: number;
  maxInputTokens: number;
  maxOutputTokens: number;
  maxTotalTokens: number;
  /** `BudgetConfig.scope` FORWARD_LOOKING: count from this connection's start (resume), not the session's. */
  forwardLooking: boolean;
}

/** A session's `HarnessConfig`, resolved into what the agent loop uses. */
export interface SessionSettings {
  readonly systemInstruction: string;
  readonly workspace: WorkspaceRoots;
  /** Enabled built-ins not overridden by a custom tool of the same name (§7). */
  readonly builtins: ReadonlyMap<string, BuiltinTool>;
  /** Client-side tools of `HarnessConfig.tools`. */
  readonly customTools: ReadonlyMap<string, ToolDeclaration>;
  readonly finish: FinishTool | undefined;
  /** Context ceiling that triggers compaction; 0 = none (a checkpoint interval alone decides). */
  readonly compactionThreshold: number;
  /** `compactionConfig.checkpointIntervalTokens`: compact each time the context grew this much; 0 = off. */
  readonly checkpointIntervalTokens: number;
  readonly enabledHooks: ReadonlySet<LifecycleHook>;
  readonly policyRules: readonly PolicyRule[];
  /** `AGENT_BEHAVIOR_INTERACTIVE`: run_command asks for confirmation (§8). */
  readonly interactive: boolean;
  readonly runCommandTimeoutMs: number;
  /** `RunCommandToolConfig.enable_daemon_commands`: run_command takes `IsDaemon` (background tasks). */
  readonly daemonCommands: boolean;
  /** `RunCommandToolConfig.enable_sandbox`: whether the session asked for run_command's OS sandbox. */
  readonly sandboxRequested: boolean;
  /** run_command's sandbox when asked for and enforceable here (command-launch.ts); undefined: commands run unsandboxed. */
  readonly commandSandbox: SandboxPolicy | undefined;
  /** What the init response reports (`sandbox_status`). */
  readonly sandboxStatus: SandboxStatus;
  readonly budget: SessionBudget;
  /** Environment of tool subprocesses. */
  readonly toolEnv: Readonly<Record<string, string>>;
  /** Where the file tools run: the server's worker pool, shared by its sessions. */
  readonly toolWorkers: ToolWorkerPool;
  /** The session's skills (`skills_config`, `skills_paths`); empty when off. */
  readonly skills: SkillCatalog;
  /** Rules files read into the system instruction (`rules_config`). */
  readonly rules: readonly RulesFile[];
  /** `toolOutputTruncation`: how much of a tool's result the model may see; undefined: all of it. */
  readonly toolOutputLimit: ToolOutputLimit | undefined;
  /** What the session's configuration asked for and could not get (skills, rules), one line each. */
  readonly notices: readonly string[];
}

/** The harness's side of run_command's sandbox: what no session's command may see, and the network. */
export interface CommandSandboxDefaults {
  /** Paths hidden from sandboxed commands: the session storage directory, the key file. */
  readonly hidden: readonly string[];
  /** Whether sandboxed commands keep the network (`ANTIGRAVITY_HARNESS_SANDBOX_NETWORK=0`: no). */
  readonly network: boolean;
}

/** Defaults that do not come from `HarnessConfig`. */
export interface SettingsDefaults {
  /** Workspace when the config names none (the harness's cwd, or `--workspace`). */
  workspace: string;
  /** Base environment of commands: see tools/command-env.ts (allow-list plus `InputConfig.env`, §3). */
  env: Readonly<Record<string, string>>;
  /** The server's tool worker pool. */
  toolWorkers: ToolWorkerPool;
  sandbox: CommandSandboxDefaults;
}

/** Resolves a session's settings from its `HarnessConfig`. */
export async function resolveSessionSettings(
  config: HarnessConfig,
  defaults: SettingsDefaults,
): Promise<SessionSettings> {
  const directories = config.workspaces.flatMap((w) =>
    w.workspaceType.case === "filesystemWorkspace" && w.workspaceType.value.directory
      ? [w.workspaceType.value.directory]
      : [],
  );
  const containment = config.policyConfig?.workspaceContainment !== PolicyConfig_WorkspaceContainment.DISABLED;
  const workspace = await createWorkspaceRoots(
    directories.length > 0 ? directories : [defaults.workspace],
    containment,
  );
  const customTools = new Map<string, ToolDeclaration>();
  for (const tool of config.tools) {
    if (!tool.name) continue;
    customTools.set(tool.name, {
      name: tool.name,
      description: tool.description ?? "",
      parameters: parseSchema(tool.parametersJsonSchema),
    });
  }
  const skills = await loadSkillCatalog(skillDirectories(config), workspace.roots[0] ?? defaults.workspace);
  const rules = await loadRulesFiles(config.rulesConfig?.filenames ?? [], workspace);
  const daemonCommands = config.harnessSideTools?.runCommand?.enableDaemonCommands === true;
  const builtins = new Map(
    [...enabledBuiltins(config.harnessSideTools), createSkillLookupTool(skills)]
      .filter((t) => t.enabled(config.harnessSideTools) && !customTools.has(t.name))
      .map((t) => (t.name === "run_command" && daemonCommands ? runCommandWithDaemons : t))
      .map((t) => [t.name, t] as const),
  );
  const finish = createFinishTool(config.finishToolSchemaJson);
  const budget = config.budgetConfig;
  const runCommandMs = config.harnessSideTools?.runCommand?.maxTimeoutMs ?? 0;
  const sandboxRequested = config.harnessSideTools?.runCommand?.enableSandbox === true;
  const status = await sandboxStatus();
  const commandSandbox =
    sandboxRequested && status.available ? { writable: workspace.roots, ...defaults.sandbox } : undefined;
  const checkpointInterval = config.compactionConfig?.checkpointIntervalTokens ?? 0;
  return {
    systemInstruction: [
      systemInstruction(config.systemInstructions, workspace.roots, finish !== undefined),
      ...skillsSection(skills, builtins.has("skill_lookup")),
      ...rulesSection(rules.files),
    ].join("\n\n"),
    workspace,
    builtins,
    customTools,
    finish,
    // An interval without a threshold is not capped by the default threshold (it would always fire first).
    // CompactionConfig.token_threshold (upstream localharness.proto @257f843a; upstream 0.1.19 sends it equal to compaction_threshold).
    compactionThreshold:
      config.compactionConfig?.tokenThreshold ||
      config.compactionThreshold ||
      (checkpointInterval > 0 ? 0 : DEFAULT_COMPACTION_THRESHOLD),
    checkpointIntervalTokens: checkpointInterval,
    enabledHooks: new Set(config.enabledHooks),
    policyRules: config.policyConfig?.rules ?? [],
    interactive: config.agentBehavior === AgentBehavior.INTERACTIVE,
    runCommandTimeoutMs: runCommandMs > 0 ? runCommandMs : DEFAULT_COMMAND_TIMEOUT_MS,
    daemonCommands,
    sandboxRequested,
    commandSandbox,
    sandboxStatus: status,
    budget: {
      maxModelCalls: budget?.maxModelCalls ?? 0,
      maxToolCalls: budget?.maxToolCalls ?? 0,
      maxInputTokens: Number(budget?.maxInputTokens ?? 0n),
      maxOutputTokens: Number(budget?.maxOutputTokens ?? 0n),
      maxTotalTokens: Number(budget?.maxTotalTokens ?? 0n),
      forwardLooking: budget?.scope === BudgetConfig_BudgetScope.FORWARD_LOOKING,
    },
    toolEnv: defaults.env,
    toolWorkers: defaults.toolWorkers,
    skills,
    rules: rules.files,
    toolOutputLimit: toolOutputLimitOf(config.toolOutputTruncation),
    notices: [...skills.notices, ...rules.notices],
  };
}

/**
 * The skill directories: `skills_config.skills[].directory_path` (upstream localharness.proto
 * @257f843a) after the older `skills_paths` (field 9); none when `skills_config.enabled` is
 * false (the field's upstream default is true, so an absent one is on).
 */
function skillDirectories(config: HarnessConfig): string[] {
  if (config.skillsConfig?.enabled === false) return [];
  const sources = (config.skillsConfig?.skills ?? []).flatMap((source) =>
    source.source.case === "directoryPath" ? [source.source.value] : [],
  );
  return [...config.skillsPaths, ...sources];
}

/** The skills' names and descriptions, so the model knows what `skill_lookup` can give it. */
function skillsSection(skills: SkillCatalog, offered: boolean): string[] {
  if (!offered) return [];
  const lines = [...skills.skills.values()].map((skill) => `- ${skill.name}: ${skill.description}`);
  return [
    `## Skills\nThese skills are available. Before a task one of them covers, call skill_lookup with operation lookup_skills and its name, and follow its instructions.\n${lines.join("\n")}`,
  ];
}

/** The rules files' text, each under its path. */
function rulesSection(files: readonly RulesFile[]): string[] {
  if (files.length === 0) return [];
  return [`## Rules\nFollow these rules.\n\n${files.map((file) => `### ${file.path}\n${file.text}`).join("\n\n")}`];
}

/** What the model is offered: custom tools first (declaration order), then built-ins, then `finish`. */
export function toolDeclarations(settings: SessionSettings): ToolDeclaration[] {
  return [
    ...settings.customTools.values(),
    ...[...settings.builtins.values()].map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    })),
    ...(settings.finish === undefined ? [] : [settings.finish.declaration]),
  ];
}

function parseSchema(json: string | undefined): Record<string, unknown> {
  if (json === undefined || json.trim() === "") return { type: "object", properties: {} };
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // An unusable schema still lets the model call the tool without arguments.
  }
  return { type: "object", properties: {} };
}

const DEFAULT_IDENTITY = "You are an autonomous software agent running in the Antigravity reference harness.";

function systemInstruction(
  instructions: SystemInstructions | undefined,
  roots: readonly string[],
  hasFinish: boolean,
): string {
  const standard = [
    `Work inside the workspace: ${roots.join(", ")}. Relative paths resolve against ${roots[0] ?? "it"}.`,
    "Use the tools to inspect and change files and to run commands; tool results come back to you as JSON.",
    hasFinish
      ? "When the task is complete, call the finish tool exactly once with the final result."
      : "When you are done, answer the user concisely.",
  ].join("\n");
  const kind = instructions?.type;
  if (kind?.case === "custom") {
    // §5.1: custom instructions replace the built-in prompt.
    return kind.value.part
      .map((part) => {
        if (part.part.case === "text") return part.part.value;
        if (part.part.case === "template")
          return [
            `[${part.part.value.name ?? "template"}]`,
            ...part.part.value.args.map((a) => `${a.name ?? ""}: ${a.value ?? ""}`),
          ].join("\n");
        return "";
      })
      .join("\n");
  }
  const identity =
    kind?.case === "appended" && kind.value.customIdentity ? kind.value.customIdentity : DEFAULT_IDENTITY;
  const sections =
    kind?.case === "appended" ? kind.value.appendedSections.map((s) => `## ${s.title ?? ""}\n${s.content ?? ""}`) : [];
  return [identity, standard, ...sections].join("\n\n");
}
