import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CLIENT_TOOLS_SERVER_NAME, type AcpToolHost, type McpMessageHandler } from "@antigravity-ts/sdk/acp";

/** Options of {@link loopbackMcpHost}. */
export interface LoopbackMcpHostOptions {
  /** Largest request body accepted, in bytes (a bigger one is answered 413 and the connection closed). Default 4 MiB. */
  maxBodyBytes?: number;
}

const LOOPBACK = new Set(["127.0.0.1", "::ffff:127.0.0.1"]);

/**
 * Serves an ACP session's client tools as an MCP server over HTTP on loopback (MCP 2025-06-18
 * "Streamable HTTP": one endpoint, each JSON-RPC message POSTed, a request answered with one
 * `application/json` response, a notification with 202; no server-sent stream, so GET is 405).
 * One server per session, on 127.0.0.1 and a port of the system's choosing, with a random
 * 256-bit bearer token the agent gets in the `McpServerHttp` entry's `headers` (ACP
 * `HttpHeader { name, value }`). Refused: a peer that is not loopback, a `Host` that is not this
 * server (DNS rebinding), any `Origin` (a browser page), a missing or wrong token (401, compared
 * in constant time), a body over `maxBodyBytes` (413), a non-JSON body (400). The server and
 * its token end with the session.
 */
export function loopbackMcpHost(options: LoopbackMcpHostOptions = {}): AcpToolHost {
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  return {
    transport: "http",
    async serve(handle) {
      const token = Buffer.from(randomBytes(32).toString("base64url"));
      let port = 0;
      const server = createServer((request, response) => {
        void respond(request, response, { token, port: () => port, maxBodyBytes, handle });
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen({ host: "127.0.0.1", port: 0 }, () => {
          server.off("error", reject);
          resolve();
        });
      });
      port = (server.address() as AddressInfo).port;
      return {
        server: {
          type: "http",
          name: CLIENT_TOOLS_SERVER_NAME,
          url: `http://127.0.0.1:${port}/mcp`,
          headers: [{ name: "Authorization", value: `Bearer ${token.toString()}` }],
        },
        close: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      };
    },
  };
}

async function respond(
  request: IncomingMessage,
  response: ServerResponse,
  server: { token: Buffer; port: () => number; maxBodyBytes: number; handle: McpMessageHandler },
): Promise<void> {
  const refuse = (status: number, message: string, headers: Record<string, string> = {}): void => {
    response.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", Connection: "close", ...headers });
    response.end(message);
    request.destroy();
  };
  if (!LOOPBACK.has(request.socket.remoteAddress ?? "")) return refuse(403, "loopback only");
  const host = request.headers.host;
  if (host !== `127.0.0.1:${server.port()}` && host !== `localhost:${server.port()}`)
    return refuse(403, "wrong Host (DNS rebinding guard)");
  if (request.headers.origin !== undefined) return refuse(403, "no browser origin may call this server");
  if (!authorized(request.headers.authorization, server.token)) return refuse(401, "missing or wrong bearer token");
  if ((request.url ?? "").split("?")[0] !== "/mcp") return refuse(404, "not found");
  if (request.method !== "POST") return refuse(405, "POST only (no server-sent stream)", { Allow: "POST" });
  if (!/^application\/json\b/i.test(request.headers["content-type"] ?? ""))
    return refuse(415, "the body must be application/json");
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > server.maxBodyBytes) return refuse(413, `the body is over ${server.maxBodyBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > server.maxBodyBytes) return refuse(413, `the body is over ${server.maxBodyBytes} bytes`);
      chunks.push(chunk);
    }
  } catch {
    return; // the client went away
  }
  let message: unknown;
  try {
    message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    response.writeHead(400, { "Content-Type": "application/json" });
    response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }));
    return;
  }
  const answer = await server.handle(message).catch((error: unknown) => ({
    jsonrpc: "2.0" as const,
    id: null,
    error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
  }));
  if (answer === undefined) {
    response.writeHead(202).end();
    return;
  }
  response.writeHead(200, { "Content-Type": "application/json" });
  response.end(JSON.stringify(answer));
}

function authorized(header: string | undefined, token: Buffer): boolean {
  const match = /^Bearer (\S+)$/.exec(header ?? "");
  if (match === null) return false;
  const given = Buffer.from(match[1] ?? "");
  return given.length === token.length && timingSafeEqual(given, token);
}
