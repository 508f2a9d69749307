import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { expect, test } from "@playwright/test";
import { createInteractionsRoute } from "@antigravity-ts/node";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";

// The hosted agent in Debian's Chromium, the page without a key: a page bundled from the built SDK
// runs hostedAgent against its server's createInteractionsRoute (@antigravity-ts/node), which adds
// the server's key and forwards to the reference harness's Interactions API emulator standing in
// for Google: text and thinking, a hosted tool, a client tool run in the page, a cancel, another turn.

const root = join(import.meta.dirname, "../..");
const KEY = "browser-hosted-key-0123456789";

let dir = "";
let emulator: InteractionsEmulator;
let server: Server;
let origin = "";
const forwardedKeys: string[] = [];

test.beforeAll(async () => {
  const page = await build({
    entryPoints: [join(root, "test/browser/hosted-page.ts")],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["browser"],
    logLevel: "silent",
  });
  const script = page.outputFiles[0]?.text ?? "";
  dir = await mkdtemp(join(tmpdir(), "antigravity-hosted-browser-"));
  await mkdir(join(dir, "ws"));
  await writeFile(join(dir, "ws", "notes.txt"), "hi\n");
  emulator = await startInteractionsEmulator({
    apiKey: KEY,
    host: "127.0.0.1",
    port: 0,
    workspace: join(dir, "ws"),
    script: parseScript({
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
    }),
  });
  const route = createInteractionsRoute({
    apiKey: KEY,
    upstream: emulator.url,
    prefix: "/gemini",
    fetch: (input, init) => {
      forwardedKeys.push((init?.headers as Record<string, string>)["x-goog-api-key"] ?? "");
      return fetch(input, init);
    },
  });
  server = createServer((req, res) => {
    if (route(req, res)) return;
    if (req.url === "/hosted-page.js")
      return void res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    res
      .writeHead(200, { "content-type": "text/html" })
      .end(
        '<!doctype html><meta charset="utf-8"><title>hosted</title><script type="module" src="/hosted-page.js"></script>',
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  await emulator?.close();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

test("a page runs the hosted agent through its server's route, never holding the key", async ({ page }) => {
  await page.goto(`${origin}/`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  const result = await page.evaluate(() =>
    (window as unknown as { hostedTest: { run(): Promise<Record<string, unknown>> } }).hostedTest.run(),
  );
  expect(result["hello"]).toBe("Hello from the emulator.");
  expect(result["thinking"]).toBe("Short.");
  expect(JSON.stringify(result["listed"])).toContain("notes.txt");
  expect(JSON.stringify(result["tool"])).toMatch(/Chrome\//);
  expect(result["askedText"]).toBe("Asked the runtime.");
  expect(result["cancelled"]).toBe("Canceled");
  expect(result["again"]).toBe("Hello from the emulator.");
  expect(result["turns"]).toBe(5);
  expect(forwardedKeys.length).toBeGreaterThan(0);
  expect(new Set(forwardedKeys)).toEqual(new Set([KEY]));
  const pageSource = await (await fetch(`${origin}/hosted-page.js`)).text();
  expect(pageSource).not.toContain(KEY);
});
