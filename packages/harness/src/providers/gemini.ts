/**
 * The `gemini` model provider: the Gemini API's `streamGenerateContent` over SSE, with thought
 * summaries, function calling and usage metadata (protocol §5.1 `GeminiAPIEndpoint`, §14).
 */
import {
  ModelError,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type ModelUsage,
} from "../model/provider.js";
import { createCallIdGenerator } from "./call-ids.js";
import { buildGeminiRequestBody } from "./gemini-request.js";
import {
  isRecord,
  mergeHeaders,
  messageOf,
  parseEventJson,
  postForEventStream,
  readEventData,
  snippet,
} from "./http.js";
import { DEFAULT_GEMINI_BASE_URL, DEFAULT_VERTEX_BASE_URL } from "./lazy.js";
import type { ApiRetryPolicy } from "./retry.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** Options of {@link createGeminiProvider}. */
export interface GeminiProviderOptions {
  apiKey: string;
  /** Defaults to `https://generativelanguage.googleapis.com`. */
  baseUrl?: string;
  /** Used when the request names no model. */
  model: string;
  /** `GenerationConfig.thinkingConfig.thinkingLevel` ("minimal", "low", "medium", "high"). */
  thinkingLevel?: string;
  /** The request's `serviceTier` ("standard", "flex", "priority"; `GeminiModelOptions.service_tier`). */
  serviceTier?: string;
  /** Extra HTTP headers of every request (`GeminiAPIEndpoint.http_headers`); the key header wins. */
  headers?: Readonly<Record<string, string>>;
  /** Retries of transient failures (`retryConfig.apiRetry`). */
  retry?: ApiRetryPolicy;
  /**
   * `"gemini"` (default): the Gemini API's `/v1beta/models/{model}` route. `"vertexExpress"`:
   * Vertex AI in express mode (`VertexEndpoint.api_key`), `/v1/publishers/google/models/{model}`.
   */
  api?: "gemini" | "vertexExpress";
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

export { DEFAULT_GEMINI_BASE_URL, DEFAULT_VERTEX_BASE_URL };

const LABEL = "Gemini API";
/** Finish reasons of a complete answer; any other one means Gemini cut the answer off. */
const NORMAL_FINISH = new Set(["STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"]);
/** Signatures kept for replaying function calls; old ones are dropped beyond this. */
const MAX_SIGNATURES = 4096;

/**
 * Creates a provider for the Gemini API. The model is `request.model` when set, else
 * `options.model`. Thought signatures Gemini attaches to function calls are remembered by this
 * provider instance and sent back with those calls, as Gemini 3 requires.
 *
 * @example
 * const provider = createGeminiProvider({ apiKey: process.env.GEMINI_API_KEY ?? "", model: "gemini-3-flash-preview" });
 */
export function createGeminiProvider(options: GeminiProviderOptions): ModelProvider {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const vertex = options.api === "vertexExpress";
  const baseUrl = (options.baseUrl || (vertex ? DEFAULT_VERTEX_BASE_URL : DEFAULT_GEMINI_BASE_URL)).replace(/\/+$/, "");
  const route = vertex ? "v1/publishers/google/models" : "v1beta/models";
  const label = vertex ? "Vertex AI" : LABEL;
  const signatures = new Map<string, string>();
  const callIds = createCallIdGenerator();

  const rememberSignature = (callId: string, signature: string): void => {
    signatures.set(callId, signature);
    if (signatures.size > MAX_SIGNATURES) {
      const oldest = signatures.keys().next().value;
      if (oldest !== undefined) signatures.delete(oldest);
    }
  };

  async function* generate(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent, void, undefined> {
    signal.throwIfAborted();
    callIds.observe(request.messages);
    const model = (request.model || options.model).replace(/^models\//, "");
    if (model === "") throw new ModelError(`${label}: no model name configured`);
    const body = buildGeminiRequestBody(request, {
      thinkingLevel: options.thinkingLevel,
      serviceTier: options.serviceTier,
      signatureFor: (id) => signatures.get(id),
    });
    const stream = await postForEventStream({
      fetch: fetchImpl,
      url: `${baseUrl}/${route}/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`,
      headers: mergeHeaders(options.headers, { "x-goog-api-key": options.apiKey }),
      body,
      signal,
      label,
      ...definedProperties({ retry: options.retry }),
    });

    let usage: ModelUsage | undefined;
    let finishReason: string | undefined;
    for await (const data of readEventData(stream, signal, label)) {
      if (data.trim() === "") continue;
      const chunk = parseEventJson(data, label);
      if (chunk["error"] !== undefined) {
        const code = isRecord(chunk["error"]) ? chunk["error"]["code"] : undefined;
        throw new ModelError(
          `${label} failed while streaming: ${messageOf(chunk) ?? snippet(data)}`,
          typeof code === "number" ? code : 0,
        );
      }
      const candidate = firstCandidate(chunk);
      const parts =
        candidate?.["content"] !== undefined && isRecord(candidate["content"]) ? candidate["content"]["parts"] : [];
      for (const part of Array.isArray(parts) ? parts : []) {
        if (!isRecord(part)) continue;
        const event = partToEvent(part);
        if (event === undefined) continue;
        if (event.type === "toolCall" && event.call.id === "") {
          event.call.id = callIds.next();
        }
        if (event.type === "toolCall" && typeof part["thoughtSignature"] === "string") {
          rememberSignature(event.call.id, part["thoughtSignature"]);
        }
        yield event;
      }
      // usageMetadata is cumulative; only the last one counts.
      if (isRecord(chunk["usageMetadata"])) usage = toUsage(chunk["usageMetadata"]);
      const reason = candidate?.["finishReason"];
      if (typeof reason === "string" && reason !== "") {
        finishReason = reason;
        if (!NORMAL_FINISH.has(reason)) {
          throw new ModelError(`${label} stopped the answer early (finishReason ${reason}${finishMessage(candidate)})`);
        }
      }
      blockedPrompt(chunk);
    }
    if (finishReason === undefined) {
      throw new ModelError(`${label}: the stream ended before the answer was complete (no finishReason)`);
    }
    if (usage !== undefined) yield { type: "usage", usage };
  }

  return { name: "gemini", generate };
}

function firstCandidate(chunk: Record<string, unknown>): Record<string, unknown> | undefined {
  const candidates = chunk["candidates"];
  if (!Array.isArray(candidates)) return undefined;
  const first: unknown = candidates[0];
  return isRecord(first) ? first : undefined;
}

/** Maps one response part; tool calls without an id get `""` for the caller to fill. */
function partToEvent(part: Record<string, unknown>): ModelEvent | undefined {
  const functionCall = part["functionCall"];
  if (functionCall !== undefined) {
    if (!isRecord(functionCall) || typeof functionCall["name"] !== "string" || functionCall["name"] === "") {
      throw new ModelError(`${LABEL} sent a function call without a name: ${snippet(JSON.stringify(part))}`);
    }
    const args = functionCall["args"] ?? {};
    if (!isRecord(args)) {
      throw new ModelError(
        `${LABEL} sent function call ${functionCall["name"]} with non-object args: ${snippet(JSON.stringify(args))}`,
      );
    }
    const id = typeof functionCall["id"] === "string" ? functionCall["id"] : "";
    return { type: "toolCall", call: { id, name: functionCall["name"], args } };
  }
  const text = part["text"];
  if (typeof text !== "string" || text === "") return undefined;
  return part["thought"] === true ? { type: "thinking", delta: text } : { type: "text", delta: text };
}

function toUsage(metadata: Record<string, unknown>): ModelUsage {
  const count = (key: string): number => {
    const value = metadata[key];
    const n = typeof value === "string" ? Number(value) : value;
    return typeof n === "number" && Number.isFinite(n) ? n : 0;
  };
  return {
    promptTokens: count("promptTokenCount"),
    candidatesTokens: count("candidatesTokenCount"),
    thoughtsTokens: count("thoughtsTokenCount"),
    cachedTokens: count("cachedContentTokenCount"),
    totalTokens: count("totalTokenCount"),
  };
}

function finishMessage(candidate: Record<string, unknown> | undefined): string {
  const message = candidate?.["finishMessage"];
  return typeof message === "string" && message !== "" ? `: ${message}` : "";
}

function blockedPrompt(chunk: Record<string, unknown>): void {
  const feedback = chunk["promptFeedback"];
  if (!isRecord(feedback)) return;
  const reason = feedback["blockReason"];
  if (typeof reason === "string" && reason !== "" && reason !== "BLOCK_REASON_UNSPECIFIED") {
    throw new ModelError(`${LABEL} blocked the prompt (blockReason ${reason}); rephrase the request`);
  }
}
