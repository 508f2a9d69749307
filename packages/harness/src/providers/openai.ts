/**
 * The `openai` model provider: any OpenAI-compatible chat-completions endpoint with streaming
 * and tool calls (OpenAI, vLLM, llama.cpp server, Ollama). Usage maps onto protocol §14 counters.
 */
import {
  ModelError,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type ModelToolCall,
  type ModelUsage,
} from "../model/provider.js";
import { createCallIdGenerator } from "./call-ids.js";
import { isRecord, messageOf, parseEventJson, postForEventStream, readEventData, snippet } from "./http.js";
import { buildOpenAIRequestBody } from "./openai-request.js";
import type { ApiRetryPolicy } from "./retry.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** Options of {@link createOpenAIProvider}. */
export interface OpenAIProviderOptions {
  /** The API root including `/v1`, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** The server's model name; wins over `request.model` (which names Gemini models by default). */
  model: string;
  /** Retries of transient failures (`retryConfig.apiRetry`). */
  retry?: ApiRetryPolicy;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

const LABEL = "OpenAI-compatible server";

/** A tool call being assembled from `delta.tool_calls` fragments. */
interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Creates a provider for an OpenAI-compatible chat-completions endpoint. Reasoning arrives as
 * `delta.reasoning_content` (vLLM, llama.cpp) or `delta.reasoning` (Ollama, newer vLLM); tool
 * calls are assembled from their fragments and emitted whole when the choice finishes.
 *
 * @example
 * const provider = createOpenAIProvider({ baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3:8b" });
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const callIds = createCallIdGenerator();

  async function* generate(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent, void, undefined> {
    signal.throwIfAborted();
    callIds.observe(request.messages);
    const model = options.model || request.model;
    if (model === "") throw new ModelError(`${LABEL}: no model name configured (set OPENAI_MODEL)`);
    if (baseUrl === "") throw new ModelError(`${LABEL}: no base URL configured (set OPENAI_BASE_URL)`);
    const headers: Record<string, string> = {};
    if (options.apiKey) headers["authorization"] = `Bearer ${options.apiKey}`;
    const stream = await postForEventStream({
      fetch: fetchImpl,
      url: `${baseUrl}/chat/completions`,
      headers,
      body: buildOpenAIRequestBody(request, model),
      signal,
      label: LABEL,
      ...definedProperties({ retry: options.retry }),
    });

    const pending = new Map<number, PartialToolCall>();
    let usage: ModelUsage | undefined;
    let sawDone = false;
    let sawFinish = false;
    const flushToolCalls = (): ModelEvent[] => {
      const events: ModelEvent[] = [];
      for (const index of [...pending.keys()].sort((a, b) => a - b)) {
        const partial = pending.get(index);
        if (partial === undefined) continue;
        events.push({ type: "toolCall", call: finishToolCall(partial, callIds.next) });
      }
      pending.clear();
      return events;
    };

    for await (const data of readEventData(stream, signal, LABEL)) {
      const trimmed = data.trim();
      if (trimmed === "") continue;
      if (trimmed === "[DONE]") {
        sawDone = true;
        break;
      }
      const chunk = parseEventJson(trimmed, LABEL);
      if (chunk["error"] !== undefined) {
        const error = chunk["error"];
        const code = isRecord(error) ? Number(error["code"]) : NaN;
        throw new ModelError(
          `${LABEL} failed while streaming: ${messageOf(chunk) ?? snippet(trimmed)}`,
          Number.isInteger(code) && code >= 400 && code < 600 ? code : 0,
        );
      }
      if (isRecord(chunk["usage"])) usage = toUsage(chunk["usage"]);
      const choices = chunk["choices"];
      const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
      if (!isRecord(choice)) continue;
      const delta = choice["delta"];
      if (isRecord(delta)) {
        const reasoning = delta["reasoning_content"] ?? delta["reasoning"];
        if (typeof reasoning === "string" && reasoning !== "") yield { type: "thinking", delta: reasoning };
        const content = delta["content"];
        if (typeof content === "string" && content !== "") yield { type: "text", delta: content };
        const toolCalls = delta["tool_calls"];
        if (Array.isArray(toolCalls))
          toolCalls.forEach((fragment, position) => addFragment(pending, fragment, position));
      }
      const finishReason = choice["finish_reason"];
      if (typeof finishReason === "string" && finishReason !== "") {
        sawFinish = true;
        yield* flushToolCalls();
      }
    }
    if (!sawDone && !sawFinish) {
      throw new ModelError(`${LABEL}: the stream ended before the answer was complete (no finish_reason or [DONE])`);
    }
    // Servers that never set finish_reason "tool_calls" still get their calls delivered.
    yield* flushToolCalls();
    if (usage !== undefined) yield { type: "usage", usage };
  }

  return { name: "openai", generate };
}

/** Merges one `delta.tool_calls[]` fragment: id and name once, arguments concatenated. */
function addFragment(pending: Map<number, PartialToolCall>, fragment: unknown, position: number): void {
  if (!isRecord(fragment)) return;
  const index = typeof fragment["index"] === "number" ? fragment["index"] : position;
  let partial = pending.get(index);
  if (partial === undefined) {
    partial = { id: "", name: "", arguments: "" };
    pending.set(index, partial);
  }
  if (typeof fragment["id"] === "string" && fragment["id"] !== "" && partial.id === "") partial.id = fragment["id"];
  const fn = fragment["function"];
  if (!isRecord(fn)) return;
  if (typeof fn["name"] === "string" && fn["name"] !== "" && partial.name === "") partial.name = fn["name"];
  const args = fn["arguments"];
  if (typeof args === "string") partial.arguments += args;
  else if (isRecord(args)) partial.arguments += JSON.stringify(args); // some servers send an object
}

function finishToolCall(partial: PartialToolCall, newId: () => string): ModelToolCall {
  if (partial.name === "") {
    throw new ModelError(
      `${LABEL} sent a tool call without a function name (arguments: ${snippet(partial.arguments)})`,
    );
  }
  let args: unknown = {};
  if (partial.arguments.trim() !== "") {
    try {
      args = JSON.parse(partial.arguments);
    } catch (error) {
      throw new ModelError(
        `${LABEL} sent invalid JSON arguments for tool call ${partial.name}: ${snippet(partial.arguments)}`,
        0,
        { cause: error },
      );
    }
  }
  if (!isRecord(args)) {
    throw new ModelError(
      `${LABEL} sent arguments for tool call ${partial.name} that are not a JSON object: ${snippet(partial.arguments)}`,
    );
  }
  return { id: partial.id || newId(), name: partial.name, args };
}

function toUsage(usage: Record<string, unknown>): ModelUsage {
  const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
  const completion = isRecord(usage["completion_tokens_details"]) ? usage["completion_tokens_details"] : {};
  const prompt = isRecord(usage["prompt_tokens_details"]) ? usage["prompt_tokens_details"] : {};
  const promptTokens = num(usage["prompt_tokens"]);
  const completionTokens = num(usage["completion_tokens"]);
  const thoughtsTokens = num(completion["reasoning_tokens"]);
  return {
    promptTokens,
    // §14 counts thoughts apart from candidates (Gemini style); OpenAI's completion count includes them.
    candidatesTokens: Math.max(0, completionTokens - thoughtsTokens),
    thoughtsTokens,
    cachedTokens: num(prompt["cached_tokens"]),
    totalTokens: num(usage["total_tokens"]) || promptTokens + completionTokens,
  };
}
