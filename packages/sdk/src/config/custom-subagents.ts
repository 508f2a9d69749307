import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import { ToolRunner } from "../tools/tool-runner.js";
import type { Tool } from "../tools/tool.js";
import type { CustomAgentSchema, ToolSchema } from "../wire/index.js";
import { AgentBehavior } from "../wire/wire-enums.gen.js";
import { activeBuiltinTools, BuiltinTool, harnessSideTools } from "./builtin-tools.js";
import { systemInstructionsOf, type SystemInstructionsOption } from "./system-instructions.js";
import { definedProperties } from "../defined-properties.js";

/** How autonomous a subagent is (upstream `types.AgentBehavior`, protocol §19). */
export type SubagentBehavior = "autonomous" | "interactive" | "minimal";

/**
 * What a static subagent may do (upstream `types.SubagentCapabilities`). `enabledTools` and
 * `disabledTools` are exclusive; with neither, the default built-ins (`DEFAULT_TOOLS`); without
 * capabilities at all, the read-only built-ins (upstream `BuiltinTools.read_only()`).
 */
export interface SubagentCapabilitiesOptions {
  /** Default `"autonomous"`. */
  agentBehavior?: SubagentBehavior;
  /** The subagents this one may start; needs `start_subagent` enabled; names of declared subagents. */
  allowedSubagents?: readonly string[];
  enabledTools?: readonly BuiltinTool[];
  disabledTools?: readonly BuiltinTool[];
  /** `run_command` limits: 0 = harness default timeout (10 min). */
  runCommand?: { maxTimeoutMs?: number; enableDaemonCommands?: boolean; enableSandbox?: boolean };
}

/**
 * A static subagent (upstream `types.SubagentConfig`), sent in `HarnessConfig.customSubagents` as
 * a `CustomAgent` (protocol §5.1, §17). The model starts it with the `start_subagent` tool.
 */
export interface SubagentOptions {
  /** Unique name the model uses to start it. */
  name: string;
  description: string;
  /** A string or `{ sections }` is appended to the subagent's default instructions; `{ custom }` replaces them. */
  systemInstructions?: SystemInstructionsOption;
  /** Default: the read-only built-ins. */
  capabilities?: SubagentCapabilitiesOptions;
  /**
   * Client tools of the subagent: a tool object (run by this SDK; not offered to the main agent
   * unless it is one of its tools too) or the name of a tool the harness knows.
   */
  tools?: readonly (Tool | string)[];
  /**
   * The model this subagent runs, by name (upstream 0.1.18 `SubagentConfig.model`, sent as
   * `CustomAgent.model = ModelConfig{name}`, localharness.proto @257f843a): a subagent pins a model
   * name only and runs against the agent's endpoint (upstream local_connection.py
   * `_build_custom_subagents_protos`). Not known to a 0.1.14 harness (`wireEra`).
   */
  model?: string;
}

/**
 * Upstream `BuiltinTools.read_only()` at 0.1.19: 0.1.18's set (types.py, Stars1233 @5ebf9881)
 * without `list_directory` (CHANGELOG.md @1493021c); its `finish` has no switch here (a response
 * schema enables it).
 */
const READ_ONLY: readonly BuiltinTool[] = [
  BuiltinTool.SearchDirectory,
  BuiltinTool.FindFile,
  BuiltinTool.ViewFile,
  BuiltinTool.ReadUrlContent,
  BuiltinTool.Schedule,
];

const BEHAVIOR: Record<SubagentBehavior, AgentBehavior> = {
  autonomous: AgentBehavior.AUTONOMOUS,
  interactive: AgentBehavior.INTERACTIVE,
  minimal: AgentBehavior.MINIMAL,
};

type CustomAgentInit = MessageInitShape<typeof CustomAgentSchema>;

function invalid(message: string): never {
  throw new SdkError(ErrorCode.InvalidArgument, message);
}

/**
 * Checks the subagent names (upstream `BaseLocalAgentConfig._validate_allowed_subagents` and
 * `SubagentCapabilities._validate_subagents_and_tools`): names are non-empty and unique; every
 * `allowedSubagents` entry, the main agent's (`mainAllowed`) and each subagent's, names a declared
 * subagent; a subagent lists `allowedSubagents` only with `start_subagent` enabled.
 */
