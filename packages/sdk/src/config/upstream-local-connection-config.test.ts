import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { HarnessConfigSchema, toJson } from "../wire/index.js";
import { BuiltinTool } from "./builtin-tools.js";
import { buildHarnessConfig, type HarnessConfigOptions } from "./harness-config.js";

// The configuration cases of upstream's connections/local/local_connection_test.py that are new
// since 0.1.14 (Stars1233/antigravity-sdk-python google/antigravity/connections/local/
// local_connection_test.py @238766a385e2087fb98238d112a13fc9efc28b29, against
// lovicho/antigravity-sdk-python's 0.1.14 file), checked on the JSON the SDK sends
// (`HarnessConfig`, upstream's `_build_harness_config`). Each case is named after upstream's.
//
// Skipped, Python-only (1): test_local_agent_config_tool_output_truncation (LocalAgentConfig's
// pydantic coercion of an int into ToolOutputTruncationConfig before create_strategy; the wire it
// ends in is test_tool_output_truncation_proto below).

const SOURCE = "Stars1233 local_connection_test.py @238766a3";

/** The HarnessConfig JSON of these options. */
const wire = (options: HarnessConfigOptions): Record<string, unknown> =>
  toJson(HarnessConfigSchema, buildHarnessConfig(options)) as Record<string, unknown>;

/** `harnessSideTools.<name>.enabled` of these options. */
function enabled(options: HarnessConfigOptions): Record<string, boolean> {
  const tools = wire(options)["harnessSideTools"] as Record<string, { enabled?: boolean }>;
  return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, tool.enabled === true]));
}

describe(`HarnessConfig of the 0.1.15–0.1.19 options (${SOURCE})`, () => {
  it("test_capabilities_config_run_command_sandbox_forwarded: enableSandbox reaches RunCommandToolConfig", () => {
    const runCommand = (
      wire({ capabilities: { runCommand: { enableSandbox: true } } })["harnessSideTools"] as {
        runCommand: Record<string, unknown>;
      }
    ).runCommand;
    expect(runCommand).toMatchObject({ enabled: true, enableSandbox: true });
  });

  it("test_capabilities_config_run_command_sandbox_defaults_off", () => {
    const runCommand = (wire({ capabilities: {} })["harnessSideTools"] as { runCommand: Record<string, unknown> })
      .runCommand;
    expect(runCommand["enableSandbox"] ?? false).toBe(false);
  });

  it("test_capabilities_config_disabled_tools_preserves_ask_question_disabled", () => {
    const on = enabled({ capabilities: { disabledTools: [BuiltinTool.RunCommand] } });
    expect(on).toMatchObject({
      runCommand: false,
      schedule: true,
      manageTask: true,
      userQuestions: false,
      viewFile: true,
      readUrlContent: true,
    });
  });

  it("test_capabilities_config_explicit_ask_question_enabled", () => {
    const on = enabled({
      agentBehavior: "interactive",
      capabilities: { enabledTools: [BuiltinTool.ViewFile, BuiltinTool.AskQuestion] },
    });
    expect(on).toMatchObject({ userQuestions: true, viewFile: true, runCommand: false });
  });

  it("test_capabilities_config_explicit_find_and_search_enabled", () => {
    const on = enabled({ capabilities: { enabledTools: [BuiltinTool.FindFile, BuiltinTool.SearchDirectory] } });
    expect(on).toMatchObject({ find: true, grepSearch: true, runCommand: false });
  });

  it("test_compaction_config_explicit: tokenThreshold goes to compactionConfig and compactionThreshold", () => {
    const json = wire({ compaction: { tokenThreshold: 40_000 } });
    expect(json["compactionThreshold"]).toBe(40_000);
    expect(json["compactionConfig"]).toMatchObject({ tokenThreshold: 40_000 });
  });

  it("test_compaction_config_precedence_over_capabilities: compaction wins over capabilities.compactionThreshold", () => {
    const json = wire({ capabilities: { compactionThreshold: 50_000 }, compaction: { tokenThreshold: 30_000 } });
    expect(json["compactionThreshold"]).toBe(30_000);
    expect(json["compactionConfig"]).toMatchObject({ tokenThreshold: 30_000 });
  });

  it("test_tool_output_truncation_proto: none, a number, 0, { maxTokens } and { maxTokens: 0 }", () => {
    expect(wire({})).not.toHaveProperty("toolOutputTruncation");
    for (const [option, maxTokens] of [
      [2048, 2048],
      [0, 0],
      [{ maxTokens: 1500 }, 1500],
      [{ maxTokens: 0 }, 0],
    ] as const) {
      expect(wire({ toolOutputTruncation: option })["toolOutputTruncation"]).toEqual({ truncate: { maxTokens } });
    }
  });

  it("test_subagent_minimal_agent_behavior_config_produces_valid_proto", () => {
    const json = wire({
      customSubagents: [
        {
          name: "minimal_subagent",
          description: "A subagent that runs in minimal behavior.",
          model: "gemini-3.8-flash",
          capabilities: { agentBehavior: "minimal" },
        },
      ],
    });
    expect((json["customSubagents"] as Record<string, unknown>[])[0]?.["agentBehavior"]).toBe("AGENT_BEHAVIOR_MINIMAL");
  });

  it("test_subagent_model_config_produces_valid_proto: the model's name only", () => {
    const json = wire({
      customSubagents: [
        { name: "flash_subagent", description: "A subagent that runs on flash.", model: "gemini-2.5-flash" },
      ],
    });
    expect((json["customSubagents"] as Record<string, unknown>[])[0]?.["model"]).toEqual({ name: "gemini-2.5-flash" });
  });

  it("test_subagent_model_rejects_model_target: a model with an endpoint is refused", () => {
    const target = { name: "gemini-2.5-pro", geminiApiEndpoint: { apiKey: "test-subagent-key" } };
    expect(() =>
      buildHarnessConfig({
        customSubagents: [{ name: "custom_endpoint_subagent", description: "d", model: target as unknown as string }],
      }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
  });
});
