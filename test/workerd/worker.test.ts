import { Miniflare } from "miniflare";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "./bundle-worker.js";
import { startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// docs/examples/worker, bundled from the built SDK with the workerd conditions, running in real
// workerd (miniflare) against the built reference harness in a real child process. The Worker
// opens its WebSocket with fetchUpgradeWebSocket, so the key travels as a header.

interface TurnJson {
  conversationId: string;
  text: string;
  textBlocks: string[];
  thinking: string;
  usage: { promptTokenCount: number; candidatesTokenCount: number; totalTokenCount: number };
  toolCalls: string[];
}

interface ServerSentEvent {
  event: string;
  data: unknown;
}

function parseEventStream(body: string): ServerSentEvent[] {
  return body
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "null";
      return { event, data: JSON.parse(data) as unknown };
    });
}

let script: string;
let harness: ListeningHarness;
const workers: Miniflare[] = [];

/** A workerd instance running the example Worker with the given bindings. */
async function startWorker(bindings: Record<string, string>): Promise<Miniflare> {
  // No compatibility flags: in particular no nodejs_compat, the SDK must not need it.
  const mf = new Miniflare({ modules: true, script, compatibilityDate: "2026-04-01", bindings });
  workers.push(mf);
  await mf.ready;
  return mf;
}

beforeAll(async () => {
  script = await bundleWorker("docs/examples/worker/src/index.ts");
  harness = await startListeningHarness({ build: "dist" });
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((mf) => mf.dispose()));
});

afterAll(async () => {
  await harness?.stop();
});

describe("the example Worker in workerd", () => {
  it("bundles without ws or any Node builtin", () => {
    expect(script).not.toMatch(/^\s*import\b[^;]*?["'][^"'./]/m); // everything inlined: no run-time import at all
    expect(script).not.toContain("node:");
    expect(script).toContain("Upgrade");
  });

  it("runs a turn per request and answers JSON, with a client tool that ran inside workerd", async () => {
    const mf = await startWorker({ HARNESS_URL: harness.url, HARNESS_API_KEY: harness.apiKey });
    const response = await mf.dispatchFetch("http://worker.local/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: "Hello from a Worker" }),
    });
    const body = (await response.json()) as TurnJson;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.thinking).not.toBe("");
    // The demo looks at the workspace with find_file (a default built-in), then calls the client tool.
    expect(body.toolCalls).toEqual(["find_file", "worker_info"]);
    // The scripted model quotes the tool's answer; workerd's navigator.userAgent is "Cloudflare-Workers".
    expect(body.text).toContain("Cloudflare-Workers");
    // Two model calls, two blocks: their text is not glued together in textBlocks.
    expect(body.textBlocks.length).toBe(2);
    expect(body.textBlocks.join("")).toBe(body.text);
    expect(body.textBlocks[1]).toContain("Cloudflare-Workers");
    expect(body.usage.promptTokenCount).toBeGreaterThan(0);
    expect(body.usage.totalTokenCount).toBeGreaterThanOrEqual(
      body.usage.promptTokenCount + body.usage.candidatesTokenCount,
    );
  });

  it("serves each request with its own session", async () => {
    const mf = await startWorker({ HARNESS_URL: harness.url, HARNESS_API_KEY: harness.apiKey });
    const ask = async (prompt: string): Promise<TurnJson> =>
      (await (await mf.dispatchFetch(`http://worker.local/?prompt=${encodeURIComponent(prompt)}`)).json()) as TurnJson;
    const [a, b] = await Promise.all([ask("first visitor"), ask("second visitor")]);
    expect(a.text).toContain("Cloudflare-Workers");
    expect(b.text).toContain("Cloudflare-Workers");
    expect(a.conversationId).not.toBe("");
    expect(b.conversationId).not.toBe(a.conversationId);
  });

  it("streams the turn as server-sent events (ChatStream.toReadableStream): thinking before text, tool calls and results, then turnComplete with usage", async () => {
    const mf = await startWorker({ HARNESS_URL: harness.url, HARNESS_API_KEY: harness.apiKey });
    const response = await mf.dispatchFetch("http://worker.local/?prompt=stream%20please", {
      headers: { accept: "text/event-stream" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = parseEventStream(await response.text());
    const kinds = events.map((e) => e.event);
    expect(kinds).not.toContain("error");
    expect(kinds.indexOf("thought")).toBeGreaterThanOrEqual(0);
    expect(kinds.indexOf("thought")).toBeLessThan(kinds.indexOf("text"));
    expect(
      events.filter((e) => e.event === "toolCall").map((e) => (e.data as { toolCall: { name: string } }).toolCall.name),
    ).toContain("worker_info");
    expect(
      events
        .filter((e) => e.event === "toolResult")
        .map((e) => (e.data as { toolCall: { name: string } }).toolCall.name),
    ).toContain("worker_info");
    expect(kinds.at(-1)).toBe("turnComplete");
    const text = events
      .filter((e) => e.event === "text")
      .map((e) => (e.data as { text: string }).text)
      .join("");
    expect(text).toContain("Cloudflare-Workers");
    expect((events.at(-1)?.data as { usage: { totalTokenCount: number } }).usage.totalTokenCount).toBeGreaterThan(0);
  });

  it("reports a wrong key as PermissionDenied (HTTP 502), not as a hang", async () => {
    const mf = await startWorker({ HARNESS_URL: harness.url, HARNESS_API_KEY: "not-the-key" });
    const response = await mf.dispatchFetch("http://worker.local/?prompt=hi");
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(502);
    expect(body.error.code).toBe("PermissionDenied");
    expect(body.error.message).toContain("401");
  });

  it("reports a harness that is not there as Unavailable", async () => {
    const gone = await startListeningHarness({ build: "dist" });
    await gone.stop();
    const mf = await startWorker({ HARNESS_URL: gone.url, HARNESS_API_KEY: gone.apiKey });
    const response = await mf.dispatchFetch("http://worker.local/?prompt=hi");
    const body = (await response.json()) as { error: { code: string } };
    expect(response.status).toBe(502);
    expect(body.error.code).toBe("Unavailable");
  });

  it("rejects a request without a prompt", async () => {
    const mf = await startWorker({ HARNESS_URL: harness.url, HARNESS_API_KEY: harness.apiKey });
    const response = await mf.dispatchFetch("http://worker.local/");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("InvalidArgument");
  });
});
