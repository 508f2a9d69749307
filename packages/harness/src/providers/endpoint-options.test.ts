import {
  ModelConfigSchema,
  ModelType,
  RetryConfigSchema,
  create,
  type MessageInitShape,
  type ModelConfig,
} from "@antigravity-ts/sdk/wire";
import { afterEach, describe, expect, it } from "vitest";
import { ModelError, type ModelRequest } from "../model/provider.js";
import { ProviderConfigError, selectProvider } from "./select-provider.js";
import { rejectionOf, summarizeTurn } from "./testing/collect.js";
import { startFakeGeminiServer, startFakeOpenAIServer, type FakeModelServer } from "./testing/index.js";

// The config fields of ModelConfig / HarnessConfig the providers honour (protocol §19):
// gemmaEndpoint, Vertex express apiKey, httpHeaders, serviceTier, retryConfig.apiRetry,
// checked in the requests the fake servers receive.

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const track = (server: FakeModelServer): FakeModelServer => {
  servers.push(server);
  return server;
};
const request: ModelRequest = { model: "", systemInstruction: "", messages: [{ role: "user", text: "hi" }], tools: [] };
const env = { ANTIGRAVITY_MODEL_PROVIDER: "scripted" };
const fastRetries = create(RetryConfigSchema, {
  apiRetry: { maxRetries: 2, initialSleepDurationMs: 1, exponentialMultiplier: 1, jitterRange: 0 },
});
const model = (init: Pick<MessageInitShape<typeof ModelConfigSchema>, "name" | "endpoint">): ModelConfig =>
  create(ModelConfigSchema, { ...init, types: [ModelType.TEXT] });

