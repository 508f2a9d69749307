import { afterEach, describe, expect, it } from "vitest";
import { ModelError, type ModelRequest, type ToolDeclaration } from "../model/provider.js";
import { createGeminiProvider } from "./gemini.js";
import { SKIP_THOUGHT_SIGNATURE } from "./gemini-request.js";
import { collectEvents, rejectionOf, summarizeEvents, summarizeTurn } from "./testing/collect.js";
import {
  fakeGeminiSignature,
  startFakeGeminiServer,
  type FakeGeminiReply,
  type FakeModelServer,
  type FakeScript,
} from "./testing/index.js";

const TOOLS: ToolDeclaration[] = [
  {
    name: "get_weather",
    description: "Current weather for a city.",
    parameters: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { city: { type: "string" }, units: { type: "string", enum: ["metric", "imperial"] } },
      required: ["city"],
      additionalProperties: false,
    },
  },
  { name: "get_time", description: "Current time.", parameters: { type: "object", properties: {} } },
];

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(script: FakeScript<FakeGeminiReply>, apiKey = "test-key"): Promise<FakeModelServer> {
  const server = await startFakeGeminiServer(script, { apiKey });
  servers.push(server);
  return server;
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "",
    systemInstruction: "You are terse.",
    messages: [{ role: "user", text: "Weather in Paris?" }],
    tools: TOOLS,
    ...overrides,
  };
}

const signal = (): AbortSignal => new AbortController().signal;

