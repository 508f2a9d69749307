/**
 * A fake Gemini API (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`) that replays
 * scripted answers in the real wire format: `data: <GenerateContentResponse>` SSE events with
 * CRLF line endings, thought parts, function calls with thought signatures, cumulative
 * `usageMetadata`, and Google-style JSON error bodies.
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

/** A function call the fake model makes. Without `id`, the part carries none (like Gemini). */
export interface FakeGeminiToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

/** `usageMetadata` counters of a scripted turn; missing ones are derived from the text. */
export interface FakeGeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}

/** One scripted answer. */
export type FakeGeminiReply =
  /** A model turn, chunked like Gemini streams it: thoughts, then text, then function calls. */
  | {
      type: "turn";
      thinking?: string;
      text?: string;
      toolCalls?: readonly FakeGeminiToolCall[];
      usage?: FakeGeminiUsage;
      /** Defaults to "STOP". */
      finishReason?: string;
      /** Keep the stream open after the last chunk. */
      hold?: boolean;
    }
  /** Exact `GenerateContentResponse` objects, one SSE event each. */
  | { type: "chunks"; chunks: readonly unknown[]; hold?: boolean }
  /** A Google-style error: `{error:{code, message, status}}`. */
  | { type: "error"; status: number; message: string }
  /** Raw response text (for malformed streams). */
  | { type: "raw"; body: string; status?: number; contentType?: string; hold?: boolean };

/** Options of {@link startFakeGeminiServer}. */
export interface FakeGeminiServerOptions {
  /** When set, requests with another `x-goog-api-key` get Gemini's 400 API_KEY_INVALID error. */
  apiKey?: string;
}

/** The thought signature the fake attaches to the first function call of scripted turn `index`. */
export function fakeGeminiSignature(index: number): string {
  return Buffer.from(`fake-thought-signature-${index}`).toString("base64");
}

// The Gemini API route, and Vertex AI's express-mode route (same request and stream format).
const ROUTE = /^\/(?:v1beta\/models|v1\/publishers\/google\/models)\/([^/:]+):streamGenerateContent$/;

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The JSON error body the Gemini API sends with an HTTP error status. */
export function geminiErrorBody(
  status: number,
  message: string,
): { error: { code: number; message: string; status: string } } {
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } };
}

/**
 * Starts the fake on 127.0.0.1 (ephemeral port); `baseUrl` is the value for the provider's
 * `baseUrl`. Requests off the `streamGenerateContent?alt=sse` route get a 404 and do not consume
 * the script.
 *
 * @example
 * await using server = await startFakeGeminiServer([{ type: "turn", text: "Hello" }]);
 * const provider = createGeminiProvider({ apiKey: "k", baseUrl: server.baseUrl, model: "gemini-test" });
 */
export function startFakeGeminiServer(
  script: FakeScript<FakeGeminiReply>,
  options: FakeGeminiServerOptions = {},
): Promise<FakeModelServer> {
  return startFakeHttpServer<FakeGeminiReply>({
    script,
    basePath: "",
    name: "fake Gemini",
    errorBody: geminiErrorBody,
    isRoute: (request) => request.method === "POST" && ROUTE.test(request.path) && request.query.get("alt") === "sse",
    refuseKey: (request) =>
      options.apiKey !== undefined && request.headers["x-goog-api-key"] !== options.apiKey
        ? { status: 400, message: "API key not valid. Please pass a valid API key." }
        : undefined,
    invalidJsonMessage: "Invalid JSON payload received.",
    respond: (reply, res, index, request) => respond(reply, res, index, ROUTE.exec(request.path)?.[1] ?? "gemini-fake"),
  });
}

async function respond(reply: FakeGeminiReply, res: ServerResponse, index: number, model: string): Promise<void> {
  switch (reply.type) {
    case "error":
      sendJson(res, reply.status, geminiErrorBody(reply.status, reply.message));
      return;
    case "raw":
      await sendEventStream(res, reply.body, {
        hold: reply.hold,
        status: reply.status,
        contentType: reply.contentType,
      });
      return;
    case "chunks":
      await sendEventStream(
        res,
        formatSse(
          reply.chunks.map((chunk) => JSON.stringify(chunk)),
          "\r\n",
        ),
        {
          hold: reply.hold,
        },
      );
      return;
    case "turn":
      await sendEventStream(
        res,
        formatSse(
          geminiTurnChunks(reply, index, model).map((c) => JSON.stringify(c)),
          "\r\n",
        ),
        {
          hold: reply.hold,
        },
      );
      return;
  }
}

/**
 * The `GenerateContentResponse` chunks of a scripted turn, as Gemini streams them: each chunk
 * carries the running `usageMetadata`; the last one carries `finishReason`.
 */
export function geminiTurnChunks(
  turn: Extract<FakeGeminiReply, { type: "turn" }>,
  index: number,
  model = "gemini-fake",
): Record<string, unknown>[] {
  const prompt = turn.usage?.promptTokenCount ?? 10;
  const thoughtsTotal = turn.usage?.thoughtsTokenCount ?? countTokens(turn.thinking);
  const candidatesTotal =
    turn.usage?.candidatesTokenCount ?? countTokens(turn.text) + (turn.toolCalls?.length ?? 0) * 5;
  const partsList: Record<string, unknown>[][] = [];
  for (const delta of splitText(turn.thinking ?? "", 2)) partsList.push([{ text: delta, thought: true }]);
  for (const delta of splitText(turn.text ?? "", 3)) partsList.push([{ text: delta }]);
  if (turn.toolCalls !== undefined && turn.toolCalls.length > 0) {
    partsList.push(
      turn.toolCalls.map((call, i) => {
        const functionCall: Record<string, unknown> = { name: call.name, args: call.args };
        if (call.id !== undefined) functionCall["id"] = call.id;
        // Gemini 3 signs the first function call of a step.
        return i === 0 ? { functionCall, thoughtSignature: fakeGeminiSignature(index) } : { functionCall };
      }),
    );
  }
  if (partsList.length === 0) partsList.push([{ text: "" }]);
  return partsList.map((parts, i) => {
    const last = i === partsList.length - 1;
    const candidate: Record<string, unknown> = { content: { parts, role: "model" }, index: 0 };
    if (last) candidate["finishReason"] = turn.finishReason ?? "STOP";
    const usageMetadata: Record<string, unknown> = { promptTokenCount: prompt };
    if (last) {
      usageMetadata["candidatesTokenCount"] = candidatesTotal;
      usageMetadata["totalTokenCount"] = turn.usage?.totalTokenCount ?? prompt + candidatesTotal + thoughtsTotal;
      if (thoughtsTotal > 0) usageMetadata["thoughtsTokenCount"] = thoughtsTotal;
      if (turn.usage?.cachedContentTokenCount !== undefined) {
        usageMetadata["cachedContentTokenCount"] = turn.usage.cachedContentTokenCount;
      }
      usageMetadata["promptTokensDetails"] = [{ modality: "TEXT", tokenCount: prompt }];
    } else {
      usageMetadata["totalTokenCount"] = prompt;
    }
    return { candidates: [candidate], usageMetadata, modelVersion: model, responseId: `fake-response-${index}` };
  });
}
