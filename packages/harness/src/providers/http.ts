/**
 * HTTP plumbing shared by the model providers: POST a JSON body, turn failures into
 * {@link ModelError}s with actionable messages, and read the SSE answer as event payloads.
 */
import { ModelError } from "../model/provider.js";
import { NO_RETRIES, withRetries, type ApiRetryPolicy } from "./retry.js";
import { readSseEvents } from "./sse.js";

/** Options of {@link postForEventStream}. */
export interface PostForEventStreamOptions {
  fetch: typeof fetch;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** Who we talk to, for messages: "Gemini API", "OpenAI-compatible server". */
  label: string;
  /** Retries of transient failures before the stream starts (`retryConfig.apiRetry`); none by default. */
  retry?: ApiRetryPolicy;
}

/**
 * POSTs `body` as JSON and returns the response body stream. Throws the abort reason when
 * `signal` aborts, and a {@link ModelError} (with `httpCode` = status for HTTP failures) otherwise,
 * after the retries `options.retry` allows for transient failures.
 */
export function postForEventStream(options: PostForEventStreamOptions): Promise<ReadableStream<Uint8Array>> {
  return withRetries(options.retry ?? NO_RETRIES, options.signal, () => postOnce(options));
}

async function postOnce(options: PostForEventStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const { signal, label } = options;
  signal.throwIfAborted();
  let response: Response;
  try {
    response = await options.fetch(options.url, {
      method: "POST",
      headers: mergeHeaders({ "content-type": "application/json", accept: "text/event-stream" }, options.headers),
      body: JSON.stringify(options.body),
      signal,
    });
  } catch (error) {
    signal.throwIfAborted();
    throw new ModelError(
      `${label}: could not reach ${describeEndpoint(options.url)} (${describeCause(error)}); check the base URL and that the server is running`,
      0,
      { cause: error },
    );
  }
  if (!response.ok) {
    let text = "";
    try {
      text = await response.text();
    } catch {
      signal.throwIfAborted();
    }
    const detail = errorMessageFromBody(text) ?? (response.statusText || "no error message");
    throw new ModelError(`${label} returned HTTP ${response.status}: ${detail}`, response.status);
  }
  if (response.body === null) {
    throw new ModelError(`${label} returned HTTP ${response.status} with an empty body`, response.status);
  }
  return response.body;
}

/**
 * Yields the `data` of each SSE event of `body`. Aborts surface as the signal's reason; a broken
 * connection becomes a {@link ModelError}.
 */
export async function* readEventData(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  label: string,
): AsyncGenerator<string, void, undefined> {
  try {
    for await (const event of readSseEvents(body, signal)) yield event.data;
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof ModelError) throw error;
    throw new ModelError(`${label}: the connection failed while streaming the answer (${describeCause(error)})`, 0, {
      cause: error,
    });
  }
}

/** Parses one SSE payload as a JSON object, or throws a {@link ModelError} quoting it. */
export function parseEventJson(data: string, label: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    throw new ModelError(`${label} sent a malformed stream event (invalid JSON): ${snippet(data)}`, 0, {
      cause: error,
    });
  }
  if (!isRecord(value)) {
    throw new ModelError(`${label} sent a malformed stream event (not a JSON object): ${snippet(data)}`);
  }
  return value;
}

/**
 * Extracts a human-readable message from an error response body: `{error:{message}}` (Google,
 * OpenAI, vLLM, Ollama), `[{error:{...}}]`, `{error:"..."}`, `{message}`, `{detail}`; else the
 * trimmed text. `undefined` for an empty body.
 */
export function errorMessageFromBody(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return snippet(trimmed);
  }
  return messageOf(Array.isArray(value) ? value[0] : value) ?? snippet(trimmed);
}

/** The `message` of an in-stream or body error object, with its status name when present. */
export function messageOf(value: unknown): string | undefined {
  if (typeof value === "string") return value || undefined;
  if (!isRecord(value)) return undefined;
  const error = value["error"];
  if (error !== undefined) return messageOf(error);
  const message = value["message"] ?? value["detail"];
  if (typeof message === "string" && message !== "") {
    const status = value["status"];
    return typeof status === "string" && status !== "" ? `${message} (${status})` : message;
  }
  if (message !== undefined) return snippet(JSON.stringify(message));
  return undefined;
}

/**
 * Merges header records case-insensitively (names lowercased), later records winning: a user's
 * `X-Goog-Api-Key` and the provider's `x-goog-api-key` are one header, not two joined by a comma.
 */
export function mergeHeaders(
  ...records: readonly (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const record of records)
    for (const [name, value] of Object.entries(record ?? {})) merged[name.toLowerCase()] = value;
  return merged;
}

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Shortens text for an error message. */
export function snippet(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

function describeEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.message !== "") return `${error.message}: ${cause.message}`;
  return error.message;
}
