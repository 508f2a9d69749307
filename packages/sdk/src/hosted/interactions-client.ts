/**
 * A thin client of the Gemini Interactions API over `fetch` and SSE: the four calls the hosted
 * connection needs, with the routes, methods, headers and stream framing of `@google/genai` 3.x
 * (its compiled client: `POST /{api_version}/interactions` with `Accept: text/event-stream` when
 * `stream` is true, `GET /{api_version}/interactions/{id}?stream=true&last_event_id=…`,
 * `POST /{api_version}/interactions/{id}/cancel`; the key in `x-goog-api-key`; each SSE event's
 * `data:` a JSON `InteractionSSEEvent`, `[DONE]` ending the stream). Held equal to that client by
 * test/node/hosted/thin-client-differential.test.ts over the same recorded streams.
 */
import { ErrorCode, SdkError } from "../errors.js";

/** A JSON object as the wire carries it. */
export type WireObject = Record<string, unknown>;

/**
 * One event of the stream (`InteractionSSEEvent` in genai.d.ts): `event_type` is one of
 * `interaction.created`, `interaction.status_update`, `interaction.completed`, `step.start`,
 * `step.delta`, `step.stop`, `error`; every one may carry `event_id`.
 */
export interface InteractionEvent extends WireObject {
  event_type: string;
  event_id?: string;
}

/** Options of {@link InteractionsClient}. */
export interface InteractionsClientOptions {
  /** Sent as `x-goog-api-key`. Leave it out in a page: its server route adds it. */
  apiKey?: string | undefined;
  /** More headers on every request (e.g. a page's own session cookie or token for its route). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Default `https://generativelanguage.googleapis.com/` (@google/genai's Gemini API base). */
  baseUrl?: string | undefined;
  /** Default `v1beta` (@google/genai's default API version). */
  apiVersion?: string | undefined;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch | undefined;
}

const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/";

/** The Interactions API calls the hosted connection makes. */
export class InteractionsClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;

  constructor(options: InteractionsClientOptions = {}) {
    const base = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.#base = `${base}/${encodeURIComponent(options.apiVersion ?? "v1beta")}/interactions`;
    this.#headers = {
      ...options.headers,
      ...(options.apiKey === undefined ? {} : { "x-goog-api-key": options.apiKey }),
    };
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** `interactions.create` without `stream`: the `Interaction` resource. */
  async create(body: WireObject, signal?: AbortSignal): Promise<WireObject> {
    const response = await this.#request("POST", this.#base, { ...body, stream: false }, false, signal);
    return (await response.json()) as WireObject;
  }

  /** `interactions.create` with `stream: true`: the events. */
  async createStream(body: WireObject, signal?: AbortSignal): Promise<AsyncIterable<InteractionEvent>> {
    const response = await this.#request("POST", this.#base, { ...body, stream: true }, true, signal);
    return readEvents(response, signal);
  }

  /** `interactions.get(id, { stream: true, last_event_id })`: the events after `lastEventId` (all without it). */
  async resume(
    id: string,
    lastEventId: string | undefined,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<InteractionEvent>> {
    const query = new URLSearchParams({
      stream: "true",
      ...(lastEventId === undefined ? {} : { last_event_id: lastEventId }),
    });
    const response = await this.#request(
      "GET",
      `${this.#base}/${encodeURIComponent(id)}?${query}`,
      undefined,
      true,
      signal,
    );
    return readEvents(response, signal);
  }

  /** `interactions.get(id)`: the resource. */
  async get(id: string, signal?: AbortSignal): Promise<WireObject> {
    return (await (
      await this.#request("GET", `${this.#base}/${encodeURIComponent(id)}`, undefined, false, signal)
    ).json()) as WireObject;
  }

  /** `interactions.cancel(id)`. */
  async cancel(id: string, signal?: AbortSignal): Promise<WireObject> {
    return (await (
      await this.#request("POST", `${this.#base}/${encodeURIComponent(id)}/cancel`, undefined, false, signal)
    ).json()) as WireObject;
  }

  async #request(
    method: string,
    url: string,
    body: WireObject | undefined,
    stream: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const headers: Record<string, string> = {
      ...this.#headers,
      accept: stream ? "text/event-stream" : "application/json",
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (signal?.aborted === true) throw SdkError.from(signal.reason);
      throw new SdkError(
        ErrorCode.Unavailable,
        `cannot reach the Interactions API at ${url.split("?")[0]}: ${(error as Error)?.message ?? String(error)}`,
        { cause: error },
      );
    }
    if (!response.ok) throw await httpError(response);
    return response;
  }
}

/** The API's error body `{ error: { code, message, status } }` as a typed `SdkError`. */
async function httpError(response: Response): Promise<SdkError> {
  let message = `HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") message = body.error.message;
  } catch {
    // Not JSON: the status says enough.
  }
  const code =
    response.status === 400
      ? ErrorCode.InvalidArgument
      : response.status === 401 || response.status === 403
        ? ErrorCode.PermissionDenied
        : response.status === 404
          ? ErrorCode.NotFound
          : response.status === 429
            ? ErrorCode.ResourceExhausted
            : response.status >= 500
              ? ErrorCode.Unavailable
              : ErrorCode.FailedPrecondition;
  return new SdkError(code, `Interactions API: ${message}`, { details: { httpStatus: response.status } });
}

/**
 * The events of an SSE body (the WHATWG event-stream format: lines ending in LF, CRLF or CR; an
 * event's `data:` lines joined by LF; a blank line ends it), each `data` parsed as JSON. `[DONE]`
 * ends the stream, as @google/genai's `sentinel` does. A body that breaks off throws `Unavailable`.
 */
export async function* readEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<InteractionEvent, void, undefined> {
  const body = response.body;
  if (body === null) return;
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let data: string[] = [];
  /** The events completed by the lines in `buffer`; at the end of the body a trailing CR ends its line too. */
  const drain = (atEnd: boolean): { events: InteractionEvent[]; done: boolean } => {
    const events: InteractionEvent[] = [];
    for (;;) {
      const end = /\r\n|\r|\n/.exec(buffer);
      if (end === null) break;
      // A lone CR at the end may be the first half of CRLF: wait for the next chunk, unless there is none.
      if (end[0] === "\r" && end.index === buffer.length - 1 && !atEnd) break;
      const line = buffer.slice(0, end.index);
      buffer = buffer.slice(end.index + end[0].length);
      if (line === "") {
        if (data.length > 0) {
          const text = data.join("\n");
          data = [];
          if (text === "[DONE]") return { events, done: true };
          events.push(parseEvent(text));
        }
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
    }
    return { events, done: false };
  };
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted === true) throw SdkError.from(signal.reason);
        throw new SdkError(
          ErrorCode.Unavailable,
          `the event stream broke off: ${(error as Error)?.message ?? String(error)}`,
          { cause: error },
        );
      }
      if (!chunk.done) buffer += chunk.value;
      // An event not ended by a blank line when the body ends is dropped (the event-stream format).
      const { events, done } = drain(chunk.done);
      yield* events;
      if (done || chunk.done) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function parseEvent(text: string): InteractionEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SdkError(ErrorCode.ProtocolError, `an event of the Interactions API is not JSON: ${text.slice(0, 200)}`);
  }
  if (typeof value !== "object" || value === null || typeof (value as WireObject)["event_type"] !== "string") {
    throw new SdkError(
      ErrorCode.ProtocolError,
      `an event of the Interactions API has no event_type: ${text.slice(0, 200)}`,
    );
  }
  return value as InteractionEvent;
}
