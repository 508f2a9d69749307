import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, BuiltinTool, WebSocketTransport, defineTool } from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Static subagents through the public Agent API against the reference harness (listen mode): the
// harness parses the customSubagents the SDK sends, says it does not run them, and a subagent's
// own client tool is not offered to the main agent.

const SCRIPT = {
  turns: [
    {
      match: "delegate",
      calls: [
        {
          toolCalls: [
            { name: "sub_tool", ifAvailable: true },
            { name: "main_tool", ifAvailable: true },
          ],
        },
        { text: "sub={{results.sub_tool}} main={{results.main_tool.value}}" },
      ],
    },
  ],
};

describe("customSubagents end to end", () => {
  let root = "";
  let harness: ListeningHarness;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-subagents-"));
    await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
    harness = await startListeningHarness({
      env: harnessEnv(path.join(root, "script.json")),
      workspace: root,
      apiKey: "subagents-key-0123456789",
    });
  });
  afterAll(async () => {
    await killAllHarnesses();
    await rm(root, { recursive: true, force: true });
  });

  it("sends the subagents, keeps a subagent-only tool from the main agent, and the harness warns it does not run them", async () => {
    const subTool = defineTool({
      name: "sub_tool",
      description: "only the subagent's",
      call: () => ({ value: "sub" }),
    });
    const mainTool = defineTool({
      name: "main_tool",
      description: "the main agent's",
      call: () => ({ value: "main" }),
    });
    const agent = await Agent.builder()
      .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey }))
      .workspaces(root)
      .tool(mainTool)
      .customSubagents(
        { name: "researcher", description: "Reads", systemInstructions: "Cite paths.", tools: [subTool] },
        {
          name: "lead",
          description: "Delegates",
          capabilities: { enabledTools: [BuiltinTool.StartSubagent], allowedSubagents: ["researcher"] },
        },
      )
      .allowAll()
      .build()
      .start({ timeoutMs: 30_000 });
    try {
      const response = await agent.chatToCompletion("delegate this");
      expect(response.text).toBe("sub=n/a main=main");
    } finally {
      await agent.stop();
    }
    // Bounded wait for the line to cross the pipe (liveness, not timing).
    for (let i = 0; i < 100 && !harness.stderr().includes("customSubagents"); i++) await sleep(50);
    expect(harness.stderr()).toMatch(/does not honour: .*subagents \(harnessSideTools\.subagents, customSubagents\)/);
  });
});
