/**
 * A server route that forwards a page's Interactions API calls to Google with the server's key
 * (issue 28 item 6, docs/hosted.md): the page runs `hostedAgent({ baseUrl: "<origin>/<prefix>/" })`
 * without a key; the route adds `x-goog-api-key`, and decides what a page may ask for — which
 * agents, whether client functions, whether an environment — as the gateway does for the
 * localharness wire. Routes and fields are those of `@google/genai` 3.x (see docs/hosted.md).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { RouteRefusal } from "@antigravity-ts/sdk/hosted";

/** The route's rules, loaded with the first request: importing `@antigravity-ts/node` does not load the hosted entry. */
type HostedModule = typeof import("@antigravity-ts/sdk/hosted");
let hostedModule: Promise<HostedModule> | undefined;
const hosted = (): Promise<HostedModule> => (hostedModule ??= import("@antigravity-ts/sdk/hosted"));

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

/**
 * The route. Mount it in any `node:http` server: `createServer((req, res) => route(req, res) || other(req, res))`.
 * Its rules are `createInteractionsProxy`'s (`@antigravity-ts/sdk/hosted`, the same route on
 * `fetch` for Workers and Deno): listed agents, function tools only, an environment only when
 * `environment` says so, only `CreateAgentInteraction` fields it knows, only `stream`,
 * `last_event_id`, `include_input` on a get, no DELETE, and no header of the page's upstream.
 *
 * Interaction ids are the key's: a page that knows another page's interaction id can read or
 * cancel it (Google's ids are long random strings, so only its own page learns it). Bind ids to
 * pages in `authorize` when pages must not share even that.
 */
export function createInteractionsRoute(options: InteractionsRouteOptions): InteractionsRoute {
  const upstream = (options.upstream ?? "https://generativelanguage.googleapis.com/").replace(/\/+$/, "");
  const prefix = (options.prefix ?? "").replace(/\/+$/, "");
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return (request, response) => {
    const url = new URL(request.url ?? "/", "http://route");
    if (prefix !== "" && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return false;
    void handle(request, response, url).catch((error: unknown) => {
      if (response.headersSent) return void response.destroy();
      if (isRefusal(error))
        return void response
          .writeHead(error.httpStatus, { "content-type": "application/json; charset=utf-8" })
          .end(error.body());
      const message = `the Interactions API cannot be reached: ${(error as Error)?.message ?? String(error)}`;
      response
        .writeHead(502, { "content-type": "application/json; charset=utf-8" })
        .end(JSON.stringify({ error: { code: 502, message, status: "UNAVAILABLE" } }));
    });
    return true;
  };

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const { RouteRefusal, routeCall, upstreamHeaders } = await hosted();
    if (options.authorize !== undefined && !(await options.authorize(request)))
      throw new RouteRefusal(401, "UNAUTHENTICATED", "the page is not authorised to use this route");
    const rules = {
      agents: options.agents,
      clientFunctions: options.clientFunctions,
      environment:
        options.environment === undefined
          ? undefined
          : (environment: unknown) => options.environment?.(environment, request) === true,
    };
    const call = await routeCall(
      request.method ?? "GET",
      url.pathname.slice(prefix.length),
      url.searchParams,
      () => readBody(request, maxBody, RouteRefusal),
      rules,
    );
    const abort = new AbortController();
    response.once("close", () => abort.abort());
    const answer = await doFetch(`${upstream}/${call.path}`, {
      method: call.method,
      headers: upstreamHeaders(options.apiKey, request.headers.accept, call.body !== undefined),
      ...(call.body === undefined ? {} : { body: call.body }),
      signal: abort.signal,
    });
    response.writeHead(answer.status, {
      "content-type": answer.headers.get("content-type") ?? "application/json",
      "cache-control": "no-store",
    });
    if (answer.body === null) return void response.end();
    Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream)
      .on("error", () => response.destroy())
      .pipe(response);
  }
}

function isRefusal(error: unknown): error is RouteRefusal {
  return (
    error instanceof Error &&
    typeof (error as Partial<RouteRefusal>).httpStatus === "number" &&
    typeof (error as Partial<RouteRefusal>).body === "function"
  );
}

async function readBody(request: IncomingMessage, max: number, Refusal: typeof RouteRefusal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > max) throw new Refusal(413, "INVALID_ARGUMENT", `request body larger than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
