import { afterEach, describe, expect, it } from "vitest";
import { ModelError, type ModelRequest, type ToolDeclaration } from "../model/provider.js";
import { createOpenAIProvider } from "./openai.js";
import { collectEvents, rejectionOf, summarizeEvents, summarizeTurn } from "./testing/collect.js";
import { startFakeOpenAIServer, type FakeModelServer, type FakeOpenAIReply, type FakeScript } from "./testing/index.js";

const TOOLS: ToolDeclaration[] = [
  {
    name: "read_file",
    description: "Reads a file of the workspace.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(script: FakeScript<FakeOpenAIReply>, apiKey?: string): Promise<FakeModelServer> {
  const server = await startFakeOpenAIServer(script, apiKey === undefined ? {} : { apiKey });
  servers.push(server);
  return server;
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "gemini-3.7-flash",
    systemInstruction: "You are a coding agent.",
    messages: [{ role: "user", text: "What is in README.md?" }],
    tools: TOOLS,
    ...overrides,
  };
}

const signal = (): AbortSignal => new AbortController().signal;

/** A chunk with one choice, as chat-completions servers stream them. */
const choiceChunk = (delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> => ({
  id: "chatcmpl-x",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finishReason }],
});

describe("createOpenAIProvider", () => {
  it("runs a tool-call turn: reasoning + text + fragmented tool calls, then the tool result and a final answer", async () => {
    const server = await start(
      [
        {
          type: "turn",
          reasoning: "I need to read the file before answering.",
          text: "Reading README.md — one moment.",
          toolCalls: [
            { name: "read_file", args: { path: "README.md" }, id: "call_abc" },
            { name: "read_file", args: { path: "docs/intro.md" }, id: "call_def" },
          ],
          usage: { prompt_tokens: 30, completion_tokens: 22, reasoning_tokens: 8, total_tokens: 52 },
        },
        {
          type: "turn",
          reasoningField: "reasoning",
          reasoning: "Summarise.",
          text: "README.md says: hello.",
          usage: { prompt_tokens: 80, completion_tokens: 12, reasoning_tokens: 2, cached_tokens: 64, total_tokens: 92 },
        },
      ],
      "sk-test",
    );
    const provider = createOpenAIProvider({ baseUrl: server.baseUrl, apiKey: "sk-test", model: "qwen3:8b" });
    expect(provider.name).toBe("openai");

    const firstEvents = await collectEvents(provider.generate(request(), signal()));
    const first = summarizeEvents(firstEvents);
    expect(first).toEqual({
      thinking: "I need to read the file before answering.",
      text: "Reading README.md — one moment.",
      toolCalls: [
        { id: "call_abc", name: "read_file", args: { path: "README.md" } },
        { id: "call_def", name: "read_file", args: { path: "docs/intro.md" } },
      ],
      usage: [{ promptTokens: 30, candidatesTokens: 14, thoughtsTokens: 8, cachedTokens: 0, totalTokens: 52 }],
    });
    expect(firstEvents.at(-1)?.type).toBe("usage");

    const [sent] = server.requests;
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers["authorization"]).toBe("Bearer sk-test");
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.body).toEqual({
      model: "qwen3:8b",
      messages: [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "What is in README.md?" },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: "function",
          function: { name: "read_file", description: TOOLS[0]?.description, parameters: TOOLS[0]?.parameters },
        },
      ],
    });

    const second = await summarizeTurn(
      provider,
      request({
        messages: [
          { role: "user", text: "What is in README.md?" },
          { role: "model", text: first.text, thinking: first.thinking, toolCalls: first.toolCalls },
          {
            role: "tool",
            results: [
              { id: "call_abc", name: "read_file", response: { content: "hello" } },
              { id: "call_def", name: "read_file", response: { error: "not found" } },
            ],
          },
        ],
      }),
    );
    expect(second).toEqual({
      thinking: "Summarise.",
      text: "README.md says: hello.",
      toolCalls: [],
      usage: [{ promptTokens: 80, candidatesTokens: 10, thoughtsTokens: 2, cachedTokens: 64, totalTokens: 92 }],
    });
    expect((server.requests[1]?.body as { messages: unknown }).messages).toEqual([
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "What is in README.md?" },
      {
        role: "assistant",
        content: "Reading README.md — one moment.",
        tool_calls: [
          { id: "call_abc", type: "function", function: { name: "read_file", arguments: '{"path":"README.md"}' } },
          { id: "call_def", type: "function", function: { name: "read_file", arguments: '{"path":"docs/intro.md"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_abc", content: '{"content":"hello"}' },
      { role: "tool", tool_call_id: "call_def", content: '{"error":"not found"}' },
    ]);
  });

  it("sends no Authorization without an API key, null content for a call-only turn, and no empty tools", async () => {
    const server = await start([{ type: "turn", text: "done" }]);
    const provider = createOpenAIProvider({ baseUrl: `${server.baseUrl}/`, model: "llama3" });
    await collectEvents(
      provider.generate(
        request({
          systemInstruction: "",
          tools: [],
          messages: [
            { role: "user", text: "hi" },
            { role: "model", text: "", toolCalls: [{ id: "c1", name: "read_file", args: {} }] },
            { role: "tool", results: [{ id: "c1", name: "read_file", response: { ok: true } }] },
            { role: "model", text: "plain answer", toolCalls: [] },
            { role: "user", text: "thanks" },
          ],
        }),
        signal(),
      ),
    );
    const sent = server.requests[0];
    expect(sent?.headers["authorization"]).toBeUndefined();
    expect(sent?.body).toEqual({
      model: "llama3",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: '{"ok":true}' },
        { role: "assistant", content: "plain answer" },
        { role: "user", content: "thanks" },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("assembles tool calls without ids or finish_reason tool_calls, and keeps generated ids unique", async () => {
    const server = await start([
      {
        type: "chunks",
        chunks: [
          // Fragments of two calls interleaved; no ids; arguments split mid-token.
          choiceChunk({ tool_calls: [{ index: 0, function: { name: "read_file", arguments: '{"pa' } }] }),
          choiceChunk({ tool_calls: [{ index: 1, function: { name: "read_file", arguments: "" } }] }),
          choiceChunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "a.md"}' } }] }),
          choiceChunk({ tool_calls: [{ index: 1, function: { arguments: '{"path":"b.md"}' } }] }),
          choiceChunk({}, "stop"),
        ],
      },
    ]);
    const provider = createOpenAIProvider({ baseUrl: server.baseUrl, model: "m" });
    const summary = await summarizeTurn(
      provider,
      request({
        messages: [
          { role: "user", text: "x" },
          { role: "model", text: "", toolCalls: [{ id: "call_7", name: "read_file", args: {} }] },
          { role: "tool", results: [{ id: "call_7", name: "read_file", response: {} }] },
        ],
      }),
    );
    expect(summary.toolCalls).toEqual([
      { id: "call_8", name: "read_file", args: { path: "a.md" } },
      { id: "call_9", name: "read_file", args: { path: "b.md" } },
    ]);
    expect(summary.usage).toEqual([]);
  });

  it("turns a 401 into a ModelError with the server's message", async () => {
    const server = await start([], "sk-right");
    const provider = createOpenAIProvider({ baseUrl: server.baseUrl, apiKey: "sk-wrong", model: "m" });
    const error = await rejectionOf(collectEvents(provider.generate(request(), signal())));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ httpCode: 401 });
    expect((error as ModelError).message).toBe(
      "OpenAI-compatible server returned HTTP 401: Incorrect API key provided.",
    );
  });

  it("reports a 404 for a wrong base URL with the status", async () => {
    const server = await start([{ type: "turn", text: "unused" }]);
    const provider = createOpenAIProvider({ baseUrl: server.baseUrl.replace(/\/v1$/, ""), model: "m" });
    const error = await rejectionOf(collectEvents(provider.generate(request(), signal())));
    expect(error).toMatchObject({ httpCode: 404 });
    expect((error as ModelError).message).toContain("no route for POST /chat/completions");
  });

  it("stops promptly on abort mid-stream; the server sees the connection close", async () => {
    const server = await start([{ type: "chunks", chunks: [choiceChunk({ content: "Partial" })], hold: true }]);
    const provider = createOpenAIProvider({ baseUrl: server.baseUrl, model: "m" });
    const controller = new AbortController();
    const iterator = provider.generate(request(), controller.signal)[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: "text", delta: "Partial" } });
    const pending = iterator.next();
    controller.abort();
    expect(await rejectionOf(pending)).toMatchObject({ name: "AbortError" });
    expect(await server.responseClosed(0)).toEqual({ completed: false });
  });

  it.each<[string, FakeOpenAIReply, RegExp, number]>([
    ["malformed JSON", { type: "raw", body: 'data: {"choices": [\n\n' }, /malformed stream event \(invalid JSON\)/, 0],
    [
      "invalid tool-call arguments",
      {
        type: "chunks",
        chunks: [
          choiceChunk({
            tool_calls: [{ index: 0, id: "c1", function: { name: "read_file", arguments: '{"path": README' } }],
          }),
          choiceChunk({}, "tool_calls"),
        ],
      },
      /invalid JSON arguments for tool call read_file: \{"path": README/,
      0,
    ],
    [
      "tool-call arguments that are not an object",
      {
        type: "chunks",
        chunks: [
          choiceChunk({
            tool_calls: [{ index: 0, id: "c1", function: { name: "read_file", arguments: '"README.md"' } }],
          }),
          choiceChunk({}, "tool_calls"),
        ],
      },
      /arguments for tool call read_file that are not a JSON object/,
      0,
    ],
    [
      "a truncated stream",
      { type: "chunks", chunks: [choiceChunk({ content: "Hal" })], done: false },
      /stream ended before the answer was complete/,
      0,
    ],
    [
      "an in-stream error",
      {
        type: "chunks",
        chunks: [choiceChunk({ content: "Hal" }), { error: { message: "context length exceeded", code: 400 } }],
      },
      /failed while streaming: context length exceeded/,
      400,
    ],
  ])("reports %s as a clear ModelError", async (_name, reply, message, httpCode) => {
    const server = await start([reply]);
    const provider = createOpenAIProvider({ baseUrl: server.baseUrl, model: "m" });
    const error = await rejectionOf(collectEvents(provider.generate(request(), signal())));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toMatch(message);
    expect((error as ModelError).httpCode).toBe(httpCode);
  });

  it("reports an unreachable server as a ModelError", async () => {
    const server = await start([]);
    await server.close();
    const provider = createOpenAIProvider({ baseUrl: server.baseUrl, apiKey: "sk-secret", model: "m" });
    const error = await rejectionOf(collectEvents(provider.generate(request(), signal())));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions/);
    expect((error as ModelError).message).not.toContain("sk-secret");
  });
});
