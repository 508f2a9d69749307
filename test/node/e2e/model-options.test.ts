import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ThinkingLevel, WebSocketTransport } from "@antigravity-ts/node";
import { ModelType } from "@antigravity-ts/sdk/wire";
import { startFakeGeminiServer, type FakeModelServer } from "../../../packages/harness/src/providers/testing/index.js";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 10 item 14 across the wire: the builder's retryConfig and a model's thinking level and
// service tier reach the reference harness as upstream sends them, and the harness acts on them
// (a transient 503 retried, the options in the Gemini request).

describe("retryConfig and model options against the reference harness", () => {
  let workspace = "";
  let harness: ListeningHarness | undefined;
  let gemini: FakeModelServer | undefined;

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-model-options-"));
    gemini = await startFakeGeminiServer(
      [
        { type: "error", status: 503, message: "overloaded" },
        { type: "turn", text: "served after a retry" },
      ],
      { apiKey: "gem-key" },
    );
    // The harness's own model choice comes from the session's models, not the scripted provider.
    const env = harnessEnv("");
    delete env["ANTIGRAVITY_MODEL_PROVIDER"];
    delete env["ANTIGRAVITY_SCRIPT"];
    harness = await startListeningHarness({ env, workspace, apiKey: "model-options-key-0123456789" });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    await gemini?.close();
    if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  });

  it("retries the 503 as retryConfig.apiRetry says and sends thinkingLevel and serviceTier to the model", async () => {
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: harness?.apiKey ?? "",
    });
    const agent = await Agent.builder()
      .transport(transport)
      .workspaces(workspace)
      .models([
        {
          name: "gemini-test",
          types: [ModelType.TEXT],
          endpoint: {
            case: "geminiApiEndpoint",
            value: {
              baseUrl: gemini?.baseUrl ?? "",
              apiKey: "gem-key",
              options: { thinkingLevel: "high", serviceTier: "priority" },
            },
          },
        },
      ])
      .retryConfig({ apiRetry: { maxRetries: 2, initialSleepDurationMs: 1, exponentialMultiplier: 1, jitterRange: 0 } })
      .allowAll()
      .build()
      .start({ timeoutMs: 15_000 });
    try {
      const response = await agent.chatToCompletion("hello", { timeoutMs: 15_000 });
      expect(response.text).toBe("served after a retry");
      const requests = gemini?.requests ?? [];
      expect(requests).toHaveLength(2);
      for (const request of requests) {
        const body = request.body as {
          generationConfig?: { thinkingConfig?: { thinkingLevel?: string } };
          serviceTier?: string;
        };
        expect(body.generationConfig?.thinkingConfig?.thinkingLevel).toBe("high");
        expect(body.serviceTier).toBe("priority");
      }
    } finally {
      await agent.stop();
    }
  });

  it("asks for upstream's default model (gemini-3.8-flash since 0.1.16) when only an API key is given", async () => {
    const model = await startFakeGeminiServer([{ type: "turn", text: "default model here" }], { apiKey: "gem-key-3" });
    // A harness whose Gemini API is the fake one (GEMINI_BASE_URL), so the shorthand model can be reached.
    const env: Record<string, string> = { ...harnessEnv(""), GEMINI_BASE_URL: model.baseUrl };
    delete env["ANTIGRAVITY_MODEL_PROVIDER"];
    delete env["ANTIGRAVITY_SCRIPT"];
    const own = await startListeningHarness({ env, workspace, apiKey: "default-model-key-0123456789" });
    try {
      const agent = await Agent.builder()
        .transport(new WebSocketTransport({ host: "127.0.0.1", port: own.port, apiKey: own.apiKey }))
        .workspaces(workspace)
        .apiKey("gem-key-3")
        .allowAll()
        .build()
        .start({ timeoutMs: 15_000 });
      try {
        expect((await agent.chatToCompletion("hello", { timeoutMs: 15_000 })).text).toBe("default model here");
        expect(model.requests[0]?.path).toContain("/models/gemini-3.8-flash:");
      } finally {
        await agent.stop();
      }
    } finally {
      await own.stop();
      await model.close();
    }
  });

  it("sends the builder's typed thinkingLevel to each text model of models(...) (issue 25 item 3)", async () => {
    const model = await startFakeGeminiServer([{ type: "turn", text: "thought hard" }], { apiKey: "gem-key-2" });
    try {
      const agent = await Agent.builder()
        .transport(
          new WebSocketTransport({ host: "127.0.0.1", port: harness?.port ?? 0, apiKey: harness?.apiKey ?? "" }),
        )
        .workspaces(workspace)
        .models([
          {
            name: "gemini-typed",
            endpoint: { case: "geminiApiEndpoint", value: { baseUrl: model.baseUrl, apiKey: "gem-key-2" } },
          },
        ])
        .thinkingLevel(ThinkingLevel.High)
        .allowAll()
        .build()
        .start({ timeoutMs: 15_000 });
      try {
        expect((await agent.chatToCompletion("hello", { timeoutMs: 15_000 })).text).toBe("thought hard");
        const body = model.requests[0]?.body as { generationConfig?: { thinkingConfig?: { thinkingLevel?: string } } };
        expect(body.generationConfig?.thinkingConfig?.thinkingLevel).toBe("high");
      } finally {
        await agent.stop();
      }
    } finally {
      await model.close();
    }
  });
});
