/**
 * A Cloudflare Worker whose agent pauses on a tool call that needs a person's decision, keeps the
 * signed continuation in a Durable Object, and resumes the same turn on a later request — any
 * isolate, any time within the harness's `--confirmation-hold-ms` (docs/continuations.md).
 *
 *   GET  /                                   -> the approval page (approval-page.ts)
 *   POST /chat     {"prompt"}                -> {"conversationId", "text"}
 *                                               or {"conversationId", "text", "awaiting": {"toolCall", "continuationId"}, "continuation"}
 *   POST /approve  {"continuationId" | "continuation", "approved"}
 *                                            -> the rest of the turn, in the same shape (it may pause again)
 *
 * `continuation` is the signed envelope (HMAC with the CONTINUATION_SECRET binding): a page may show
 * it and send it back, but not alter it (403). Each pause can be answered once (409 afterwards).
 * Bindings: HARNESS_URL, HARNESS_API_KEY, CONTINUATION_SECRET (≥ 32 bytes), PENDING (the object).
 */
import {
  Agent,
  SdkError,
  WebSocketTransport,
  allowAll,
  deferToUser,
  fetchUpgradeWebSocket,
  type ChatResponse,
  type Continuation,
} from "@antigravity-ts/sdk";
import { awaitedCall, verifyContinuation } from "@antigravity-ts/sdk/continuation";
import { APPROVAL_PAGE } from "./approval-page.js";
import type { TakeRequest } from "./pending-confirmation.js";

/** The Worker's bindings (wrangler.toml and `wrangler secret put`). */
export interface Env {
  HARNESS_URL: string;
  HARNESS_API_KEY: string;
  CONTINUATION_SECRET: string;
  PENDING: {
    idFromName(name: string): unknown;
    get(id: unknown): { fetch(input: string, init?: RequestInit): Promise<Response> };
  };
}

/** HTTP status per SDK error code: the caller's mistakes are 4xx, the harness's are 502/504. */
const STATUS: Readonly<Record<string, number>> = {
  InvalidArgument: 400,
  PermissionDenied: 403,
  NotFound: 404,
  FailedPrecondition: 409,
  DeadlineExceeded: 504,
};

function errorResponse(error: unknown): Response {
  const { code, message, details } = SdkError.from(error);
  return Response.json(
    { error: { code, message, reason: details["reason"] ?? null } },
    { status: STATUS[code] ?? 502 },
  );
}

/** The same tools, policies and secret on both sides of the pause: run_command waits for a person. */
function agent(env: Env): Agent {
  return Agent.builder()
    .transport(
      new WebSocketTransport({ url: env.HARNESS_URL, apiKey: env.HARNESS_API_KEY, connect: fetchUpgradeWebSocket }),
    )
    .policies(deferToUser("run_command"), allowAll())
    .continuationSecret(env.CONTINUATION_SECRET)
    .build();
}

function pending(env: Env, conversationId: string): ReturnType<Env["PENDING"]["get"]> {
  return env.PENDING.get(env.PENDING.idFromName(conversationId));
}

/** Answers with a turn's outcome; a pause is stored first, so the id it returns can be approved. */
async function turnResponse(env: Env, conversationId: string, response: ChatResponse): Promise<Response> {
  const paused = response.awaitingConfirmation;
  if (paused === undefined) return Response.json({ conversationId, text: response.text });
  const stored = await pending(env, conversationId).fetch("https://pending/", {
    method: "PUT",
    body: JSON.stringify(paused.continuation),
  });
  if (!stored.ok) throw new Error(`the Durable Object refused the continuation (${stored.status})`);
  const { id, name, args } = paused.toolCall;
  return Response.json({
    conversationId,
    text: response.text,
    awaiting: { toolCall: { id, name, args }, continuationId: conversationId },
    continuation: paused.continuation,
  });
}

async function chat(env: Env, request: Request): Promise<Response> {
  const body = (await request.json().catch(() => ({}))) as { prompt?: unknown };
  if (typeof body.prompt !== "string" || body.prompt.trim() === "")
    return Response.json({ error: { code: "InvalidArgument", message: 'send {"prompt": "..."}' } }, { status: 400 });
  const started = await agent(env).start({ timeoutMs: 15_000 });
  try {
    return await turnResponse(env, started.conversationId, await started.chat(body.prompt).final());
  } finally {
    await started.stop().catch(() => undefined);
  }
}

async function approve(env: Env, request: Request): Promise<Response> {
  const body = (await request.json().catch(() => ({}))) as {
    continuationId?: unknown;
    continuation?: unknown;
    approved?: unknown;
  };
  if (typeof body.approved !== "boolean")
    return Response.json(
      {
        error: {
          code: "InvalidArgument",
          message: 'send {"continuationId" or "continuation", "approved": true | false}',
        },
      },
      { status: 400 },
    );
  // An envelope from a page is checked before anything is looked up: altered or forged → 403.
  let presented: Continuation | undefined;
  if (body.continuation !== undefined) presented = await verifyContinuation(body.continuation, env.CONTINUATION_SECRET);
  const conversationId = presented?.payload.conversationId ?? body.continuationId;
  if (typeof conversationId !== "string" || conversationId === "")
    return Response.json(
      { error: { code: "InvalidArgument", message: "send a continuationId or the signed continuation" } },
      { status: 400 },
    );
  const take: TakeRequest = { signature: presented?.signature ?? null };
  const taken = await pending(env, conversationId).fetch("https://pending/take", {
    method: "POST",
    body: JSON.stringify(take),
  });
  if (!taken.ok) return taken; // 409: already answered (a replay) or superseded
  const continuation = (await taken.json()) as Continuation;
  const { agent: resumed, stream } = await agent(env).resume(
    continuation,
    { toolCallId: awaitedCall(continuation).id, approved: body.approved },
    { timeoutMs: 15_000 },
  );
  try {
    return await turnResponse(env, conversationId, await stream.final());
  } finally {
    await resumed.stop().catch(() => undefined);
  }
}

/** Routes the three endpoints; every SDK failure becomes a typed JSON error. */
export const worker = {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    try {
      if (request.method === "GET" && pathname === "/")
        return new Response(APPROVAL_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
      if (request.method === "POST" && pathname === "/chat") return await chat(env, request);
      if (request.method === "POST" && pathname === "/approve") return await approve(env, request);
      return Response.json(
        { error: { code: "NotFound", message: "GET /, POST /chat or POST /approve" } },
        { status: 404 },
      );
    } catch (error) {
      return errorResponse(error);
    }
  },
};
