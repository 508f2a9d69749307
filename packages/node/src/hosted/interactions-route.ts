/**
 * A server route that forwards a page's Interactions API calls to Google with the server's key
 * (issue 28 item 6, docs/hosted.md): the page runs `hostedAgent({ baseUrl: "<origin>/<prefix>/" })`
 * without a key; the route adds `x-goog-api-key`, and decides what a page may ask for — which
 * agents, whether client functions, whether an environment — as the gateway does for the
 * localharness wire. Routes and fields are those of `@google/genai` 3.x (see docs/hosted.md).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** Options of {@link createInteractionsRoute}. */
export interface InteractionsRouteOptions {
  /** The Gemini API key the route adds; the page never sees it. */
  apiKey: string;
  /** Where calls go; default `https://generativelanguage.googleapis.com/`. */
  upstream?: string | undefined;
  /** The path the route owns, e.g. `/gemini` (the page's `baseUrl` is `<origin>/gemini/`); default `` (the root). */
  prefix?: string | undefined;
  /** Agents a page may create interactions with (`CreateAgentInteraction.agent`); default the two Antigravity previews. */
  agents?: readonly string[] | undefined;
  /** Whether a page may declare client functions (`tools` of `type: "function"`); default true. Other tool types are always refused. */
  clientFunctions?: boolean | undefined;
  /** Decides a page's `environment` (`Environment_2` or an id); default: refused. */
  environment?: ((environment: unknown, request: IncomingMessage) => boolean) | undefined;
  /** The page's own authorisation (a session cookie, a token): false answers 401. Default: every request passes. */
  authorize?: ((request: IncomingMessage) => boolean | Promise<boolean>) | undefined;
  /** Largest request body; default 1 MiB. */
  maxBodyBytes?: number | undefined;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch | undefined;
}

/** Answers the request when it is the route's and returns true; returns false (touching nothing) for another path. */
export type InteractionsRoute = (request: IncomingMessage, response: ServerResponse) => boolean;

const DEFAULT_AGENTS = ["antigravity-preview-09-2026", "antigravity-preview-05-2026"];
/** Fields of `CreateAgentInteraction` a page may send; any other is refused (e.g. `webhook_config`, `labels`, `model`). */
const CREATE_FIELDS = new Set(["agent", "agent_config", "background", "input", "previous_interaction_id", "stream", "tools", "system_instruction", "environment", "store", "response_format"]);
const VERSION = /^v\d+(?:alpha|beta)?\d*$/;
const ID = /^[A-Za-z0-9_.:-]{1,256}$/;

