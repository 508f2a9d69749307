/**
 * The key-holding route of the hosted agent, on `fetch`'s `Request` and `Response` (a Worker, Deno,
 * Bun, any fetch server; `createInteractionsRoute` of `@antigravity-ts/node` is the same rules on
 * `node:http`). A page runs `hostedAgent({ baseUrl: "<origin>/<prefix>/" })` without a key; the
 * route adds `x-goog-api-key` and decides what a page may ask for. Routes and fields are those of
 * `@google/genai` 3.x (docs/hosted.md).
 */

/** What a page may ask for: the rules both routes apply. */
export interface InteractionsRouteRules {
  /** Agents a page may create interactions with (`CreateAgentInteraction.agent`); default the two Antigravity previews. */
  agents?: readonly string[] | undefined;
  /** Whether a page may declare client functions (`tools` of `type: "function"`); default true. Other tool types are always refused. */
  clientFunctions?: boolean | undefined;
  /** Decides a page's `environment` (`Environment_2` or an id); default: refused. */
  environment?: ((environment: unknown) => boolean) | undefined;
}

/** A call the route forwards: where, how, with which body. */
export interface RoutedCall {
  /** Path and query after the upstream base, e.g. `v1beta/interactions/ID?stream=true`. */
  path: string;
  method: "GET" | "POST";
  /** The checked JSON body of a create. */
  body?: string;
}

/** A refusal: the HTTP status and the API's error body. */
export class RouteRefusal extends Error {
  constructor(
    readonly httpStatus: number,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }

  /** `{ error: { code, message, status } }`, as the API answers. */
  body(): string {
    return JSON.stringify({ error: { code: this.httpStatus, message: this.message, status: this.status } });
  }
}

const DEFAULT_AGENTS = ["antigravity-preview-09-2026", "antigravity-preview-05-2026"];
/** Fields of `CreateAgentInteraction` a page may send; any other is refused (e.g. `webhook_config`, `labels`, `model`). */
const CREATE_FIELDS = new Set([
  "agent",
  "agent_config",
  "background",
  "input",
  "previous_interaction_id",
  "stream",
  "tools",
  "system_instruction",
  "environment",
  "store",
  "response_format",
]);
const VERSION = /^v\d+(?:alpha|beta)?\d*$/;
const ID = /^[A-Za-z0-9_.:-]{1,256}$/;

/**
 * Which upstream call a page's request is, or a {@link RouteRefusal}: `path` is the request's path
 * after the route's prefix, `readBody` reads its body (called for a create only).
 */
export async function routeCall(
  method: string,
  path: string,
  query: URLSearchParams,
  readBody: () => Promise<string>,
  rules: InteractionsRouteRules,
): Promise<RoutedCall> {
  const parts = path.split("/").filter((part) => part !== "");
  const [version, collection, id, action] = parts;
  if (
    version === undefined ||
    !VERSION.test(version) ||
    collection !== "interactions" ||
    parts.length > 4 ||
    (id !== undefined && !ID.test(id)) ||
    (action !== undefined && action !== "cancel")
  ) {
    throw new RouteRefusal(404, "NOT_FOUND", `no Interactions API route ${JSON.stringify(path)}`);
  }
  if (id === undefined) {
    if (method !== "POST")
      throw new RouteRefusal(405, "METHOD_NOT_ALLOWED", `${method} /interactions: only POST (create)`);
    return {
      path: `${version}/interactions`,
      method: "POST",
      body: JSON.stringify(checkCreate(parseBody(await readBody()), rules)),
    };
  }
  if (action === "cancel") {
    if (method !== "POST") throw new RouteRefusal(405, "METHOD_NOT_ALLOWED", `${method} cancel: only POST`);
    return { path: `${version}/interactions/${encodeURIComponent(id)}/cancel`, method: "POST" };
  }
  if (method !== "GET") throw new RouteRefusal(405, "METHOD_NOT_ALLOWED", `${method} /interactions/{id}: only GET`);
  // GetInteractionByIdRequest's query: stream, last_event_id, include_input; nothing else is passed on.
  const passed = new URLSearchParams();
  for (const key of ["stream", "last_event_id", "include_input"]) {
    const value = query.get(key);
    if (value !== null) passed.set(key, value);
  }
  return {
    path: `${version}/interactions/${encodeURIComponent(id)}${[...passed.keys()].length > 0 ? `?${passed}` : ""}`,
    method: "GET",
  };
}

/** The upstream request's headers: the key, and nothing of the page's but whether it wants a stream. */
export function upstreamHeaders(
  apiKey: string,
  accept: string | null | undefined,
  hasBody: boolean,
): Record<string, string> {
  return {
    "x-goog-api-key": apiKey,
    accept: accept === "text/event-stream" ? "text/event-stream" : "application/json",
    ...(hasBody ? { "content-type": "application/json" } : {}),
  };
}

