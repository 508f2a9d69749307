/**
 * A Cloudflare Worker that runs one agent turn per request against a remote Antigravity harness
 * and returns the answer as JSON, or streams it as server-sent events.
 *
 *   POST /  {"prompt": "..."}          -> {"conversationId", "text", "thinking", "usage", "toolCalls"}
 *   GET  /?prompt=...  (Accept: text/event-stream, or &stream=1)
 *        -> the turn's events as `ChatStream.toReadableStream()` writes them (docs/conversation.md):
 *           event: thought | text | toolCall | toolResult | … | turnComplete, or error
 *
 * Bindings: HARNESS_URL (ws:// or wss:// of a harness started with --listen) and the secret
 * HARNESS_API_KEY. Workers cannot set headers on `new WebSocket()`, so the transport opens the
 * socket with `fetchUpgradeWebSocket` (a fetch with `Upgrade: websocket` and the key header).
 */
import { Agent, SdkError, WebSocketTransport, fetchUpgradeWebSocket, type StartedAgent } from "@antigravity-ts/sdk";
import { workerInfo } from "./worker-tools.js";

/** The Worker's bindings (wrangler.toml `[vars]` and `wrangler secret put HARNESS_API_KEY`). */
export interface Env {
  HARNESS_URL: string;
  HARNESS_API_KEY: string;
}

/** HTTP status for an SDK error code: the harness's fault is a bad gateway, not ours. */
const STATUS: Readonly<Record<string, number>> = {
  InvalidArgument: 400,
  PermissionDenied: 502,
  Unavailable: 502,
  ConnectionClosed: 502,
  HarnessCrashed: 502,
  DeadlineExceeded: 504,
};

function errorBody(error: unknown): { error: { code: string; message: string } } {
  const sdkError = SdkError.from(error);
  return { error: { code: sdkError.code, message: sdkError.message } };
}

function startAgent(env: Env, signal: AbortSignal): Promise<StartedAgent> {
  const transport = new WebSocketTransport({
    url: env.HARNESS_URL,
    apiKey: env.HARNESS_API_KEY,
    connect: fetchUpgradeWebSocket,
  });
  // No shell from a Worker: run_command is refused, every other tool allowed.
  return Agent.builder()
    .transport(transport)
    .tool(workerInfo)
    .confirmRunCommand()
    .build()
    .start({ signal, timeoutMs: 15_000 });
}

async function readPrompt(request: Request): Promise<string> {
  const url = new URL(request.url);
  if (request.method === "POST") {
    const body = (await request.json().catch(() => ({}))) as { prompt?: unknown };
    if (typeof body.prompt === "string") return body.prompt;
  }
  return url.searchParams.get("prompt") ?? "";
}

function wantsStream(request: Request): boolean {
  return (
    new URL(request.url).searchParams.get("stream") === "1" ||
    (request.headers.get("accept") ?? "").includes("text/event-stream")
  );
}

/** One turn, whole: `{ conversationId, text, textBlocks, thinking, usage, toolCalls }` (tool names, once per call). */
async function answerJson(env: Env, prompt: string, signal: AbortSignal): Promise<Response> {
  let agent: StartedAgent | undefined;
  try {
    agent = await startAgent(env, signal);
    const response = await agent.chatToCompletion(prompt, { signal });
    const calls = new Map(
      response.steps.flatMap((step) => step.toolCalls.map((call) => [call.id, call.name] as const)),
    );
    return Response.json({
      conversationId: agent.conversationId,
      text: response.text,
      textBlocks: response.textBlocks.map((block) => block.text), // the text of each model call, apart
      thinking: response.thinking,
      usage: response.usageMetadata,
      toolCalls: [...calls.values()],
    });
  } catch (error) {
    const body = errorBody(error);
    return Response.json(body, { status: STATUS[body.error.code] ?? 500 });
  } finally {
    await agent?.stop().catch(() => undefined);
  }
}

/**
 * One turn, streamed as server-sent events while the harness produces it: the bytes of
 * `ChatStream.toReadableStream()`, returned as they are. The agent stops when the stream is done,
 * or when the client goes away (which also cancels the turn).
 */
async function answerStream(env: Env, prompt: string, signal: AbortSignal): Promise<Response> {
  const headers = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" };
  let agent: StartedAgent;
  try {
    agent = await startAgent(env, signal);
  } catch (error) {
    return new Response(`event: error\ndata: ${JSON.stringify({ type: "error", ...errorBody(error).error })}\n\n`, {
      headers,
    });
  }
  const stop = (): void => void agent.stop().catch(() => undefined);
  signal.addEventListener("abort", stop, { once: true });
  const events = agent.chat(prompt, { signal }).toReadableStream();
  return new Response(events.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: stop })), { headers });
}

/** The Worker's module export. */
export const worker = {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (!env.HARNESS_URL || !env.HARNESS_API_KEY) {
      return Response.json(
        {
          error: { code: "FailedPrecondition", message: "set the HARNESS_URL variable and the HARNESS_API_KEY secret" },
        },
        { status: 500 },
      );
    }
    const prompt = (await readPrompt(request)).trim();
    if (prompt === "") {
      return Response.json(
        { error: { code: "InvalidArgument", message: 'send a prompt: POST {"prompt": "..."} or GET /?prompt=...' } },
        { status: 400 },
      );
    }
    return wantsStream(request) ? answerStream(env, prompt, request.signal) : answerJson(env, prompt, request.signal);
  },
};
