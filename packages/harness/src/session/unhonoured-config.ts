import type { HarnessConfig } from "@antigravity-ts/sdk/wire";

/**
 * The parts of a `HarnessConfig` this harness accepts but does not honour, one line each, so the
 * session can warn about them once on stderr: a field that changes nothing is never silent.
 * (Model fields are judged by `selectProvider`, which knows which model it uses.) Fields that
 * upstream sends on every session and that have nothing to act on here (`appDataDir`: the harness
 * keeps no app data) are listed in docs/upstream-differences.md instead of warned about.
 */
export function unhonouredConfigFields(config: HarnessConfig): string[] {
  const tools = config.harnessSideTools;
  const customToolExtras = config.tools
    .filter((tool) => (tool.responseJsonSchema ?? "") !== "" || tool.deferLoading === true)
    .map((tool) => tool.name ?? "?");
  const fields: [boolean, string][] = [
    [config.mcpServers.length > 0, `mcpServers (${config.mcpServers.map((server) => server.name ?? "?").join(", ")})`],
    [
      tools?.subagents?.enabled === true || config.customSubagents.length > 0,
      "subagents (harnessSideTools.subagents, customSubagents)",
    ],
    [tools?.generateImage?.enabled === true, "generate_image (harnessSideTools.generateImage)"],
    [tools?.searchWeb?.enabled === true, "search_web (harnessSideTools.searchWeb)"],
    [tools?.readUrlContent?.enabled === true, "read_url_content (harnessSideTools.readUrlContent)"],
    [tools?.toolSearchConfig?.enabled === true, "harnessSideTools.toolSearchConfig"],
    [customToolExtras.length > 0, `tools[].responseJsonSchema / deferLoading (${customToolExtras.join(", ")})`],
    [(config.initialTrajectory?.length ?? 0) > 0, "initialTrajectory"],
    [
      config.retryConfig?.modelOutputRetry !== undefined,
      "retryConfig.modelOutputRetry (model API retries are honoured)",
    ],
    // The 0.1.15–0.1.19 fields (upstream localharness.proto @257f843a) this harness does not act on yet.
    // auto(): this harness has no safety assessor, so nothing is assessed, flagged or asked about.
    [
      config.policyConfig?.autoConfig?.enabled === true,
      "policyConfig.autoConfig (auto policy mode: no safety assessment here; the policy rules alone decide tool calls)",
    ],
    [(config.compactionConfig?.maxContextTokens ?? 0) > 0, "compactionConfig.maxContextTokens"],
    [(tools?.runCommand?.executionMode ?? 0) > 1, "runCommand.executionMode (commands run synchronously)"],
    [builtinSections(config).length > 0, `systemInstructions builtinSection (${builtinSections(config).join(", ")})`],
  ];
  return fields.filter(([present]) => present).map(([, name]) => name);
}

/** The names of `CustomSystemInstructions.Part.builtin_section` parts (upstream @257f843a), which this harness does not expand. */
function builtinSections(config: HarnessConfig): string[] {
  const instructions = config.systemInstructions?.type;
  if (instructions?.case !== "custom") return [];
  return instructions.value.part.flatMap((part) => (part.part.case === "builtinSection" ? [part.part.value] : []));
}