function checkCreate(body: Record<string, unknown>, rules: InteractionsRouteRules): Record<string, unknown> {
  for (const key of Object.keys(body))
    if (!CREATE_FIELDS.has(key))
      throw new RouteRefusal(400, "INVALID_ARGUMENT", `this route does not pass ${JSON.stringify(key)} on`);
  const agents = new Set(rules.agents ?? DEFAULT_AGENTS);
  if (typeof body["agent"] !== "string" || !agents.has(body["agent"]))
    throw new RouteRefusal(403, "PERMISSION_DENIED", `agent ${JSON.stringify(body["agent"])} is not allowed here`);
  const config = body["agent_config"];
  if (
    config !== undefined &&
    (typeof config !== "object" || config === null || (config as Record<string, unknown>)["type"] !== "antigravity")
  ) {
    throw new RouteRefusal(
      400,
      "INVALID_ARGUMENT",
      `agent_config must be an AntigravityAgentConfig ({ type: "antigravity" })`,
    );
  }
  const tools = body["tools"];
  if (tools !== undefined) {
    if (!Array.isArray(tools)) throw new RouteRefusal(400, "INVALID_ARGUMENT", "tools must be an array");
    for (const tool of tools as unknown[]) {
      const type = (tool as Record<string, unknown> | null)?.["type"];
      if (type !== "function" || rules.clientFunctions === false)
        throw new RouteRefusal(403, "PERMISSION_DENIED", `tools of type ${JSON.stringify(type)} are not allowed here`);
    }
  }
  if (body["environment"] !== undefined && rules.environment?.(body["environment"]) !== true)
    throw new RouteRefusal(403, "PERMISSION_DENIED", "this route does not let a page choose an environment");
  return body;
}

function parseBody(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RouteRefusal(400, "INVALID_ARGUMENT", "the body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new RouteRefusal(400, "INVALID_ARGUMENT", "the body is not a JSON object");
  return value as Record<string, unknown>;
}

/** Options of {@link createInteractionsProxy}. */
export interface InteractionsProxyOptions extends InteractionsRouteRules {
  /** The Gemini API key the route adds; the page never sees it. */
  apiKey: string;
  /** Where calls go; default `https://generativelanguage.googleapis.com/`. */
  upstream?: string | undefined;
  /** The path the route owns, e.g. `/gemini`; default the root. */
  prefix?: string | undefined;
  /** The page's own authorisation: false answers 401. Default: every request passes. */
  authorize?: ((request: Request) => boolean | Promise<boolean>) | undefined;
  /** Largest request body; default 1 MiB. */
  maxBodyBytes?: number | undefined;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch | undefined;
}

/**
 * The route as a `fetch` handler: the `Response` for a request under `prefix`, `undefined` for any
 * other (serve it yourself).
 *
 * @example
 * const proxy = createInteractionsProxy({ apiKey: env.GEMINI_API_KEY, prefix: "/gemini" });
 * export default { fetch: async (request) => (await proxy(request)) ?? new Response("not found", { status: 404 }) };
 */
export function createInteractionsProxy(
  options: InteractionsProxyOptions,
): (request: Request) => Promise<Response | undefined> {
  const upstream = (options.upstream ?? "https://generativelanguage.googleapis.com/").replace(/\/+$/, "");
  const prefix = (options.prefix ?? "").replace(/\/+$/, "");
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async (request) => {
    const url = new URL(request.url);
    if (prefix !== "" && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return undefined;
    try {
      if (options.authorize !== undefined && !(await options.authorize(request)))
        throw new RouteRefusal(401, "UNAUTHENTICATED", "the page is not authorised to use this route");
      const call = await routeCall(
        request.method,
        url.pathname.slice(prefix.length),
        url.searchParams,
        () => readLimited(request, maxBody),
        options,
      );
      const answer = await doFetch(`${upstream}/${call.path}`, {
        method: call.method,
        headers: upstreamHeaders(options.apiKey, request.headers.get("accept"), call.body !== undefined),
        ...(call.body === undefined ? {} : { body: call.body }),
        signal: request.signal,
      });
      return new Response(answer.body, {
        status: answer.status,
        headers: {
          "content-type": answer.headers.get("content-type") ?? "application/json",
          "cache-control": "no-store",
        },
      });
    } catch (error) {
      const refusal =
        error instanceof RouteRefusal
          ? error
          : new RouteRefusal(
              502,
              "UNAVAILABLE",
              `the Interactions API cannot be reached: ${(error as Error)?.message ?? String(error)}`,
            );
      return new Response(refusal.body(), {
        status: refusal.httpStatus,
        headers: { "content-type": "application/json; charset=utf-8" },
      });
    }
  };
}

async function readLimited(request: Request, max: number): Promise<string> {
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new RouteRefusal(413, "INVALID_ARGUMENT", `request body larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}
