import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, ErrorCode } from "@antigravity-ts/sdk";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";
import { createInteractionsRoute } from "@antigravity-ts/node";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The page never holds the key (issue 28 item 6): a page's hostedAgent, without a key, through
// createInteractionsRoute to the emulator standing in for Google; and a hostile page trying to
// send its own key, reach other paths, pick another agent, an environment, other tool types or
// fields the route does not pass on.

const SERVER_KEY = "server-key-0123456789";

let root = "";
let emulator: InteractionsEmulator;
let server: Server;
let origin = "";
const upstreamCalls: { url: string; headers: Record<string, string> }[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-route-"));
  const workspace = path.join(root, "ws");
  await mkdir(workspace);
  emulator = await startInteractionsEmulator({
    apiKey: SERVER_KEY,
    host: "127.0.0.1",
    port: 0,
    workspace,
    script: parseScript({ turns: [{ calls: [{ text: "Hello from behind the route." }] }] }),
  });
  const route = createInteractionsRoute({
    apiKey: SERVER_KEY,
    upstream: emulator.url,
    prefix: "/gemini",
    authorize: (request) => request.headers["x-page-session"] === "ok",
    maxBodyBytes: 4096,
    fetch: (input, init) => {
      upstreamCalls.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) } });
      return fetch(input, init);
    },
  });
  server = createServer((req, res) => {
    if (!route(req, res)) res.writeHead(404).end("not the route");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

const page = { "x-page-session": "ok" };

async function post(
  pathname: string,
  body: unknown,
  headers: Record<string, string> = page,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${origin}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe("createInteractionsRoute", () => {
  it("runs a page's turn without a key: the route adds the server's, and only it", async () => {
    await using agent = await Agent.builder()
      .connection(
        hostedAgent({
          baseUrl: `${origin}/gemini/`,
          headers: { ...page, "x-goog-api-key": "the-page-own-key", cookie: "secret=1" },
        }),
      )
      .allowAll()
      .build()
      .start();
    expect((await agent.chatToCompletion("hi")).text).toBe("Hello from behind the route.");
    expect(upstreamCalls.length).toBeGreaterThan(0);
    for (const call of upstreamCalls) {
      expect(call.headers["x-goog-api-key"]).toBe(SERVER_KEY);
      expect(Object.keys(call.headers).sort()).toEqual(expect.arrayContaining(["accept", "x-goog-api-key"]));
      expect(call.headers["cookie"]).toBeUndefined();
      expect(call.headers["x-page-session"]).toBeUndefined();
    }
  });

  it("refuses a page the authorize hook refuses, with 401 (a typed PermissionDenied in the SDK)", async () => {
    expect(
      (await post("/gemini/v1beta/interactions", { agent: "antigravity-preview-09-2026", input: "hi" }, {})).status,
    ).toBe(401);
    await using agent = await Agent.builder()
      .connection(hostedAgent({ baseUrl: `${origin}/gemini/` }))
      .allowAll()
      .build()
      .start();
    await expect(agent.chatToCompletion("hi")).rejects.toMatchObject({ code: ErrorCode.PermissionDenied });
  });

  it("decides what a page may ask for: agent, tool types, environment, fields, size", async () => {
    const before = upstreamCalls.length;
    expect(
      (await post("/gemini/v1beta/interactions", { agent: "deep-research-pro-preview-12-2025", input: "hi" })).status,
    ).toBe(403);
    expect((await post("/gemini/v1beta/interactions", { model: "gemini-3.7-flash", input: "hi" })).status).toBe(400);
    expect(
      (
        await post("/gemini/v1beta/interactions", {
          agent: "antigravity-preview-09-2026",
          input: "hi",
          tools: [{ type: "mcp_server", url: "http://attacker" }],
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await post("/gemini/v1beta/interactions", {
          agent: "antigravity-preview-09-2026",
          input: "hi",
          environment: { type: "remote", env: { A: "1" } },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await post("/gemini/v1beta/interactions", {
          agent: "antigravity-preview-09-2026",
          input: "hi",
          webhook_config: { uris: ["http://attacker"] },
        })
      ).status,
    ).toBe(400);
    expect(
      (await post("/gemini/v1beta/interactions", { agent: "antigravity-preview-09-2026", input: "x".repeat(10_000) }))
        .status,
    ).toBe(413);
    expect((await post("/gemini/v1beta/interactions", "not json")).status).toBe(400);
    expect(upstreamCalls.length).toBe(before); // none of them reached Google
  });

  it("serves only the interactions routes under its prefix: other paths, traversal and DELETE are refused", async () => {
    const before = upstreamCalls.length;
    expect((await fetch(`${origin}/elsewhere`)).status).toBe(404);
    expect(await (await fetch(`${origin}/elsewhere`)).text()).toBe("not the route");
    expect((await fetch(`${origin}/gemini/v1beta/models`, { headers: page })).status).toBe(404);
    expect((await fetch(`${origin}/gemini/v1beta/interactions/..%2F..%2Fmodels`, { headers: page })).status).toBe(404);
    expect(
      (await fetch(`${origin}/gemini/v1beta/interactions/abc/cancel/more`, { method: "POST", headers: page })).status,
    ).toBe(404);
    expect((await fetch(`${origin}/gemini/v1beta/interactions/abc`, { method: "DELETE", headers: page })).status).toBe(
      405,
    );
    expect((await fetch(`${origin}/gemini/../v1beta/interactions`, { headers: page })).status).toBe(404);
    expect(upstreamCalls.length).toBe(before);
  });

  it("passes only stream, last_event_id and include_input of a get's query on", async () => {
    const before = upstreamCalls.length;
    const response = await fetch(
      `${origin}/gemini/v1beta/interactions/interaction-missing?stream=false&key=page-key&alt=sse`,
      { headers: page },
    );
    expect(response.status).toBe(404); // the emulator does not know it
    const forwarded = upstreamCalls.slice(before).map((call) => call.url);
    expect(forwarded).toEqual([`${emulator.url}v1beta/interactions/interaction-missing?stream=false`]);
  });
});
