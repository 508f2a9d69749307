import { isAbsolute, resolve } from "node:path";
import { builtinToolsOf, harnessSideTools } from "@antigravity-ts/sdk";
import {
  BudgetConfigSchema,
  HarnessSideToolsSchema,
  PolicyConfigSchema,
  PolicyConfig_WorkspaceContainment as Containment,
  WorkspaceSchema,
  create,
  type BudgetConfig,
  type HarnessConfig,
} from "@antigravity-ts/sdk/wire";
import { definedProperties } from "@antigravity-ts/sdk/internal";
import type { SessionRules } from "./gateway-session.js";
import { applyPolicyFloor, describeRule } from "./policy-floor.js";

/** Why a page's configuration was refused: the browser gets close 1008 with this reason. */
export class ConfigRefusal extends Error {
  override readonly name = "ConfigRefusal";
}

/**
 * Puts the operator's values into a page's `HarnessConfig` (protocol §5.1), in place. Fields a page
 * cannot have are refused with a {@link ConfigRefusal} (thrown); fields the page may only narrow
 * are narrowed, and every change is described in the returned notes for the log. The session id
 * and continuation mode are the resume check's business, not this function's. docs/gateway.md
 * has the table of what happens to each field.
 */
export function pinSessionConfig(config: HarnessConfig, rules: SessionRules): string[] {
  const notes: string[] = [];
  const { template } = rules;
  config.workspaces = pinnedPaths("workspace", directoriesOf(config), rules.workspaces).map((directory) =>
    create(WorkspaceSchema, { workspaceType: { case: "filesystemWorkspace", value: { directory } } }),
  );
  config.skillsPaths = pinnedPaths("skills path", config.skillsPaths, template.skillsPaths);
  if (config.appDataDir && config.appDataDir !== template.appDataDir)
    refuse(`appDataDir is set by the gateway; omit it`);
  setOrClear(config, "appDataDir", template.appDataDir);
  if (config.mcpServers.length > 0)
    refuse("MCP servers are configured by the gateway operator; a page cannot add them");
  config.mcpServers = [...template.mcpServers];
  if (config.customSubagents.length > 0)
    refuse("custom subagents are not accepted from a page (they carry their own tools)");
  if ((config.initialTrajectory?.length ?? 0) > 0) refuse("initialTrajectory is not accepted from a page");
  // The harness reads these directories and files into the model's context (skills/skill-catalog.ts,
  // skills/rules-files.ts of @antigravity-ts/harness): only the operator names them.
  if ((config.skillsConfig?.skills.length ?? 0) > 0)
    refuse("skills directories are configured by the gateway operator; a page cannot add them");
  if ((config.rulesConfig?.filenames.length ?? 0) > 0)
    refuse("rules files are configured by the gateway operator; a page cannot add them");
  setOrClear(config, "skillsConfig", template.skillsConfig);
  setOrClear(config, "rulesConfig", template.rulesConfig);
  if (config.models.length > 0) notes.push("models replaced by the gateway's");
  config.models = [...template.models];
  if (rules.pinsSystemInstructions) {
    if (config.systemInstructions !== undefined) notes.push("system instructions replaced by the gateway's");
    config.systemInstructions = template.systemInstructions;
  }
  pinTools(config, rules, notes);
  pinPolicies(config, rules, notes);
  if (template.budgetConfig !== undefined) config.budgetConfig = capBudget(config.budgetConfig, template.budgetConfig);
  return notes;
}

function refuse(reason: string): never {
  throw new ConfigRefusal(reason);
}

function directoriesOf(config: HarnessConfig): string[] {
  return config.workspaces.map((workspace) => {
    const { case: kind, value } = workspace.workspaceType;
    if (kind !== "filesystemWorkspace" || !value.directory)
      refuse("only filesystem workspaces with a directory are accepted");
    return value.directory;
  });
}

