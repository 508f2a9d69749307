import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, MINIMAL_TOOLS, WebSocketTransport } from "@antigravity-ts/node";
import { startFakeGeminiServer, type FakeModelServer } from "../../../packages/harness/src/providers/testing/index.js";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 25 item 3: upstream's eval() and lightweight() presets (connections/connection.py,
// Stars1233 @238766a3) through the reference harness to a fake Gemini API: what the model is
// offered and asked with, and the benchmark retries.

type GeminiBody = {
  generationConfig?: { thinkingConfig?: { thinkingLevel?: string } };
  tools?: { functionDeclarations?: { name: string }[] }[];
};

/** The harness's one line per session naming the configuration it does not honour. */
const sessionWarning = (stderr: string): string =>
  stderr.split("\n").find((line) => line.includes("this harness does not honour")) ?? "";

const offered = (body: unknown): string[] =>
  ((body as GeminiBody).tools ?? []).flatMap((tool) => (tool.functionDeclarations ?? []).map((f) => f.name)).sort();

describe("eval() and lightweight() against the reference harness", () => {
  let workspace = "";
  let harness: ListeningHarness | undefined;
  const servers: FakeModelServer[] = [];

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-presets-"));
    // The session's models choose the provider, not the scripted one.
    const env = harnessEnv("");
    delete env["ANTIGRAVITY_MODEL_PROVIDER"];
    delete env["ANTIGRAVITY_SCRIPT"];
    harness = await startListeningHarness({ env, workspace, apiKey: "presets-key-0123456789abcdef" });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    for (const server of servers) await server.close();
    if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  });

  const agentOn = async (turns: Parameters<typeof startFakeGeminiServer>[0]) => {
    const server = await startFakeGeminiServer(turns, { apiKey: "gem-key" });
    servers.push(server);
    const builder = Agent.builder()
      .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness?.port ?? 0, apiKey: harness?.apiKey ?? "" }))
      .workspaces(workspace)
      .models([
        {
          name: "gemini-eval",
          endpoint: { case: "geminiApiEndpoint", value: { baseUrl: server.baseUrl, apiKey: "gem-key" } },
        },
      ]);
    return { server, builder };
  };

  it("eval(): allows every tool, retries a 503, asks for high thinking, and offers no image or subagent tools", async () => {
    const { server, builder } = await agentOn([
      { type: "error", status: 503, message: "overloaded" },
      { type: "turn", toolCalls: [{ name: "run_command", args: { CommandLine: "echo daemon", IsDaemon: true } }] },
      { type: "turn", text: "evaluated" },
    ]);
    const before = harness?.stderr().length ?? 0;
    const agent = await builder.eval().build().start({ timeoutMs: 15_000 });
    try {
      expect((await agent.chatToCompletion("solve it", { timeoutMs: 30_000 })).text).toBe("evaluated");
      expect(server.requests).toHaveLength(3); // the 503 was retried (benchmark retries)
      for (const request of server.requests)
        expect((request.body as GeminiBody).generationConfig?.thinkingConfig?.thinkingLevel).toBe("high");
      // allowAll() let run_command run, and daemon commands are on: the harness started it in the background.
      const answer = JSON.stringify(server.requests[2]?.body);
      expect(answer).toContain("functionResponse");
      expect(answer).not.toContain("needs daemon commands");
      expect(answer).not.toContain("denied");
      // The harness names what the session asked for and it does not run: neither image generation
      // nor subagents are asked for (every agent without eval() enables both).
      const unhonoured = sessionWarning(harness?.stderr().slice(before) ?? "");
      expect(unhonoured).not.toContain("generate_image");
      expect(unhonoured).not.toContain("subagents");
    } finally {
      await agent.stop();
    }
  });

  it("lightweight(): offers the minimal built-ins only", async () => {
    const { server, builder } = await agentOn([{ type: "turn", text: "light" }]);
    const agent = await builder.lightweight().allowAll().build().start({ timeoutMs: 15_000 });
    try {
      expect((await agent.chatToCompletion("hello", { timeoutMs: 15_000 })).text).toBe("light");
      // manage_task comes with run_command (upstream's pairing rule).
      expect(offered(server.requests[0]?.body)).toEqual([...MINIMAL_TOOLS, "manage_task"].sort());
      expect((server.requests[0]?.body as GeminiBody).generationConfig?.thinkingConfig?.thinkingLevel).toBeUndefined();
    } finally {
      await agent.stop();
    }
  });
});
