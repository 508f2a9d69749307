import * as acp from "@agentclientprotocol/sdk";
import {
  Agent,
  ErrorCode,
  StepStatus,
  StepType,
  allowAll,
  deny,
  defineTool,
  isSyntheticToolStep,
} from "@antigravity-ts/sdk";
import { acpAgent as acpStreamAgent } from "@antigravity-ts/sdk/acp";
import {
  GEMINI_ROUTER,
  geminiScratch,
  geminiSessionText,
  geminiStream,
  geminiText,
  geminiUsage,
} from "@antigravity-ts/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { acpAgent, loopbackMcpHost } from "./index.js";

// The agent's client tools reach Gemini CLI 0.61 (`--acp`, offline, canned model responses) as the
// MCP server the SDK hosts on loopback: Gemini CLI advertises agentCapabilities.mcpCapabilities
// { http: true, sse: true }, takes the server from session/new's mcpServers, lists its tools and
// names them `mcp_<server>_<tool>` for the model (its generateValidName). The canned model call
// of that name runs the tool once; Gemini CLI sends the result to the model as the call's
// functionResponse (read back from its session file).

const removers: (() => void)[] = [];
afterEach(() => {
  for (const remove of removers.splice(0)) remove();
});

/** Gemini CLI connects to no MCP server in a folder it does not trust (McpClientManager.startConfiguredMcpServers); `--skip-trust` trusts the scratch workspace. */
const TRUSTED = ["--skip-trust"];

const CALL = {
  candidates: [
    {
      content: {
        role: "model",
        parts: [{ functionCall: { name: "mcp_antigravity_get_weather", args: { city: "Zurich" } } }],
      },
      finishReason: "STOP",
    },
  ],
  ...geminiUsage(20, 5),
};

function weatherTool(calls: unknown[]) {
  return defineTool({
    name: "get_weather",
    description: "The weather in a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    call: (args: { city: string }) => {
      calls.push(args);
      return { city: args.city, sky: "clear", celsius: 21 };
    },
  });
}

describe("client tools over ACP: an MCP server on loopback, with Gemini CLI --acp offline", () => {
  it("the model's call runs the tool once; synthetic steps from 50,000; the result reaches the model", {
    timeout: 180_000,
  }, async () => {
    const g = geminiScratch(
      [
        GEMINI_ROUTER,
        geminiStream(CALL),
        geminiStream({ ...geminiText("It is clear in Zurich.", { finishReason: "STOP" }), ...geminiUsage(40, 6) }),
      ],
      TRUSTED,
    );
    removers.push(g.remove);
    const calls: unknown[] = [];
    const agent = Agent.builder().connection(acpAgent(g.options)).tool(weatherTool(calls)).allowAll().build();
    const started = await agent.start();
    try {
      const response = await started.chatToCompletion("weather in Zurich?");
      expect(calls).toEqual([{ city: "Zurich" }]);
      expect(response.text).toContain("It is clear in Zurich.");
      const synthetic = response.steps.filter(isSyntheticToolStep);
      expect(synthetic.map((s) => [s.stepIndex, s.status])).toEqual([[50_000, StepStatus.Done]]);
      expect(synthetic[0]?.toolCalls[0]).toMatchObject({
        name: "get_weather",
        args: { city: "Zurich", sky: "clear", celsius: 21 },
      });
      // Gemini CLI's own tool step for the MCP call, and the functionResponse it sent the model.
      expect(response.steps.some((s) => s.type === StepType.ToolCall && !isSyntheticToolStep(s))).toBe(true);
      // Its session file: {"functionResponse":{..., "response":{"output":"…{\"city\":\"Zurich\",…\"celsius\":21}…"}}}
      expect(geminiSessionText(g)).toMatch(/"functionResponse":\{[^\n]*\\"celsius\\":21/);
    } finally {
      await started.stop();
    }
  });

  it("a client tool the policy denies does not run; the model gets the refusal", { timeout: 180_000 }, async () => {
    const g = geminiScratch(
      [
        GEMINI_ROUTER,
        geminiStream(CALL),
        geminiStream({ ...geminiText("I could not look.", { finishReason: "STOP" }), ...geminiUsage(40, 6) }),
      ],
      TRUSTED,
    );
    removers.push(g.remove);
    const calls: unknown[] = [];
    const agent = Agent.builder()
      .connection(acpAgent(g.options))
      .tool(weatherTool(calls))
      .policies(deny("get_weather", "not today"), allowAll())
      .build();
    const started = await agent.start();
    try {
      const response = await started.chatToCompletion("weather in Zurich?");
      expect(calls).toEqual([]);
      const finished = response.steps.filter(isSyntheticToolStep).at(-1);
      expect(finished?.status).toBe(StepStatus.Error);
      expect(finished?.error).toMatch(/refused get_weather/);
      expect(geminiSessionText(g)).toMatch(/refused get_weather/);
    } finally {
      await started.stop();
    }
  });

  it("refused where it cannot be honoured: no toolHost at build(), an agent without HTTP MCP servers at start()", async () => {
    const toAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
    const toClient = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
    const agentSide = acp
      .agent({ name: "no-mcp" })
      .onRequest(acp.methods.agent.initialize, () => ({
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: { mcpCapabilities: { http: false, sse: false } },
        authMethods: [],
      }))
      .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "s" }))
      .connect({ writable: toClient.writable, readable: toAgent.readable });
    const stream = { writable: toAgent.writable, readable: toClient.readable };
    expect(() =>
      Agent.builder()
        .connection(acpStreamAgent({ stream, cwd: "/" }))
        .tool(weatherTool([]))
        .allowAll()
        .build(),
    ).toThrow(expect.objectContaining({ code: ErrorCode.Unsupported, details: { option: "tools", wire: "acp" } }));
    const agent = Agent.builder()
      .connection(acpStreamAgent({ stream, cwd: "/", toolHost: loopbackMcpHost() }))
      .tool(weatherTool([]))
      .allowAll()
      .build();
    await expect(agent.start()).rejects.toMatchObject({
      code: ErrorCode.Unsupported,
      message: expect.stringMatching(/mcpCapabilities/),
    });
    agentSide.close();
  });
});
