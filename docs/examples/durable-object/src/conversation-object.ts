/**
 * A Durable Object per chat room that keeps the room's conversation in its own storage: each
 * request restores it, runs one turn against the remote harness and saves it again, so the room
 * continues across requests, evictions and restarts.
 *
 *   POST /rooms/<name>  {"prompt": "..."}  -> {"conversationId", "restoredTurns", "turnCount", "text"}
 *
 * The harness keeps the model's side of the session (a harness started with `--listen`, and
 * `--storage DIR` to survive its own restarts); the conversation id is derived from the object's
 * id, so both sides meet again on every request.
 */
import { Agent, SdkError, WebSocketTransport, fetchUpgradeWebSocket } from "@antigravity-ts/sdk";
import { createDurableObjectConversationStore, type DurableObjectStorageLike } from "@antigravity-ts/sdk/storage";

/** The Worker's bindings (wrangler.toml). */
export interface Env {
  HARNESS_URL: string;
  HARNESS_API_KEY: string;
  ROOMS: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

/** What workerd passes a Durable Object (the parts used here). */
interface DurableObjectState {
  readonly id: { toString(): string };
  readonly storage: DurableObjectStorageLike;
}

export class ConversationObject {
  readonly #state: DurableObjectState;
  readonly #env: Env;

  constructor(state: DurableObjectState, env: Env) {
    this.#state = state;
    this.#env = env;
  }

  async fetch(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => ({}))) as { prompt?: unknown };
    if (typeof body.prompt !== "string" || body.prompt.trim() === "")
      return Response.json({ error: { code: "InvalidArgument", message: 'send {"prompt": "..."}' } }, { status: 400 });
    const transport = new WebSocketTransport({
      url: this.#env.HARNESS_URL,
      apiKey: this.#env.HARNESS_API_KEY,
      connect: fetchUpgradeWebSocket,
    });
    try {
      await using agent = await Agent.builder()
        .transport(transport)
        .conversationId(`room-${this.#state.id.toString()}`) // 64 hex digits: a valid id, the same on every request
        .sessionContinuationMode("createOrResume")
        .conversationStore(createDurableObjectConversationStore(this.#state.storage))
        .confirmRunCommand()
        .build()
        .start({ timeoutMs: 15_000 });
      const conversation = agent.conversation();
      const restoredTurns = await conversation.turnCount();
      const response = await conversation.chatToCompletion(body.prompt, { timeoutMs: 60_000 });
      return Response.json({
        conversationId: agent.conversationId,
        restoredTurns,
        turnCount: await conversation.turnCount(),
        text: response.text,
      });
    } catch (error) {
      const { code, message } = SdkError.from(error);
      return Response.json({ error: { code, message } }, { status: code === "InvalidArgument" ? 400 : 502 });
    }
  }
}

/** Routes `/rooms/<name>` to the room's object. */
export const worker = {
  fetch(request: Request, env: Env): Promise<Response> | Response {
    const match = /^\/rooms\/([\w-]{1,64})$/.exec(new URL(request.url).pathname);
    if (match === null || request.method !== "POST")
      return Response.json({ error: { code: "NotFound", message: "POST /rooms/<name>" } }, { status: 404 });
    return env.ROOMS.get(env.ROOMS.idFromName(match[1] as string)).fetch(request);
  },
};
