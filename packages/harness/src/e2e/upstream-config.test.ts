import { realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeModelServer } from "../providers/testing/index.js";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, steps, type Frame } from "../test-support/ws-client.js";

// HarnessConfig fields as upstream's Python client fills them (§5.1, protobuf JSON: camelCase,
// enum names), sent to the real harness: policy.workspace_only() markers, LocalOpenAIAgentConfig's
// gemmaEndpoint, and config fields the harness does not honour.

const SCRIPT = {
  turns: [
    { match: "ping", calls: [{ text: "pong to {{prompt}}" }] },
    {
      match: "files",
      calls: [
        {
          toolCalls: [
            { name: "view_file", args: { file_path: "README.md" } },
            { name: "create_file", args: { file_path: "new.txt", contents: "one\n" } },
            { name: "edit_file", args: { file_path: "new.txt", old_string: "one", new_string: "two" } },
            { name: "view_file", args: { file_path: "../outside.txt" } },
          ],
        },
        { text: "done" },
      ],
    },
  ],
};

/** upstream policy.workspace_only([...]): deny(tool, name="workspace_only") for BuiltinTools.file_tools(). */
const WORKSPACE_ONLY_RULES = ["view_file", "create_file", "edit_file"].map((tool) => ({
  tool,
  serverName: "",
  name: "workspace_only",
  decision: "POLICY_DECISION_DENY",
  isDynamic: false,
  ruleId: "",
}));
/** upstream policy.confirm_run_command() without a handler: the default policy of LocalAgentConfig. */
const CONFIRM_RUN_COMMAND = [
  {
    tool: "run_command",
    serverName: "",
    name: "confirm_run_command",
    decision: "POLICY_DECISION_DENY",
    isDynamic: false,
    ruleId: "",
  },
  {
    tool: "*",
    serverName: "",
    name: "confirm_run_command",
    decision: "POLICY_DECISION_ALLOW",
    isDynamic: false,
    ruleId: "",
  },
];

