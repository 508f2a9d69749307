import { describe, expect, it } from "vitest";
import { HarnessConfigSchema, toJson } from "../wire/index.js";
import { activeBuiltinTools, BuiltinTool, DEFAULT_TOOLS } from "./builtin-tools.js";
import { buildHarnessConfig } from "./harness-config.js";

// Upstream's ResolveActiveToolsTest, new since 0.1.14
// (Stars1233/antigravity-sdk-python google/antigravity/connections/connection_test.py
// @238766a385e2087fb98238d112a13fc9efc28b29, `connection.resolve_active_tools`): 5 cases, 4 ported
// against `activeBuiltinTools` and the subagent switches the SDK sends.
//
// Skipped (1): test_custom_defaults passes resolve_active_tools a `defaults=` list of its own; the
// SDK has no such parameter (a subagent without tool lists gets read-only defaults inside
// buildHarnessConfig, custom-subagents.test.ts), so there is nothing of ours to call with it.

const SOURCE = "Stars1233 connection_test.py @238766a3";

describe(`resolve_active_tools (${SOURCE})`, () => {
  it("test_none_config_returns_default", () => {
    expect(activeBuiltinTools()).toEqual(new Set(DEFAULT_TOOLS));
  });

  it("test_enabled_tools_overrides_defaults", () => {
    expect(activeBuiltinTools({ enabledTools: [BuiltinTool.ViewFile, BuiltinTool.AskQuestion] })).toEqual(
      new Set([BuiltinTool.ViewFile, BuiltinTool.AskQuestion]),
    );
  });

  it("test_disabled_tools_subtracts_from_default", () => {
    const active = activeBuiltinTools({ disabledTools: [BuiltinTool.RunCommand] });
    expect(active).toEqual(new Set(DEFAULT_TOOLS.filter((tool) => tool !== BuiltinTool.RunCommand)));
    expect(active.has(BuiltinTool.AskQuestion)).toBe(false);
  });

  it("test_subagent_capabilities: a subagent's disabledTools subtract from the defaults too", () => {
    const json = toJson(
      HarnessConfigSchema,
      buildHarnessConfig({
        customSubagents: [{ name: "s", description: "d", capabilities: { disabledTools: [BuiltinTool.RunCommand] } }],
      }),
    ) as { customSubagents: { harnessSideTools: Record<string, { enabled?: boolean }> }[] };
    const sub = json.customSubagents[0]?.harnessSideTools ?? {};
    const main = (
      toJson(
        HarnessConfigSchema,
        buildHarnessConfig({ capabilities: { disabledTools: [BuiltinTool.RunCommand] } }),
      ) as {
        harnessSideTools: Record<string, { enabled?: boolean }>;
      }
    ).harnessSideTools;
    const on = (tools: Record<string, { enabled?: boolean }>) =>
      Object.entries(tools)
        .filter(([, tool]) => tool.enabled === true)
        .map(([name]) => name)
        .sort();
    // The subagents switch is the main agent's own (start_subagent); the rest match.
    expect(on(sub).filter((n) => n !== "subagents")).toEqual(on(main).filter((n) => n !== "subagents"));
    expect(sub["runCommand"]?.enabled ?? false).toBe(false);
  });
});
