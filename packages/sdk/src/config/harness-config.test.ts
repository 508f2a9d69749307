import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { HookRunner } from "../hooks/hook-runner.js";
import { confirmRunCommand } from "../policies/policy.js";
import { defineTool } from "../tools/tool.js";
import { ToolRunner } from "../tools/tool-runner.js";
import { HarnessConfigSchema, ModelType, toJson, type HarnessConfig } from "../wire/index.js";
import { buildHarnessConfig } from "./harness-config.js";

const json = (config: HarnessConfig): Record<string, unknown> =>
  toJson(HarnessConfigSchema, config) as Record<string, unknown>;

describe("buildHarnessConfig (protocol §5.1)", () => {
  it("fills the frame like upstream: explicit switches, defaults, tools, hooks and policies", () => {
    const config = buildHarnessConfig(
      {
        model: "gemini-3.7-flash",
        apiKey: "AIza-test",
        systemInstructions: "Be terse.",
        workspaces: ["/home/me/proj"],
        responseSchema: { type: "object" },
      },
      {
        tools: new ToolRunner([
          defineTool({ name: "add", description: "Add", parameters: { type: "object" }, call: () => 0 }),
        ]),
        hooks: new HookRunner([{ preToolCall: () => undefined }]),
        policies: confirmRunCommand(),
      },
    );
    expect(json(config)).toEqual({
      cascadeId: "",
      systemInstructions: {
        appended: { appendedSections: [{ title: "user_system_instructions", content: "Be terse." }] },
      },
      tools: [{ name: "add", description: "Add", parametersJsonSchema: '{"type":"object"}' }],
      harnessSideTools: {
        find: { enabled: true },
        runCommand: { enabled: true, maxTimeoutMs: 0, enableDaemonCommands: false },
        subagents: { enabled: true },
        // Upstream 0.1.19's BuiltinTools.default(): no ask_question, no list_directory; schedule,
        // and manage_task paired with run_command and schedule (issue 25 item 3).
        userQuestions: { enabled: false },
        fileEdit: { enabled: true },
        viewFile: { enabled: true },
        writeToFile: { enabled: true },
        grepSearch: { enabled: true },
        listDir: { enabled: false },
        generateImage: { enabled: true },
        searchWeb: { enabled: true },
        readUrlContent: { enabled: true },
        manageTask: { enabled: true },
        schedule: { enabled: true },
      },
      compactionThreshold: 0,
      workspaces: [{ filesystemWorkspace: { directory: "/home/me/proj" } }],
      finishToolSchemaJson: '{"type":"object"}',
      models: [{ name: "gemini-3.7-flash", types: ["MODEL_TYPE_TEXT"], geminiApiEndpoint: { apiKey: "AIza-test" } }],
      enabledHooks: ["LIFECYCLE_HOOK_PRE_TOOL"],
      policyConfig: {
        rules: [
          {
            tool: "run_command",
            name: "confirm_run_command",
            decision: "POLICY_DECISION_DENY",
            denyReason: "Denied by policy 'confirm_run_command'.",
            isDynamic: false,
            ruleId: "",
          },
          { tool: "*", name: "confirm_run_command", decision: "POLICY_DECISION_ALLOW", isDynamic: false, ruleId: "" },
        ],
      },
      agentBehavior: "AGENT_BEHAVIOR_AUTONOMOUS",
    });
    // the frame survives a round trip through the schema
    expect(create(HarnessConfigSchema, config)).toEqual(config);
  });

  it("switches built-ins with enabledTools or disabledTools, never both", () => {
    const only = json(
      buildHarnessConfig({
        capabilities: { enabledTools: ["view_file", "run_command"], runCommand: { maxTimeoutMs: 5000 } },
      }),
    );
    const tools = only["harnessSideTools"] as Record<string, { enabled: boolean; maxTimeoutMs?: number }>;
    expect(
      Object.entries(tools)
        .filter(([, v]) => v.enabled)
        .map(([k]) => k)
        .sort(),
    ).toEqual(["manageTask", "runCommand", "viewFile"]);
    expect(tools["runCommand"]?.maxTimeoutMs).toBe(5000);
    const but = json(buildHarnessConfig({ capabilities: { disabledTools: ["run_command"] } }))[
      "harnessSideTools"
    ] as Record<string, { enabled: boolean }>;
    expect(but["runCommand"]?.enabled).toBe(false);
    expect(but["fileEdit"]?.enabled).toBe(true);
    // disabledTools subtract from the defaults: ask_question and list_directory stay off; manage_task follows schedule.
    expect(but["userQuestions"]?.enabled).toBe(false);
    expect(but["listDir"]?.enabled).toBe(false);
    expect(but["manageTask"]?.enabled).toBe(true);
    const none = json(buildHarnessConfig({ capabilities: { disabledTools: ["run_command", "schedule"] } }))[
      "harnessSideTools"
    ] as Record<string, { enabled: boolean }>;
    expect(none["manageTask"]?.enabled).toBe(false);
    expect(() => buildHarnessConfig({ capabilities: { enabledTools: [], disabledTools: [] } })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    // @ts-expect-error an unknown tool name is a type error too
    expect(() => buildHarnessConfig({ capabilities: { enabledTools: ["rm_rf"] } })).toThrow(/unknown built-in tool/);
  });

  it("maps custom and sectioned system instructions, continuation modes and budgets", () => {
    const id = "0123456789abcdef0123456789abcdef";
    const config = json(
      buildHarnessConfig({
        systemInstructions: { custom: "You are a pirate." },
        conversationId: id,
        sessionContinuationMode: "resume",
        agentBehavior: "interactive",
        budget: { maxModelCalls: 3, maxTotalTokens: 10_000 },
      }),
    );
    expect(config).toMatchObject({
      cascadeId: id,
      sessionContinuationMode: "RESUME",
      systemInstructions: { custom: { part: [{ text: "You are a pirate." }] } },
      agentBehavior: "AGENT_BEHAVIOR_INTERACTIVE",
      budgetConfig: { maxModelCalls: 3, maxTotalTokens: "10000" },
    });
    const sections = json(
      buildHarnessConfig({ systemInstructions: { identity: "Ada", sections: [{ title: "style", content: "short" }] } }),
    );
    expect(sections["systemInstructions"]).toEqual({
      appended: { customIdentity: "Ada", appendedSections: [{ title: "style", content: "short" }] },
    });
    expect(json(buildHarnessConfig({ systemInstructions: "  " }))["systemInstructions"]).toBeUndefined();
  });

  it("rejects malformed options with InvalidArgument", () => {
    const bad = [
      { conversationId: "short" },
      { sessionContinuationMode: "resume" as const },
      { responseSchema: "{not json" },
      { responseSchema: "[1]" },
      { capabilities: { compactionThreshold: -1 } },
    ];
    for (const options of bad)
      expect(() => buildHarnessConfig(options)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
  });

  it("sends budget scope and compaction checkpoints as upstream's newest schema names them", () => {
    const scoped = json(
      buildHarnessConfig({
        budget: { maxModelCalls: 2, scope: "forwardLooking" },
        compaction: { checkpointIntervalTokens: 40_000 },
      }),
    );
    expect(scoped["budgetConfig"]).toEqual({ maxModelCalls: 2, scope: "BUDGET_SCOPE_FORWARD_LOOKING" });
    expect(scoped["compactionConfig"]).toEqual({ checkpointIntervalTokens: 40_000 });
    expect(json(buildHarnessConfig({ budget: { maxToolCalls: 1, scope: "lifetime" } }))["budgetConfig"]).toEqual({
      maxToolCalls: 1,
      scope: "BUDGET_SCOPE_LIFETIME",
    });
    // upstream build_budget_config_proto: a scope without any limit sends no budget at all
    expect(json(buildHarnessConfig({ budget: { scope: "lifetime" } }))["budgetConfig"]).toBeUndefined();
    // upstream 0.1.19 to_proto_compaction_config (local_connection.py @8249a379): the threshold is also sent as token_threshold
    const threshold = json(buildHarnessConfig({ capabilities: { compactionThreshold: 30_000 } }));
    expect(threshold).toMatchObject({ compactionThreshold: 30_000, compactionConfig: { tokenThreshold: 30_000 } });
    const dials = json(
      buildHarnessConfig({ compaction: { tokenThreshold: 9, checkpointIntervalTokens: 8, maxContextTokens: 7 } }),
    );
    expect(dials["compactionConfig"]).toEqual({ tokenThreshold: 9, checkpointIntervalTokens: 8, maxContextTokens: 7 });
    expect(json(buildHarnessConfig({}))["compactionConfig"]).toBeUndefined();
    const bad = [
      { compaction: { checkpointIntervalTokens: -5 } },
      { compaction: { checkpointIntervalTokens: 1.5 } },
      { compaction: { checkpointIntervalTokens: 2 ** 32 } },
      { compaction: { tokenThreshold: -1 } },
      { compaction: { maxContextTokens: 0.5 } },
      // a JavaScript caller's misspelt scope
      { budget: { maxModelCalls: 1, scope: "session" as "lifetime" } },
    ];
    for (const options of bad)
      expect(() => buildHarnessConfig(options)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
  });

  it("leaves models empty (harness default) without model or key, and uses the default model with a key only", () => {
    expect(json(buildHarnessConfig({}))["models"]).toBeUndefined();
    // Upstream's default model since 0.1.16 (CHANGELOG.md @1493021c).
    expect(json(buildHarnessConfig({ apiKey: "k" }))["models"]).toEqual([
      { name: "gemini-3.8-flash", types: ["MODEL_TYPE_TEXT"], geminiApiEndpoint: { apiKey: "k" } },
    ]);
  });

  it("keeps model(x) beside models([...]): explicit first, then the shorthand (local_connection_test.py test_merge_models_explicit_and_shorthand)", () => {
    const image = { name: "custom-image-model", types: [ModelType.IMAGE] };
    expect(json(buildHarnessConfig({ model: "custom-text-model", apiKey: "k", models: [image] }))["models"]).toEqual([
      { name: "custom-image-model", types: ["MODEL_TYPE_IMAGE"] },
      { name: "custom-text-model", types: ["MODEL_TYPE_TEXT"], geminiApiEndpoint: { apiKey: "k" } },
    ]);
    expect(json(buildHarnessConfig({ models: [image] }))["models"]).toEqual([
      { name: "custom-image-model", types: ["MODEL_TYPE_IMAGE"] },
    ]);
  });
});