/** A page may name some of the operator's directories (exactly, after normalising); none means all of them. */
function pinnedPaths(what: string, requested: readonly string[], allowed: readonly string[]): string[] {
  if (requested.length === 0) return [...allowed];
  return requested.map((path) => {
    const match = isAbsolute(path) ? allowed.find((candidate) => candidate === resolve(path)) : undefined;
    if (match === undefined)
      refuse(`${what} ${JSON.stringify(path)} is not one of the gateway's; omit it to use the gateway's`);
    return match;
  });
}

/** Built-ins: what the page asked for and the operator allows; run_command limits capped (§11.1). */
function pinTools(config: HarnessConfig, rules: SessionRules, notes: string[]): void {
  const requested = builtinToolsOf(config.harnessSideTools);
  const granted = new Set([...requested].filter((tool) => rules.tools.has(tool)));
  const refused = [...requested].filter((tool) => !granted.has(tool));
  if (refused.length > 0) notes.push(`switched off ${refused.join(", ")} (not in the gateway's tools)`);
  const run = config.harnessSideTools?.runCommand;
  const ceiling = rules.runCommand.maxTimeoutMs;
  const asked = run?.maxTimeoutMs ?? 0;
  const maxTimeoutMs = ceiling > 0 && (asked === 0 || asked > ceiling) ? ceiling : asked;
  const enableDaemonCommands = run?.enableDaemonCommands === true && rules.runCommand.enableDaemonCommands;
  // The sandbox: the operator's when set, else the page's (a page can only turn it on).
  const enableSandbox = rules.runCommand.enableSandbox || run?.enableSandbox === true;
  const sub = config.harnessSideTools?.subagents;
  config.harnessSideTools = create(
    HarnessSideToolsSchema,
    harnessSideTools(granted, {
      runCommand: { maxTimeoutMs, enableDaemonCommands, enableSandbox },
      subagents: {
        allowedSubagents: sub?.allowedSubagents ?? [],
        ...definedProperties({ maxNestingDepth: sub?.maxNestingDepth }),
      },
    }),
  );
}

/** Containment is the operator's (a page may only turn it on); the floor goes around the page's rules (§12). */
function pinPolicies(config: HarnessConfig, rules: SessionRules, notes: string[]): void {
  const asked = config.policyConfig?.workspaceContainment ?? Containment.UNSPECIFIED;
  if (rules.containment && asked === Containment.DISABLED)
    refuse("workspace containment is required by the gateway; a page cannot disable it");
  const containment = rules.containment || asked === Containment.ENABLED ? Containment.ENABLED : Containment.DISABLED;
  const { rules: merged, dropped } = applyPolicyFloor(
    config.policyConfig?.rules ?? [],
    rules.denyRules,
    rules.askRules,
  );
  if (dropped.length > 0)
    notes.push(`dropped page policies that would widen the gateway's floor: ${dropped.map(describeRule).join(", ")}`);
  config.policyConfig = create(PolicyConfigSchema, { rules: merged, workspaceContainment: containment });
}

/** Each limit is the smaller of the page's and the operator's (0 or unset = unlimited); the operator's scope. */
function capBudget(page: BudgetConfig | undefined, operator: BudgetConfig): BudgetConfig {
  const cap = <T extends number | bigint>(asked: T | undefined, limit: T | undefined): T | undefined =>
    limit === undefined || limit <= 0 ? asked : asked === undefined || asked <= 0 || asked > limit ? limit : asked;
  const budget = create(BudgetConfigSchema);
  setOrClear(budget, "maxModelCalls", cap(page?.maxModelCalls, operator.maxModelCalls));
  setOrClear(budget, "maxToolCalls", cap(page?.maxToolCalls, operator.maxToolCalls));
  setOrClear(budget, "maxInputTokens", cap(page?.maxInputTokens, operator.maxInputTokens));
  setOrClear(budget, "maxOutputTokens", cap(page?.maxOutputTokens, operator.maxOutputTokens));
  setOrClear(budget, "maxTotalTokens", cap(page?.maxTotalTokens, operator.maxTotalTokens));
  setOrClear(budget, "scope", operator.scope ?? page?.scope);
  return budget;
}

/** Sets an optional field, or removes it (explicit presence, §4.1: unset fields are not sent). */
function setOrClear<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}