describe("createGeminiProvider", () => {
  it("runs a tool-call turn: thinking + text + function calls, then the tool result and a final answer", async () => {
    const server = await start([
      {
        type: "turn",
        thinking: "The user wants the weather, so I will call get_weather for Paris.",
        text: "Let me check the weather — un instant.",
        toolCalls: [
          { name: "get_weather", args: { city: "Paris", units: "metric" } },
          { name: "get_time", args: {}, id: "fc-time" },
        ],
        usage: { promptTokenCount: 25, candidatesTokenCount: 30, thoughtsTokenCount: 14, totalTokenCount: 69 },
      },
      {
        type: "turn",
        text: "It is 21 °C and sunny in Paris.",
        usage: { promptTokenCount: 40, candidatesTokenCount: 9, cachedContentTokenCount: 16, totalTokenCount: 49 },
      },
    ]);
    const provider = createGeminiProvider({ apiKey: "test-key", baseUrl: server.baseUrl, model: "gemini-test" });
    expect(provider.name).toBe("gemini");

    const firstEvents = await collectEvents(provider.generate(request(), signal()));
    const first = summarizeEvents(firstEvents);
    expect(first.thinking).toBe("The user wants the weather, so I will call get_weather for Paris.");
    expect(first.text).toBe("Let me check the weather — un instant.");
    expect(first.toolCalls).toEqual([
      { id: "call_1", name: "get_weather", args: { city: "Paris", units: "metric" } },
      { id: "fc-time", name: "get_time", args: {} },
    ]);
    expect(firstEvents.map((event) => event.type)).toEqual([
      "thinking",
      "thinking",
      "text",
      "text",
      "text",
      "toolCall",
      "toolCall",
      "usage",
    ]);
    // Every chunk carries usageMetadata; only the final (complete) one is reported, once, at the end.
    expect(first.usage).toEqual([
      { promptTokens: 25, candidatesTokens: 30, thoughtsTokens: 14, cachedTokens: 0, totalTokens: 69 },
    ]);

    const [sent] = server.requests;
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1beta/models/gemini-test:streamGenerateContent");
    expect(sent?.query.get("alt")).toBe("sse");
    expect(sent?.headers["x-goog-api-key"]).toBe("test-key");
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "Weather in Paris?" }] }],
      systemInstruction: { parts: [{ text: "You are terse." }] },
      tools: [
        {
          functionDeclarations: TOOLS.map((tool) => ({
            name: tool.name,
            description: tool.description,
            parametersJsonSchema: tool.parameters,
          })),
        },
      ],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    });

    const second = await summarizeTurn(
      provider,
      request({
        messages: [
          { role: "user", text: "Weather in Paris?" },
          { role: "model", text: first.text, thinking: first.thinking, toolCalls: first.toolCalls },
          {
            role: "tool",
            results: [
              { id: "call_1", name: "get_weather", response: { temperature: 21, sky: "sunny" } },
              { id: "fc-time", name: "get_time", response: { error: "clock unavailable" } },
            ],
          },
        ],
      }),
    );
    expect(second).toEqual({
      thinking: "",
      text: "It is 21 °C and sunny in Paris.",
      toolCalls: [],
      usage: [{ promptTokens: 40, candidatesTokens: 9, thoughtsTokens: 0, cachedTokens: 16, totalTokens: 49 }],
    });
    expect((server.requests[1]?.body as { contents: unknown }).contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      {
        role: "model",
        parts: [
          { text: "Let me check the weather — un instant." },
          // The signature Gemini sent goes back; our generated id does not.
          {
            functionCall: { name: "get_weather", args: { city: "Paris", units: "metric" } },
            thoughtSignature: fakeGeminiSignature(0),
          },
          { functionCall: { name: "get_time", args: {}, id: "fc-time" } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { temperature: 21, sky: "sunny" } } },
          { functionResponse: { name: "get_time", response: { error: "clock unavailable" }, id: "fc-time" } },
        ],
      },
    ]);
  });

  it("uses request.model over options.model, strips models/, and sends thinkingLevel", async () => {
    const server = await start([{ type: "turn", text: "ok" }]);
    const provider = createGeminiProvider({
      apiKey: "test-key",
      baseUrl: `${server.baseUrl}/`,
      model: "gemini-default",
      thinkingLevel: "low",
    });
    const events = await collectEvents(
      provider.generate(request({ model: "models/gemini-3-pro", systemInstruction: "", tools: [] }), signal()),
    );
    expect(summarizeEvents(events).text).toBe("ok");
    expect(server.requests[0]?.path).toBe("/v1beta/models/gemini-3-pro:streamGenerateContent");
    expect(server.requests[0]?.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "Weather in Paris?" }] }],
      generationConfig: { thinkingConfig: { includeThoughts: true, thinkingLevel: "low" } },
    });
  });

  it("replays unknown function calls with the skip-validator signature and keeps generated ids unique", async () => {
    const server = await start([{ type: "turn", toolCalls: [{ name: "get_time", args: {} }] }]);
    const provider = createGeminiProvider({ apiKey: "test-key", baseUrl: server.baseUrl, model: "gemini-test" });
    // A transcript from an earlier process: this provider never saw these calls' signatures.
    const summary = await summarizeTurn(
      provider,
      request({
        messages: [
          { role: "user", text: "Time?" },
          {
            role: "model",
            text: "",
            toolCalls: [
              { id: "call_3", name: "get_time", args: {} },
              { id: "call_4", name: "get_weather", args: { city: "Oslo" } },
            ],
          },
          {
            role: "tool",
            results: [
              { id: "call_3", name: "get_time", response: { time: "10:00" } },
              { id: "call_4", name: "get_weather", response: { temperature: 3 } },
            ],
          },
          { role: "model", text: "", toolCalls: [] },
          { role: "user", text: "Again?" },
        ],
      }),
    );
    expect(summary.toolCalls).toEqual([{ id: "call_5", name: "get_time", args: {} }]);
    const contents = (server.requests[0]?.body as { contents: unknown[] }).contents;
    expect(contents).toEqual([
      { role: "user", parts: [{ text: "Time?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_time", args: {} }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
          { functionCall: { name: "get_weather", args: { city: "Oslo" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_time", response: { time: "10:00" } } },
          { functionResponse: { name: "get_weather", response: { temperature: 3 } } },
        ],
      },
      // The empty model turn is dropped: Gemini rejects contents without parts.
      { role: "user", parts: [{ text: "Again?" }] },
    ]);
  });

  it("turns an HTTP error into a ModelError with the Gemini message and status", async () => {
    const server = await start(
      [{ type: "error", status: 429, message: "Resource has been exhausted (e.g. check quota)." }],
      "right-key",
    );
    const badKey = createGeminiProvider({ apiKey: "wrong-key", baseUrl: server.baseUrl, model: "gemini-test" });
    const keyError = await rejectionOf(collectEvents(badKey.generate(request(), signal())));
    expect(keyError).toBeInstanceOf(ModelError);
    expect(keyError).toMatchObject({ httpCode: 400 });
    expect((keyError as ModelError).message).toContain("API key not valid. Please pass a valid API key.");

    const goodKey = createGeminiProvider({ apiKey: "right-key", baseUrl: server.baseUrl, model: "gemini-test" });
    const quotaError = await rejectionOf(collectEvents(goodKey.generate(request(), signal())));
    expect(quotaError).toBeInstanceOf(ModelError);
    expect(quotaError).toMatchObject({ httpCode: 429 });
    expect((quotaError as ModelError).message).toMatch(/HTTP 429: Resource has been exhausted.*RESOURCE_EXHAUSTED/);
  });

  it("stops promptly on abort mid-stream; the server sees the connection close", async () => {
    const server = await start([
      {
        type: "chunks",
        chunks: [{ candidates: [{ content: { role: "model", parts: [{ text: "Partial" }] }, index: 0 }] }],
        hold: true,
      },
    ]);
    const provider = createGeminiProvider({ apiKey: "test-key", baseUrl: server.baseUrl, model: "gemini-test" });
    const controller = new AbortController();
    const iterator = provider.generate(request(), controller.signal)[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: "text", delta: "Partial" } });
    const pending = iterator.next();
    controller.abort();
    const error = await rejectionOf(pending);
    expect(error).toMatchObject({ name: "AbortError" });
    expect(await server.responseClosed(0)).toEqual({ completed: false });
  });

  it("closes the connection when the consumer stops early", async () => {
    const server = await start([{ type: "turn", text: "one two three four five six", hold: true }]);
    const provider = createGeminiProvider({ apiKey: "test-key", baseUrl: server.baseUrl, model: "gemini-test" });
    for await (const event of provider.generate(request(), signal())) {
      expect(event.type).toBe("text");
      break;
    }
    expect(await server.responseClosed(0)).toEqual({ completed: false });
  });

  it("does not send a request when the signal is already aborted", async () => {
    const server = await start([{ type: "turn", text: "never" }]);
    const provider = createGeminiProvider({ apiKey: "test-key", baseUrl: server.baseUrl, model: "gemini-test" });
    const controller = new AbortController();
    controller.abort();
    expect(await rejectionOf(collectEvents(provider.generate(request(), controller.signal)))).toMatchObject({
      name: "AbortError",
    });
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, FakeGeminiReply, RegExp, number]>([
    [
      "malformed JSON",
      { type: "raw", body: 'data: {"candidates": [{"content": \r\n\r\n' },
      /malformed stream event \(invalid JSON\)/,
      0,
    ],
    [
      "a non-object event",
      { type: "raw", body: "data: [1, 2]\r\n\r\n" },
      /malformed stream event \(not a JSON object\)/,
      0,
    ],
    [
      "a truncated stream",
      { type: "chunks", chunks: [{ candidates: [{ content: { role: "model", parts: [{ text: "Hal" }] } }] }] },
      /stream ended before the answer was complete/,
      0,
    ],
    [
      "an in-stream error",
      {
        type: "chunks",
        chunks: [
          { candidates: [{ content: { role: "model", parts: [{ text: "Hal" }] } }] },
          { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } },
        ],
      },
      /failed while streaming: The model is overloaded\. \(UNAVAILABLE\)/,
      503,
    ],
    [
      "a malformed function call",
      { type: "turn", text: "x", finishReason: "MALFORMED_FUNCTION_CALL" },
      /finishReason MALFORMED_FUNCTION_CALL/,
      0,
    ],
    [
      "a blocked prompt",
      { type: "chunks", chunks: [{ promptFeedback: { blockReason: "PROHIBITED_CONTENT" } }] },
      /blocked the prompt \(blockReason PROHIBITED_CONTENT\)/,
      0,
    ],
    [
      "function call args that are not an object",
      {
        type: "chunks",
        chunks: [
          { candidates: [{ content: { parts: [{ functionCall: { name: "f", args: [1] } }] }, finishReason: "STOP" }] },
        ],
      },
      /function call f with non-object args/,
      0,
    ],
  ])("reports %s as a clear ModelError", async (_name, reply, message, httpCode) => {
    const server = await start([reply]);
    const provider = createGeminiProvider({ apiKey: "test-key", baseUrl: server.baseUrl, model: "gemini-test" });
    const error = await rejectionOf(collectEvents(provider.generate(request(), signal())));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toMatch(message);
    expect((error as ModelError).httpCode).toBe(httpCode);
  });

  it("reports an unreachable endpoint as a ModelError", async () => {
    const server = await start([]);
    await server.close();
    const provider = createGeminiProvider({ apiKey: "test-key", baseUrl: server.baseUrl, model: "gemini-test" });
    const error = await rejectionOf(collectEvents(provider.generate(request(), signal())));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toMatch(
      /Gemini API: could not reach http:\/\/127\.0\.0\.1:\d+\/v1beta\/models\/gemini-test:streamGenerateContent/,
    );
    expect((error as ModelError).message).not.toContain("test-key");
  });
});
