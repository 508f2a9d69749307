/**
 * A Durable Object per conversation holding its one paused turn's continuation as a single-use
 * ticket: `PUT /` stores the signed envelope, `POST /take` hands it out once and deletes it. An
 * object runs one request at a time, so two approvals racing for the same pause cannot both win:
 * the second gets 409 — the Worker's replay guard, durable across isolates and restarts (the
 * SDK's own guard only covers one isolate; the harness refuses a step it no longer holds).
 */

/** What workerd passes a Durable Object (the parts used here). */
interface DurableObjectState {
  readonly storage: {
    get<T>(key: string): Promise<T | undefined>;
    put(key: string, value: unknown): Promise<void>;
    delete(key: string): Promise<boolean>;
  };
}

/** Body of `POST /take`: the signature the approver presented, or null to take whatever is pending. */
export interface TakeRequest {
  signature: string | null;
}

const KEY = "pending";

export class PendingConfirmation {
  readonly #state: DurableObjectState;

  constructor(state: DurableObjectState) {
    this.#state = state;
  }

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (request.method === "PUT" && path === "/") {
      await this.#state.storage.put(KEY, await request.text());
      return new Response(null, { status: 204 });
    }
    if (request.method === "POST" && path === "/take") {
      const { signature } = (await request.json()) as TakeRequest;
      const stored = await this.#state.storage.get<string>(KEY);
      const envelope = stored === undefined ? undefined : (JSON.parse(stored) as { signature?: string });
      if (envelope === undefined || (signature !== null && envelope.signature !== signature)) {
        return Response.json(
          {
            error: {
              code: "FailedPrecondition",
              message: "this continuation is not pending: it was already answered, or a newer pause replaced it",
            },
          },
          { status: 409 },
        );
      }
      await this.#state.storage.delete(KEY);
      return new Response(stored, { headers: { "content-type": "application/json" } });
    }
    return new Response(null, { status: 404 });
  }
}