export function validateSubagents(
  subagents: readonly SubagentOptions[],
  mainAllowed: readonly string[] | undefined,
): void {
  const names = new Set<string>();
  for (const sub of subagents) {
    if (typeof sub.name !== "string" || sub.name.trim() === "")
      invalid("customSubagents: every subagent needs a non-empty name");
    if (typeof sub.description !== "string")
      invalid(`customSubagents: subagent ${JSON.stringify(sub.name)} needs a description`);
    if (names.has(sub.name)) invalid(`customSubagents: the name ${JSON.stringify(sub.name)} is used twice`);
    names.add(sub.name);
  }
  const valid = [...names].sort();
  const check = (allowed: readonly string[] | undefined, where: string): void => {
    const unknown = [...new Set((allowed ?? []).filter((name) => !names.has(name)))].sort();
    if (unknown.length > 0)
      invalid(
        `Unknown subagent name(s) in ${where}: ${JSON.stringify(unknown)}. Valid subagents are: ${JSON.stringify(valid)}`,
      );
  };
  if (subagents.length > 0) check(mainAllowed, "capabilities.subagents.allowedSubagents");
  for (const sub of subagents) {
    if (sub.model !== undefined && (typeof sub.model !== "string" || sub.model.trim() === "")) {
      invalid(
        `customSubagents ${JSON.stringify(sub.name)}: model must be a non-empty model name, got ${JSON.stringify(sub.model)}`,
      );
    }
    const caps = sub.capabilities;
    if (caps?.allowedSubagents === undefined) continue;
    if (!activeBuiltinTools(caps).has(BuiltinTool.StartSubagent)) {
      invalid(
        `customSubagents ${JSON.stringify(sub.name)}: allowedSubagents cannot be specified when start_subagent is disabled or omitted from enabledTools`,
      );
    }
    check(caps.allowedSubagents, `customSubagents ${JSON.stringify(sub.name)} capabilities.allowedSubagents`);
  }
}

/**
 * The subagents' tool objects that the main agent does not have (upstream
 * `AgentConfig._get_all_custom_tools`): they are registered for execution but declared only in
 * their subagent's `CustomAgent.tools`. Two different tools with one name throw `InvalidArgument`.
 */
export function subagentOnlyTools(subagents: readonly SubagentOptions[], mainTools: readonly Tool[]): Tool[] {
  const seen = new Map<string, Tool>(mainTools.map((tool) => [tool.name, tool]));
  const only: Tool[] = [];
  for (const sub of subagents) {
    for (const tool of sub.tools ?? []) {
      if (typeof tool === "string") continue;
      if (typeof tool !== "object" || tool === null || typeof tool.name !== "string") {
        invalid(`Invalid tool type in subagent '${sub.name}' tools list: ${String(tool)}`);
      }
      const known = seen.get(tool.name);
      if (known === undefined) {
        seen.set(tool.name, tool);
        only.push(tool);
      } else if (known !== tool) {
        invalid(
          `Duplicate custom tool name '${tool.name}' detected across agent and subagent '${sub.name}' configurations.`,
        );
      }
    }
  }
  return only;
}

/**
 * `HarnessConfig.customSubagents` (upstream `LocalConnectionStrategy._build_custom_subagents_protos`):
 * each subagent's instructions, built-in switches (nested `subagents.enabled` when it has
 * `start_subagent`, its `allowedSubagents`), tools (a name the session's `runner` knows gets
 * that tool's declaration, as upstream resolves names against its tool runner) and behaviour.
 */
export function customSubagentsConfig(
  subagents: readonly SubagentOptions[],
  runner: ToolRunner | undefined,
): CustomAgentInit[] {
  const known = new Map(
    (runner?.declarations() ?? []).map((declaration) => [declaration.name ?? "", declaration] as const),
  );
  return subagents.map((sub) => {
    const caps = sub.capabilities ?? { enabledTools: READ_ONLY };
    const switches = harnessSideTools(activeBuiltinTools(caps), {
      ...definedProperties({ runCommand: caps.runCommand }),
      ...(caps.allowedSubagents === undefined ? {} : { subagents: { allowedSubagents: caps.allowedSubagents } }),
    });
    const tools = (sub.tools ?? []).map(
      (tool): MessageInitShape<typeof ToolSchema> =>
        typeof tool === "string"
          ? (known.get(tool) ?? { name: tool })
          : (new ToolRunner([tool]).declarations()[0] as MessageInitShape<typeof ToolSchema>),
    );
    const instructions = systemInstructionsOf(sub.systemInstructions);
    if (caps.agentBehavior !== undefined && !Object.hasOwn(BEHAVIOR, caps.agentBehavior)) {
      invalid(
        `customSubagents ${JSON.stringify(sub.name)}: agentBehavior must be "autonomous", "interactive" or "minimal", got ${JSON.stringify(caps.agentBehavior)}`,
      );
    }
    return {
      name: sub.name,
      description: sub.description,
      ...definedProperties({ systemInstructions: instructions }),
      harnessSideTools: switches,
      tools,
      agentBehavior: BEHAVIOR[caps.agentBehavior ?? "autonomous"],
      ...(sub.model === undefined ? {} : { model: { name: sub.model } }),
    };
  });
}
