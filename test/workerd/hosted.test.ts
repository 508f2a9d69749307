import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Miniflare } from "miniflare";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "./bundle-worker.js";

// The hosted agent in real workerd (miniflare): hosted-worker.ts, bundled from the built SDK with
// the workerd conditions, runs text and thinking, a hosted tool, a client tool run in the Worker, a
// cancel and one more turn against the reference harness's Interactions API emulator.

const KEY = "workerd-hosted-key-0123456789";
let root = "";
let emulator: InteractionsEmulator;
let mf: Miniflare | undefined;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-workerd-"));
  await mkdir(path.join(root, "ws"));
  await writeFile(path.join(root, "ws", "notes.txt"), "hi\n");
  const script = parseScript({
    turns: [
      { match: "hello", calls: [{ thinking: "Short.", text: "Hello from the emulator." }] },
      {
        match: "list",
        calls: [{ toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] }, { text: "Listed." }],
      },
      { match: "runtime", calls: [{ toolCalls: [{ name: "$client", args: {} }] }, { text: "Asked the runtime." }] },
      {
        match: "slow",
        calls: [{ text: Array.from({ length: 200 }, (_, i) => `w${i}`).join(" "), chunkWords: 1, chunkDelayMs: 50 }],
      },
    ],
  });
  emulator = await startInteractionsEmulator({
    apiKey: KEY,
    host: "127.0.0.1",
    port: 0,
    workspace: path.join(root, "ws"),
    script,
  });
  mf = new Miniflare({
    modules: true,
    script: await bundleWorker("test/workerd/hosted-worker.ts"),
    compatibilityDate: "2026-04-01",
    bindings: { GEMINI_API_KEY: KEY, HOSTED_BASE_URL: emulator.url },
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

describe("hostedAgent in workerd", () => {
  it("runs text, a hosted tool, a client tool in the Worker, a cancel and another turn", async () => {
    const response = await (mf as Miniflare).dispatchFetch("http://worker.test/");
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body["hello"]).toBe("Hello from the emulator.");
    expect(body["thinking"]).toBe("Short.");
    expect(JSON.stringify(body["listed"])).toContain("notes.txt");
    expect(JSON.stringify(body["tool"])).toContain("Cloudflare-Workers");
    expect(body["askedText"]).toBe("Asked the runtime.");
    expect(body["cancelled"]).toBe("Canceled");
    expect(body["again"]).toBe("Hello from the emulator.");
    expect(body["turns"]).toBe(5);
  });
});