describe("model endpoints of HarnessConfig.models", () => {
  it("speaks OpenAI Chat Completions to gemmaEndpoint.baseUrl with the model's name and no key", async () => {
    const server = track(await startFakeOpenAIServer([{ type: "turn", text: "local hello" }]));
    const selection = selectProvider(
      [model({ name: "llama3.1", endpoint: { case: "gemmaEndpoint", value: { baseUrl: server.baseUrl } } })],
      { env },
    );
    expect(selection).toMatchObject({
      model: "llama3.1",
      reason: "openai-compatible (gemmaEndpoint llama3.1)",
      warnings: [],
    });
    expect((await summarizeTurn(selection.provider, request)).text).toBe("local hello");
    const sent = server.requests[0];
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers["authorization"]).toBeUndefined();
    expect(sent?.body).toMatchObject({ model: "llama3.1", stream: true, messages: [{ role: "user", content: "hi" }] });
  });

  it("refuses a gemmaEndpoint without a base URL or model name, or with a non-http URL", () => {
    const gemma = (name: string, baseUrl: string): ModelConfig =>
      model({ name, endpoint: { case: "gemmaEndpoint", value: { baseUrl } } });
    expect(() => selectProvider([gemma("", "http://127.0.0.1:1/v1")], { env })).toThrow(ProviderConfigError);
    expect(() => selectProvider([gemma("m", "")], { env })).toThrow(/gemmaEndpoint needs baseUrl/);
    expect(() => selectProvider([gemma("m", "file:///etc/passwd")], { env })).toThrow(/http\(s\) URL/);
    expect(() => selectProvider([gemma("m", "not a url")], { env })).toThrow(/not a URL/);
  });

  it("sends httpHeaders and serviceTier to the Gemini API; the key header wins over a user's", async () => {
    const server = track(await startFakeGeminiServer([{ type: "turn", text: "ok" }], { apiKey: "k" }));
    const selection = selectProvider(
      [
        model({
          name: "gemini-t",
          endpoint: {
            case: "geminiApiEndpoint",
            value: {
              apiKey: "k",
              baseUrl: server.baseUrl,
              httpHeaders: { "X-Team": "blue", "X-Goog-Api-Key": "spoofed" },
              options: { serviceTier: "priority", thinkingLevel: "low" },
            },
          },
        }),
      ],
      { env },
    );
    expect((await summarizeTurn(selection.provider, request)).text).toBe("ok");
    const sent = server.requests[0];
    expect(sent?.headers["x-team"]).toBe("blue");
    expect(sent?.headers["x-goog-api-key"]).toBe("k");
    expect(sent?.body).toMatchObject({
      serviceTier: "priority",
      generationConfig: { thinkingConfig: { thinkingLevel: "low" } },
    });
  });

  it("refuses header names or values fetch cannot send, with a config error", () => {
    const bad = model({
      name: "g",
      endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k", httpHeaders: { "X-Bad": "line\r\nInjected: 1" } } },
    });
    expect(() => selectProvider([bad], { env })).toThrow(/geminiApiEndpoint\.httpHeaders/);
  });

  it("uses Vertex AI express mode for a vertexEndpoint with an apiKey, and refuses one without", async () => {
    const server = track(await startFakeGeminiServer([{ type: "turn", text: "from vertex" }], { apiKey: "vx" }));
    const vertex = (apiKey: string): ModelConfig =>
      model({
        name: "gemini-v",
        endpoint: {
          case: "vertexEndpoint",
          value: {
            apiKey,
            baseUrl: server.baseUrl,
            project: "p",
            location: "us-central1",
            httpHeaders: { "x-extra": "1" },
          },
        },
      });
    const selection = selectProvider([vertex("vx")], { env });
    expect(selection.warnings).toEqual([
      "vertexEndpoint: project and location are ignored in Vertex AI express mode (apiKey)",
    ]);
    expect((await summarizeTurn(selection.provider, request)).text).toBe("from vertex");
    expect(server.requests[0]?.path).toBe("/v1/publishers/google/models/gemini-v:streamGenerateContent");
    expect(server.requests[0]?.headers["x-extra"]).toBe("1");
    expect(() => selectProvider([vertex("")], { env })).toThrow(/Google Cloud credentials/);
  });

  it("retries transient failures as retryConfig.apiRetry says, then gives up with the last error", async () => {
    const gemini = track(
      await startFakeGeminiServer([
        { type: "error", status: 503, message: "overloaded" },
        { type: "error", status: 429, message: "slow down" },
        { type: "turn", text: "third time" },
      ]),
    );
    const selection = selectProvider(
      [model({ name: "g", endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k", baseUrl: gemini.baseUrl } } })],
      { env, retryConfig: fastRetries },
    );
    expect((await summarizeTurn(selection.provider, request)).text).toBe("third time");
    expect(gemini.requests).toHaveLength(3);

    const openai = track(
      await startFakeOpenAIServer([
        { type: "error", status: 502, message: "bad gateway" },
        { type: "error", status: 503, message: "still down" },
        { type: "error", status: 503, message: "down for good" },
      ]),
    );
    const gemma = selectProvider(
      [model({ name: "m", endpoint: { case: "gemmaEndpoint", value: { baseUrl: openai.baseUrl } } })],
      { env, retryConfig: fastRetries },
    );
    const error = await rejectionOf(summarizeTurn(gemma.provider, request));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ httpCode: 503, message: expect.stringContaining("down for good") });
    expect(openai.requests).toHaveLength(3);

    // a permanent failure is not retried, and without retryConfig nothing is
    const once = track(
      await startFakeGeminiServer([
        { type: "error", status: 400, message: "bad request" },
        { type: "turn", text: "never" },
      ]),
    );
    const strict = selectProvider(
      [model({ name: "g", endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k", baseUrl: once.baseUrl } } })],
      { env, retryConfig: fastRetries },
    );
    await expect(summarizeTurn(strict.provider, request)).rejects.toMatchObject({ httpCode: 400 });
    const plain = track(
      await startFakeGeminiServer([
        { type: "error", status: 503, message: "busy" },
        { type: "turn", text: "never" },
      ]),
    );
    const noRetry = selectProvider(
      [model({ name: "g", endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k", baseUrl: plain.baseUrl } } })],
      { env },
    );
    await expect(summarizeTurn(noRetry.provider, request)).rejects.toMatchObject({ httpCode: 503 });
    expect([once.requests.length, plain.requests.length]).toEqual([1, 1]);
  });

  it("names the models it does not use", () => {
    const image = create(ModelConfigSchema, {
      name: "img",
      types: [ModelType.IMAGE],
      endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k" } },
    });
    const second = model({ name: "backup", endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k" } } });
    const custom = model({
      name: "c",
      endpoint: { case: "customEndpoint", value: { backendType: "anthropic", configJson: "{}" } },
    });
    expect(
      selectProvider(
        [image, model({ name: "main", endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k" } } }), second],
        { env },
      ).warnings,
    ).toEqual([
      'models: "img" (geminiApiEndpoint) is not a text model; image models are not supported',
      'models: only the first text model is used; "backup" (geminiApiEndpoint) is ignored',
    ]);
    expect(selectProvider([custom], { env }).warnings).toEqual([
      'models: customEndpoint backendType "anthropic" is not supported (only "openai"); ignored',
      'models: "c" (customEndpoint) is not used: ANTIGRAVITY_MODEL_PROVIDER=scripted chooses the model',
    ]);
    expect(
      selectProvider([model({ name: "nokey", endpoint: { case: "geminiApiEndpoint", value: { apiKey: "" } } })], {
        env: {},
      }).warnings,
    ).toEqual([
      'models: "nokey" (geminiApiEndpoint) has no usable endpoint here (no apiKey, and GEMINI_API_KEY is not set); using the offline scripted model',
    ]);
  });
});