class RouteError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The route. Mount it in any `node:http` server: `createServer((req, res) => route(req, res) || other(req, res))`.
 *
 * Interaction ids are the key's: a page that knows another page's interaction id can read or
 * cancel it (Google's ids are long random strings, so only its own page learns it). Bind ids to
 * pages in `authorize` when pages must not share even that.
 */
export function createInteractionsRoute(options: InteractionsRouteOptions): InteractionsRoute {
  const upstream = (options.upstream ?? "https://generativelanguage.googleapis.com/").replace(/\/+$/, "");
  const prefix = (options.prefix ?? "").replace(/\/+$/, "");
  const agents = new Set(options.agents ?? DEFAULT_AGENTS);
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return (request, response) => {
    const url = new URL(request.url ?? "/", "http://route");
    if (prefix !== "" && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return false;
    void handle(request, response, url.pathname.slice(prefix.length), url.searchParams).catch((error: unknown) => {
      const routeError = error instanceof RouteError ? error : new RouteError(502, "UNAVAILABLE", `the Interactions API cannot be reached: ${(error as Error)?.message ?? String(error)}`);
      if (response.headersSent) return void response.destroy();
      const text = JSON.stringify({ error: { code: routeError.httpStatus, message: routeError.message, status: routeError.status } });
      response.writeHead(routeError.httpStatus, { "content-type": "application/json; charset=utf-8" }).end(text);
    });
    return true;
  };

  async function handle(request: IncomingMessage, response: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const parts = path.split("/").filter((part) => part !== "");
    const [version, collection, id, action] = parts;
    if (version === undefined || !VERSION.test(version) || collection !== "interactions" || parts.length > 4 || (id !== undefined && !ID.test(id)) || (action !== undefined && action !== "cancel")) {
      throw new RouteError(404, "NOT_FOUND", `no Interactions API route ${JSON.stringify(path)}`);
    }
    if (options.authorize !== undefined && !(await options.authorize(request))) throw new RouteError(401, "UNAUTHENTICATED", "the page is not authorised to use this route");
    let target: string;
    let body: string | undefined;
    if (id === undefined) {
      if (request.method !== "POST") throw new RouteError(405, "METHOD_NOT_ALLOWED", `${request.method} /interactions: only POST (create)`);
      body = JSON.stringify(checkCreate(parseBody(await readBody(request, maxBody)), request));
      target = `${upstream}/${version}/interactions`;
    } else if (action === "cancel") {
      if (request.method !== "POST") throw new RouteError(405, "METHOD_NOT_ALLOWED", `${request.method} cancel: only POST`);
      target = `${upstream}/${version}/interactions/${encodeURIComponent(id)}/cancel`;
    } else {
      if (request.method !== "GET") throw new RouteError(405, "METHOD_NOT_ALLOWED", `${request.method} /interactions/{id}: only GET`);
      // GetInteractionByIdRequest's query: stream, last_event_id, include_input; nothing else is passed on.
      const passed = new URLSearchParams();
      for (const key of ["stream", "last_event_id", "include_input"]) {
        const value = query.get(key);
        if (value !== null) passed.set(key, value);
      }
      target = `${upstream}/${version}/interactions/${encodeURIComponent(id)}${passed.size > 0 ? `?${passed}` : ""}`;
    }
    // Only these headers go on: never the page's cookies, authorisation or a key of its own.
    const headers: Record<string, string> = { "x-goog-api-key": options.apiKey, accept: request.headers.accept === "text/event-stream" ? "text/event-stream" : "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const abort = new AbortController();
    response.once("close", () => abort.abort());
    const answer = await doFetch(target, { method: request.method ?? "GET", headers, ...(body === undefined ? {} : { body }), signal: abort.signal });
    response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json", "cache-control": "no-store" });
    if (answer.body === null) return void response.end();
    Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream)
      .on("error", () => response.destroy())
      .pipe(response);
  }

  function checkCreate(body: Record<string, unknown>, request: IncomingMessage): Record<string, unknown> {
    for (const key of Object.keys(body)) if (!CREATE_FIELDS.has(key)) throw new RouteError(400, "INVALID_ARGUMENT", `this route does not pass ${JSON.stringify(key)} on`);
    if (typeof body["agent"] !== "string" || !agents.has(body["agent"])) throw new RouteError(403, "PERMISSION_DENIED", `agent ${JSON.stringify(body["agent"])} is not allowed here`);
    const config = body["agent_config"];
    if (config !== undefined && (typeof config !== "object" || config === null || (config as Record<string, unknown>)["type"] !== "antigravity")) {
      throw new RouteError(400, "INVALID_ARGUMENT", `agent_config must be an AntigravityAgentConfig ({ type: "antigravity" })`);
    }
    const tools = body["tools"];
    if (tools !== undefined) {
      if (!Array.isArray(tools)) throw new RouteError(400, "INVALID_ARGUMENT", "tools must be an array");
      for (const tool of tools as unknown[]) {
        const type = (tool as Record<string, unknown> | null)?.["type"];
        if (type !== "function" || options.clientFunctions === false) throw new RouteError(403, "PERMISSION_DENIED", `tools of type ${JSON.stringify(type)} are not allowed here`);
      }
    }
    if (body["environment"] !== undefined && options.environment?.(body["environment"], request) !== true)
      throw new RouteError(403, "PERMISSION_DENIED", "this route does not let a page choose an environment");
    return body;
  }
}

async function readBody(request: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > max) throw new RouteError(413, "INVALID_ARGUMENT", `request body larger than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseBody(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RouteError(400, "INVALID_ARGUMENT", "the body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new RouteError(400, "INVALID_ARGUMENT", "the body is not a JSON object");
  return value as Record<string, unknown>;
}
