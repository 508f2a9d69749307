import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { expect, test, type Page } from "@playwright/test";
import { createAcpBridge, type AcpBridge } from "@antigravity-ts/node/acp";
import {
  GEMINI_ROUTER,
  ensureReferenceHarness,
  geminiScratch,
  geminiStream,
  geminiText,
  harnessEnv,
  processAlive,
  waitUntilGone,
  type GeminiScratch,
} from "@antigravity-ts/test-kit";

// ACP agents from a page in Debian's Chromium, the key and the process on the server: a page bundled
// from the built SDK runs the core acpAgent over acpWebSocketStream, through two createAcpBridge
// endpoints on its own server — `antigravity-harness --acp` (scripted model) and the real Gemini
// CLI 0.61 offline (canned model responses). The spec reads every frame the page received.

const root = join(import.meta.dirname, "../..");
const TOKEN = "browser-acp-token-0123456789";
const HARNESS_SECRET = "harness-env-secret-0123456789";
const GEMINI_KEY = "gemini-env-secret-9876543210";
const SCRIPT = {
  turns: [
    { match: "hello", calls: [{ text: "Hello from the harness over ACP", chunkWords: 1 }] },
    {
      match: "run it",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: "echo ran > ran.txt" } }] },
        { text: "Ran it." },
      ],
    },
    {
      match: "slow",
      calls: [{ text: Array.from({ length: 400 }, (_, i) => `w${i}`).join(" "), chunkWords: 1, chunkDelayMs: 50 }],
    },
  ],
};

let dir = "";
let workspace = "";
let server: Server;
let origin = "";
let script = "";
let gemini: GeminiScratch;
const bridges: AcpBridge[] = [];
const pids: number[] = [];
const logs: string[] = [];

test.beforeAll(async () => {
  const page = await build({
    entryPoints: [join(root, "test/browser/acp-page.ts")],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["browser"],
    logLevel: "silent",
  });
  script = page.outputFiles[0]?.text ?? "";
  dir = await mkdtemp(join(tmpdir(), "antigravity-acp-browser-"));
  workspace = join(dir, "ws");
  await mkdir(workspace);
  await writeFile(join(dir, "script.json"), JSON.stringify(SCRIPT));
  server = createServer((req, res) => {
    if (req.url === "/acp-page.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    res
      .writeHead(200, { "content-type": "text/html" })
      .end('<!doctype html><meta charset="utf-8"><title>acp</title><script type="module" src="/acp-page.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const common = {
    server,
    allowedOrigins: [origin],
    token: TOKEN,
    onProcess: (agent: { pid: number }) => pids.push(agent.pid),
    log: (line: string) => logs.push(line),
  };
  bridges.push(
    await createAcpBridge({
      ...common,
      path: "/harness",
      command: await ensureReferenceHarness(),
      args: ["--acp", "--script", join(dir, "script.json")],
      env: harnessEnv(undefined, { GEMINI_API_KEY: HARNESS_SECRET }),
      cwd: workspace,
    }),
  );
  gemini = geminiScratch(
    [GEMINI_ROUTER, geminiStream(geminiText("Hello from "), geminiText("Gemini CLI", { finishReason: "STOP" }))],
    [],
    GEMINI_KEY,
  );
  bridges.push(
    await createAcpBridge({
      ...common,
      path: "/gemini",
      command: gemini.options.command,
      args: gemini.options.args,
      env: gemini.options.env,
      cwd: gemini.workspace,
      authMethodIds: ["gemini-api-key"],
    }),
  );
});

test.afterAll(async () => {
  await Promise.all(bridges.map((bridge) => bridge.close()));
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  gemini?.remove();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

/** Opens the page on a bridge path and records every WebSocket frame it receives. */
async function openPage(page: Page, path: string): Promise<string[]> {
  const frames: string[] = [];
  page.on("websocket", (socket) => socket.on("framereceived", (frame) => frames.push(String(frame.payload))));
  const bridge = `ws://${origin.slice("http://".length)}${path}`;
  await page.goto(`${origin}/?bridge=${encodeURIComponent(bridge)}&token=${TOKEN}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  return frames;
}

type AcpTest = { acpTest: Record<string, (...args: unknown[]) => Promise<unknown>> };

test("a page drives antigravity-harness --acp through the bridge; the key and the process stay on the server", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const frames = await openPage(page, "/harness");
  const result = (await page.evaluate(() => (window as unknown as AcpTest).acpTest["harnessTurns"]?.())) as Record<
    string,
    unknown
  >;
  expect(result["text"]).toBe("Hello from the harness over ACP");
  expect((result["chunks"] as string[]).length).toBeGreaterThan(1);
  expect(result["asked"]).toEqual(["run_command"]);
  expect(result["tools"]).toContain("run_command");
  expect(result["ranText"]).toBe("Ran it.");
  expect(await readdir(workspace)).toContain("ran.txt"); // in the server's directory, not the page's "/"
  expect(result["cancelled"]).toBe("Canceled");
  expect(result["again"]).toBe("Hello from the harness over ACP");
  expect(result["turns"]).toBe(4);
  expect(pids).toHaveLength(1);
  const pid = pids[0] ?? -1;
  expect(processAlive(pid)).toBe(true);
  await page.close();
  expect(await waitUntilGone(pid)).toBe(true);
  expect(frames.some((frame) => frame.includes("agent_message_chunk"))).toBe(true);
  expect(frames.join("\n")).not.toContain(HARNESS_SECRET);
  expect(script).not.toContain(HARNESS_SECRET);
  pids.length = 0;
});

test("a page drives the real Gemini CLI offline, authenticating with a key only the server holds", async ({ page }) => {
  test.setTimeout(180_000);
  const frames = await openPage(page, "/gemini");
  const refusal = (await page.evaluate(() => (window as unknown as AcpTest).acpTest["refused"]?.())) as {
    code: string;
    message: string;
  };
  expect(refusal.code).toBe("InvalidArgument");
  expect(refusal.message).toContain("does not let a page authenticate");
  expect(logs.join("\n")).toContain('authenticate with "oauth-personal"');
  const text = await page.evaluate(() => (window as unknown as AcpTest).acpTest["oneTurn"]?.("gemini-api-key"));
  expect(text).toBe("Hello from Gemini CLI");
  expect(pids).toHaveLength(2);
  await page.close();
  for (const pid of pids) expect(await waitUntilGone(pid)).toBe(true);
  expect(frames.some((frame) => frame.includes("gemini-api-key"))).toBe(true);
  expect(frames.join("\n")).not.toContain(GEMINI_KEY);
  pids.length = 0;
});
