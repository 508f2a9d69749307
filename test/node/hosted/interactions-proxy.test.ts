import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent } from "@antigravity-ts/sdk";
import { createInteractionsProxy, hostedAgent } from "@antigravity-ts/sdk/hosted";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The key-holding route on fetch's Request/Response (a Worker's, Deno's): a page's hostedAgent
// without a key whose fetch is the Worker's handler, forwarded to the emulator with the server's
// key; the refusals of the Node route, on the same rules.

const SERVER_KEY = "proxy-server-key-0123456789";
let root = "";
let emulator: InteractionsEmulator;
let proxy: (request: Request) => Promise<Response | undefined>;
const upstreamKeys: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-proxy-"));
  await mkdir(path.join(root, "ws"));
  emulator = await startInteractionsEmulator({
    apiKey: SERVER_KEY,
    host: "127.0.0.1",
    port: 0,
    workspace: path.join(root, "ws"),
    script: parseScript({ turns: [{ calls: [{ text: "Hello from behind the Worker." }] }] }),
  });
  proxy = createInteractionsProxy({
    apiKey: SERVER_KEY,
    upstream: emulator.url,
    prefix: "/gemini",
    authorize: (request) => request.headers.get("x-page-session") === "ok",
    maxBodyBytes: 4096,
    fetch: (input, init) => {
      upstreamKeys.push((init?.headers as Record<string, string>)["x-goog-api-key"] ?? "");
      return fetch(input, init);
    },
  });
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

const worker = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
  (await proxy(new Request(input, init))) ?? new Response("not the route", { status: 404 });
const post = async (body: unknown, headers: Record<string, string> = { "x-page-session": "ok" }): Promise<number> =>
  (
    await worker("http://page.test/gemini/v1beta/interactions", {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    })
  ).status;

describe("createInteractionsProxy", () => {
  it("runs a page's turn through the fetch handler with the server's key only", async () => {
    await using agent = await Agent.builder()
      .connection(
        hostedAgent({
          baseUrl: "http://page.test/gemini/",
          headers: { "x-page-session": "ok", "x-goog-api-key": "the-page-own-key" },
          fetch: worker,
        }),
      )
      .allowAll()
      .build()
      .start();
    expect((await agent.chatToCompletion("hi")).text).toBe("Hello from behind the Worker.");
    expect(upstreamKeys.length).toBeGreaterThan(0);
    expect(new Set(upstreamKeys)).toEqual(new Set([SERVER_KEY]));
  });

  it("refuses what a page may not ask for before anything reaches upstream", async () => {
    const before = upstreamKeys.length;
    expect(await post({ agent: "antigravity-preview-09-2026", input: "hi" }, {})).toBe(401);
    expect(await post({ agent: "deep-research-pro-preview-12-2025", input: "hi" })).toBe(403);
    expect(
      await post({
        agent: "antigravity-preview-09-2026",
        input: "hi",
        tools: [{ type: "mcp_server", url: "http://attacker" }],
      }),
    ).toBe(403);
    expect(await post({ agent: "antigravity-preview-09-2026", input: "hi", environment: "env-1" })).toBe(403);
    expect(await post({ agent: "antigravity-preview-09-2026", input: "hi", webhook_config: {} })).toBe(400);
    expect(await post({ agent: "antigravity-preview-09-2026", input: "x".repeat(10_000) })).toBe(413);
    expect(
      (
        await worker("http://page.test/gemini/v1beta/interactions/abc", {
          method: "DELETE",
          headers: { "x-page-session": "ok" },
        })
      ).status,
    ).toBe(405);
    expect(
      (await worker("http://page.test/gemini/v1beta/models", { headers: { "x-page-session": "ok" } })).status,
    ).toBe(404);
    expect(await proxy(new Request("http://page.test/elsewhere"))).toBeUndefined();
    expect(upstreamKeys.length).toBe(before);
  });
});
