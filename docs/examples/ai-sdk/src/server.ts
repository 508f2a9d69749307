// A Node server for the page: `GET /` serves the page, `POST /api/chat` the route.
// Run: ANTIGRAVITY_HARNESS_URL=ws://127.0.0.1:8000/ ANTIGRAVITY_API_KEY=… CONTINUATION_SECRET=… \
//   node --import tsx src/server.ts   (with `antigravity-harness --listen 127.0.0.1:8000` running)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { Agent, WebSocketTransport, allowAll, defineTool, deferToUser } from "@antigravity-ts/sdk";
import { PAGE } from "./page-html.js";
import { chatRoute } from "./route.js";

/** Where the agent runs and who signs its continuations. */
export interface ChatServerOptions {
  harnessUrl: string;
  apiKey: string;
  continuationSecret: string;
  /** The page's script (the bundle of page.tsx). */
  pageScript: string;
  port?: number;
}

/** A tool the agent runs in this server: the page shows its card like a harness tool's. */
const getWeather = defineTool({
  name: "get_weather",
  description: "The weather of a city",
  call: ({ city }: { city: string }) => ({ city, sky: "sunny", celsius: 21 }),
});

/** Starts the server; resolves with its URL. */
export async function startChatServer(options: ChatServerOptions): Promise<{ url: string; server: Server }> {
  const route = chatRoute(() =>
    Agent.builder()
      .transport(new WebSocketTransport({ url: options.harnessUrl, apiKey: options.apiKey }))
      .tool(getWeather)
      // run_command waits for the page's approval; everything else runs.
      .policies(deferToUser("run_command"), allowAll())
      .continuationSecret(options.continuationSecret)
      .build(),
  );
  const server = createServer((req, res) => void handle(req, res, route, options.pageScript));
  await new Promise<void>((resolve) => server.listen(options.port ?? 3000, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  route: (request: Request) => Promise<Response>,
  pageScript: string,
): Promise<void> {
  if (req.method === "GET" && req.url === "/")
    return void res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
  if (req.method === "GET" && req.url === "/page.js")
    return void res.writeHead(200, { "content-type": "text/javascript" }).end(pageScript);
  if (req.method !== "POST" || req.url !== "/api/chat") return void res.writeHead(404).end();
  let body = "";
  for await (const chunk of req) body += chunk;
  const response = await route(
    new Request(`http://${req.headers.host}${req.url}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  // When the page stops (useChat's stop() aborts the fetch), the response closes early: pipeline
  // cancels the body, which cancels the turn.
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), res).catch(
    () => undefined,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { build } = await import("esbuild");
  const page = await build({
    entryPoints: [fileURLToPath(new URL("./page.tsx", import.meta.url))],
    bundle: true,
    format: "esm",
    jsx: "automatic",
    write: false,
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const { url } = await startChatServer({
    harnessUrl: process.env["ANTIGRAVITY_HARNESS_URL"] ?? "ws://127.0.0.1:8000/",
    apiKey: process.env["ANTIGRAVITY_API_KEY"] ?? "",
    continuationSecret: process.env["CONTINUATION_SECRET"] ?? "",
    pageScript: page.outputFiles[0]?.text ?? "",
    port: Number(process.env["PORT"] ?? 3000),
  });
  console.log(`open ${url}`);
}
