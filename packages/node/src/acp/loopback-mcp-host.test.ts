import { request as httpRequest } from "node:http";
import type * as acp from "@agentclientprotocol/sdk";
import { networkInterfaces } from "node:os";
import { defineTool } from "@antigravity-ts/sdk";
import { ToolRunner } from "@antigravity-ts/sdk/connection";
import { mcpToolHandler, type McpMessageHandler } from "@antigravity-ts/sdk/acp";
import { afterEach, describe, expect, it } from "vitest";
import { loopbackMcpHost } from "./loopback-mcp-host.js";

// The MCP endpoint of an ACP session's client tools: a real exchange (initialize, tools/list,
// tools/call per MCP 2025-06-18) and what it refuses — a wrong, missing or another session's
// token, a token replayed after the session closed, a body over the limit (declared or streamed),
// a browser Origin, a foreign Host, other methods and paths, and any address but loopback.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const calls: unknown[] = [];
const runner = new ToolRunner([
  defineTool({
    name: "add",
    description: "Adds two numbers.",
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    call: (args: { a: number; b: number }) => {
      calls.push(args);
      return { sum: args.a + args.b };
    },
  }),
]);

async function serve(options: { maxBodyBytes?: number } = {}, handler?: McpMessageHandler) {
  const seen: unknown[] = [];
  const handle = handler ?? mcpToolHandler(runner, (call) => runner.run(call, context(call.id)));
  const served = await loopbackMcpHost(options).serve(async (message) => {
    seen.push(message);
    return handle(message);
  });
  closers.push(served.close);
  const server = served.server as acp.McpServerHttp & { type: "http" };
  expect(server.type).toBe("http");
  const authorization = server.headers.find((h) => h.name === "Authorization")?.value ?? "";
  return { ...served, url: server.url, authorization, seen };
}

function context(callId: string) {
  return {
    conversationId: "c",
    callId,
    signal: new AbortController().signal,
    sendTrigger: async () => {},
    state: new Map<string, unknown>(),
  };
}

/** A JSON-RPC answer as the tests read it. */
interface Answer {
  result: { tools: unknown[] };
  error: { code: number };
}

const json = async (response: Response): Promise<Answer> => (await response.json()) as Answer;

const post = (url: string, body: unknown, headers: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** A raw request (fetch cannot set Host or stream an undeclared body). */
function raw(
  url: string,
  options: { headers: Record<string, string>; chunks?: Buffer[]; method?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "POST", headers: options.headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

describe("loopbackMcpHost", () => {
  it("speaks MCP: initialize, a notification (202), tools/list, tools/call once, unknown tool and batch refused", async () => {
    const mcp = await serve();
    expect(mcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(mcp.authorization).toMatch(/^Bearer [\w-]{43}$/);
    const auth = { Authorization: mcp.authorization };
    const init = await post(
      mcp.url,
      { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {} } },
      auth,
    );
    expect(await init.json()).toMatchObject({
      id: 0,
      result: { protocolVersion: "2025-06-18", capabilities: { tools: {} } },
    });
    expect((await post(mcp.url, { jsonrpc: "2.0", method: "notifications/initialized" }, auth)).status).toBe(202);
    const list = await json(await post(mcp.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, auth));
    expect(list.result.tools).toEqual([
      {
        name: "add",
        description: "Adds two numbers.",
        inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      },
    ]);
    calls.length = 0;
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } };
    expect(await (await post(mcp.url, call, auth)).json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: '{"sum":5}' }], isError: false },
    });
    expect(calls).toEqual([{ a: 2, b: 3 }]);
    const unknown = { ...call, params: { name: "rm", arguments: {} } };
    expect((await json(await post(mcp.url, unknown, auth))).error.code).toBe(-32602);
    expect((await json(await post(mcp.url, [call], auth))).error.code).toBe(-32600);
    expect((await post(mcp.url, "{not json", auth)).status).toBe(400);
    expect(calls).toHaveLength(1);
  });

  it("refuses a missing, wrong or another session's token, and a token replayed after the session closed", async () => {
    const a = await serve();
    const b = await serve();
    expect(a.authorization).not.toBe(b.authorization);
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    expect((await post(a.url, ping, {})).status).toBe(401);
    expect((await post(a.url, ping, { Authorization: "Bearer wrong" })).status).toBe(401);
    expect((await post(a.url, ping, { Authorization: `${a.authorization}x` })).status).toBe(401);
    expect((await post(a.url, ping, { Authorization: b.authorization })).status).toBe(401);
    expect((await post(a.url, ping, { Authorization: a.authorization })).status).toBe(200);
    expect(a.seen).toHaveLength(1);
    await a.close();
    await expect(post(a.url, ping, { Authorization: a.authorization })).rejects.toThrow();
  });

  it("refuses a body over the limit, declared or streamed, without handling it", async () => {
    const mcp = await serve({ maxBodyBytes: 1024 });
    const headers = { Authorization: mcp.authorization, "Content-Type": "application/json" };
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(5000) } });
    expect((await post(mcp.url, huge, { Authorization: mcp.authorization })).status).toBe(413);
    // The server answers 413 and closes the connection; the client may see the answer or the reset first.
    const streamed = await raw(mcp.url, {
      headers: { ...headers, "Transfer-Encoding": "chunked" },
      chunks: Array.from({ length: 8 }, () => Buffer.alloc(512, 0x20)),
    }).then(
      (answer) => answer.status,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect([413, "ECONNRESET", "EPIPE"]).toContain(streamed);
    expect(mcp.seen).toEqual([]);
  });

  it("refuses a browser Origin, a foreign Host (DNS rebinding), other methods and paths", async () => {
    const mcp = await serve();
    const auth = { Authorization: mcp.authorization };
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    expect((await post(mcp.url, ping, { ...auth, Origin: "http://127.0.0.1:1" })).status).toBe(403);
    const foreign = await raw(mcp.url, {
      headers: { ...auth, Host: "evil.example:80", "Content-Type": "application/json" },
      chunks: [Buffer.from(JSON.stringify(ping))],
    });
    expect(foreign.status).toBe(403);
    expect((await fetch(mcp.url, { headers: auth })).status).toBe(405);
    expect((await post(mcp.url.replace("/mcp", "/other"), ping, auth)).status).toBe(404);
    expect((await post(mcp.url, ping, { ...auth, "Content-Type": "text/plain" })).status).toBe(415);
    expect(mcp.seen).toEqual([]);
  });

  it("listens on loopback only: not reachable on this machine's other addresses", async () => {
    const mcp = await serve();
    const port = new URL(mcp.url).port;
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address !== undefined && !address.internal && address.family === "IPv4");
    for (const address of others) {
      await expect(
        post(
          `http://${address?.address}:${port}/mcp`,
          { jsonrpc: "2.0", id: 1, method: "ping" },
          {
            Authorization: mcp.authorization,
          },
        ),
      ).rejects.toThrow();
    }
    expect(mcp.seen).toEqual([]);
  });
});
