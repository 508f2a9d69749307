/**
 * A fake OpenAI-compatible server (`POST /v1/chat/completions`, `stream: true`) that replays
 * scripted answers in the real wire format: `chat.completion.chunk` SSE events with LF line
 * endings, reasoning deltas, tool calls streamed as fragments by `index`, a final usage chunk
 * with empty `choices`, and `data: [DONE]`.
 */
import type { ServerResponse } from "node:http";
import {
  countTokens,
  formatSse,
  sendEventStream,
  sendJson,
  splitText,
  startFakeHttpServer,
  type FakeModelServer,
  type FakeScript,
} from "./fake-http-server.js";

/** A tool call the fake model makes; without `id` one is made up (`call_fake_<turn>_<i>`). */
export interface FakeOpenAIToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

/** `usage` counters of a scripted turn; missing ones are derived from the text. */
export interface FakeOpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  reasoning_tokens?: number;
  cached_tokens?: number;
}

/** One scripted answer. */
export type FakeOpenAIReply =
  /** A model turn, streamed as reasoning, content, then tool-call fragments. */
  | {
      type: "turn";
      reasoning?: string;
      /** `reasoning_content` (vLLM, llama.cpp; default) or `reasoning` (Ollama). */
      reasoningField?: "reasoning_content" | "reasoning";
      text?: string;
      toolCalls?: readonly FakeOpenAIToolCall[];
      usage?: FakeOpenAIUsage;
      /** Defaults to "tool_calls" with tool calls, else "stop". */
      finishReason?: string;
      /** Keep the stream open after the last chunk (no `[DONE]`). */
      hold?: boolean;
    }
  /** Exact chunk objects, one SSE event each, then `[DONE]` unless `done: false`. */
  | { type: "chunks"; chunks: readonly unknown[]; done?: boolean; hold?: boolean }
  /** An OpenAI-style error: `{error:{message, type, code}}`. */
  | { type: "error"; status: number; message: string; code?: string }
  /** Raw response text (for malformed streams). */
  | { type: "raw"; body: string; status?: number; contentType?: string; hold?: boolean };

/** Options of {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401. */
  apiKey?: string;
}

/** The JSON error body an OpenAI-compatible server sends with an HTTP error status. */
export function openAIErrorBody(
  status: number,
  message: string,
  code?: string,
): { error: { message: string; type: string; param: null; code: string | null } } {
  const type = status === 401 ? "authentication_error" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: code ?? null } };
}

/**
 * Starts the fake on 127.0.0.1 (ephemeral port); `baseUrl` ends in `/v1`, as the provider
 * expects. Requests off `POST /v1/chat/completions` get a 404 and do not consume the script.
 *
 * @example
 * await using server = await startFakeOpenAIServer([{ type: "turn", text: "Hello" }]);
 * const provider = createOpenAIProvider({ baseUrl: server.baseUrl, model: "qwen3" });
 */
export function startFakeOpenAIServer(
  script: FakeScript<FakeOpenAIReply>,
  options: FakeOpenAIServerOptions = {},
): Promise<FakeModelServer> {
  return startFakeHttpServer<FakeOpenAIReply>({
    script,
    basePath: "/v1",
    name: "fake OpenAI",
    errorBody: openAIErrorBody,
    isRoute: (request) => request.method === "POST" && request.path === "/v1/chat/completions",
    refuseKey: (request) =>
      options.apiKey !== undefined && request.headers["authorization"] !== `Bearer ${options.apiKey}`
        ? { status: 401, message: "Incorrect API key provided.", code: "invalid_api_key" }
        : undefined,
    invalidJsonMessage: "We could not parse the JSON body of your request.",
    respond(reply, res, index, request) {
      const model = (request.body as { model?: unknown }).model;
      return respond(reply, res, index, typeof model === "string" ? model : "fake-model");
    },
  });
}

async function respond(reply: FakeOpenAIReply, res: ServerResponse, index: number, model: string): Promise<void> {
  switch (reply.type) {
    case "error":
      sendJson(res, reply.status, openAIErrorBody(reply.status, reply.message, reply.code));
      return;
    case "raw":
      await sendEventStream(res, reply.body, {
        hold: reply.hold,
        status: reply.status,
        contentType: reply.contentType,
      });
      return;
    case "chunks": {
      const payloads = reply.chunks.map((chunk) => JSON.stringify(chunk));
      if (reply.done !== false && reply.hold !== true) payloads.push("[DONE]");
      await sendEventStream(res, formatSse(payloads, "\n"), { hold: reply.hold });
      return;
    }
    case "turn": {
      const payloads = openAITurnChunks(reply, index, model).map((chunk) => JSON.stringify(chunk));
      if (reply.hold !== true) payloads.push("[DONE]");
      await sendEventStream(res, formatSse(payloads, "\n"), { hold: reply.hold });
      return;
    }
  }
}

/** Splits a string into `pieces` fragments of similar length (arguments are split mid-token). */
function splitEvenly(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * The `chat.completion.chunk` objects of a scripted turn, as vLLM/llama.cpp/Ollama stream them
 * with `stream_options.include_usage` (without the trailing `[DONE]`).
 */
export function openAITurnChunks(
  turn: Extract<FakeOpenAIReply, { type: "turn" }>,
  index: number,
  model = "fake-model",
): Record<string, unknown>[] {
  const id = `chatcmpl-fake-${index}`;
  const created = 1_767_225_600 + index;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices,
    ...extra,
  });
  const delta = (value: Record<string, unknown>, finishReason: string | null = null): unknown => ({
    index: 0,
    delta: value,
    logprobs: null,
    finish_reason: finishReason,
  });
  const chunks: Record<string, unknown>[] = [chunk([delta({ role: "assistant", content: "" })])];
  const field = turn.reasoningField ?? "reasoning_content";
  for (const piece of splitText(turn.reasoning ?? "", 2)) chunks.push(chunk([delta({ [field]: piece })]));
  for (const piece of splitText(turn.text ?? "", 3)) chunks.push(chunk([delta({ content: piece })]));
  const calls = turn.toolCalls ?? [];
  calls.forEach((call, i) => {
    const callId = call.id ?? `call_fake_${index}_${i}`;
    chunks.push(
      chunk([
        delta({
          tool_calls: [{ index: i, id: callId, type: "function", function: { name: call.name, arguments: "" } }],
        }),
      ]),
    );
    for (const piece of splitEvenly(JSON.stringify(call.args), 3)) {
      chunks.push(chunk([delta({ tool_calls: [{ index: i, function: { arguments: piece } }] })]));
    }
  });
  chunks.push(chunk([delta({}, turn.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"))]));
  const reasoning = turn.usage?.reasoning_tokens ?? countTokens(turn.reasoning);
  const prompt = turn.usage?.prompt_tokens ?? 10;
  const completion = turn.usage?.completion_tokens ?? reasoning + countTokens(turn.text) + calls.length * 5;
  chunks.push(
    chunk([], {
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: turn.usage?.total_tokens ?? prompt + completion,
        prompt_tokens_details: { cached_tokens: turn.usage?.cached_tokens ?? 0 },
        completion_tokens_details: { reasoning_tokens: reasoning },
      },
    }),
  );
  return chunks;
}