describe("HarnessConfig as upstream's client fills it", () => {
  const fixture = useHarnessFixture({
    name: "upstream-config",
    script: SCRIPT,
    prepare: async (root, workspace) => {
      await writeFile(path.join(workspace, "README.md"), "# readme\n");
      await writeFile(path.join(root, "outside.txt"), "secret");
    },
  });
  const servers: FakeModelServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it("skips policy.workspace_only() markers: file tools work inside the workspace, containment still holds outside", async () => {
    const client = await fixture.connect({
      policyConfig: { rules: [...WORKSPACE_ONLY_RULES, ...CONFIRM_RUN_COMMAND] },
    });
    client.prompt("files");
    const [readme, created, edited, outside] = finalSteps(await client.turn()).filter(
      (s: Frame) => s.viewFile ?? s.createFile ?? s.editFile,
    );
    const workspace = await realpath(fixture.workspace);
    expect(readme).toMatchObject({ state: "STATE_DONE", viewFile: { filePath: path.join(workspace, "README.md") } });
    expect(created).toMatchObject({ state: "STATE_DONE", createFile: { filePath: path.join(workspace, "new.txt") } });
    expect(edited).toMatchObject({ state: "STATE_DONE" });
    expect(outside).toMatchObject({ state: "STATE_ERROR" });
    expect(outside?.["errorMessage"]).not.toMatch(/policy/);
    client.close();
  });

  it("speaks OpenAI Chat Completions to LocalOpenAIAgentConfig's gemmaEndpoint", async () => {
    const server = await startFakeOpenAIServer([{ type: "turn", text: "Hello from the local model." }]);
    servers.push(server);
    // LocalOpenAIConnectionStrategy._build_harness_config: ModelConfig{name, types:[TEXT], gemma_endpoint{base_url}}
    const client = await fixture.connect({
      appDataDir: path.join(fixture.root, "app-data"),
      models: [{ name: "llama3.1", types: ["MODEL_TYPE_TEXT"], gemmaEndpoint: { baseUrl: server.baseUrl } }],
    });
    client.prompt("hello");
    const turn = await client.turn();
    expect(turn.at(-1)?.["trajectoryStateUpdate"]).toEqual({
      trajectoryId: expect.any(String),
      state: "STATE_FULLY_IDLE",
    });
    expect(finalSteps(turn).at(-1)).toMatchObject({
      source: "SOURCE_MODEL",
      state: "STATE_DONE",
      text: "Hello from the local model.",
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      path: "/v1/chat/completions",
      body: { model: "llama3.1", stream: true },
    });
    expect(server.requests[0]?.headers["authorization"]).toBeUndefined();
    client.close();
  });

  it("refuses a gemmaEndpoint it cannot use with a close reason that says why", async () => {
    const client = await fixture.open();
    client.send({
      config: {
        cascadeId: "",
        models: [{ name: "", types: ["MODEL_TYPE_TEXT"], gemmaEndpoint: { baseUrl: "http://127.0.0.1:9/v1" } }],
      },
    });
    expect(await client.closed).toMatchObject({
      code: 1008,
      reason: expect.stringContaining("gemmaEndpoint needs baseUrl"),
    });
  });

  it("warns once per session, on stderr, about every config field it does not honour", async () => {
    const before = fixture.harness.stderr().length;
    const client = await fixture.connect({
      mcpServers: [{ name: "github", stdio: { command: "gh-mcp", args: [] } }],
      retryConfig: { modelOutputRetry: { maxRetries: 3 } },
      models: [
        { name: "gemini-3.7-flash", types: ["MODEL_TYPE_TEXT"], geminiApiEndpoint: { apiKey: "" } },
        { name: "gemini-3.1-flash-lite-image", types: ["MODEL_TYPE_IMAGE"], geminiApiEndpoint: { apiKey: "" } },
      ],
    });
    client.prompt("files");
    await client.turn();
    client.close();
    await fixture.harness.waitForStderr(/session [0-9a-f-]{36}/);
    const lines = fixture.harness
      .stderr()
      .slice(before)
      .split("\n")
      .filter((line) => line.includes("does not honour"));
    expect(lines).toHaveLength(1);
    for (const field of [
      "mcpServers (github)",
      "retryConfig.modelOutputRetry",
      '"gemini-3.1-flash-lite-image" (geminiApiEndpoint) is not a text model',
      '"gemini-3.7-flash" (geminiApiEndpoint) is not used: ANTIGRAVITY_MODEL_PROVIDER=scripted',
    ]) {
      expect(lines[0]).toContain(field);
    }
  });

  // upstream _build_harness_config: compaction_threshold=N and compaction_config{checkpoint_interval_tokens=N}
  for (const [label, config] of [
    [
      "compactionConfig alone (no threshold)",
      { compactionThreshold: 0, compactionConfig: { checkpointIntervalTokens: 150 } },
    ],
    [
      "threshold and interval together, as upstream sends them",
      { compactionThreshold: 150, compactionConfig: { checkpointIntervalTokens: 150 } },
    ],
  ] as const) {
    it(`compacts at compactionConfig.checkpointIntervalTokens: ${label}`, async () => {
      const client = await fixture.connect(config);
      client.prompt(`ping ${"x".repeat(600)}`);
      expect(steps(await client.turn()).some((s) => s.compaction !== undefined)).toBe(false);
      client.prompt("ping again");
      const second = finalSteps(await client.turn());
      expect(second.find((s) => s.compaction !== undefined)).toMatchObject({
        state: "STATE_DONE",
        source: "SOURCE_SYSTEM",
        compaction: {},
      });
      expect(second.at(-1)?.["text"]).toBe("pong to ping again");
      if (config.compactionThreshold === 0) {
        // the checkpoint resets the interval: a short turn after it does not compact again (a
        // threshold would, since the kept first prompt alone exceeds it)
        client.prompt("ping three");
        expect(steps(await client.turn()).some((s) => s.compaction !== undefined)).toBe(false);
      }
      client.close();
    });
  }
});
