import type { Server } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { build, type Plugin } from "esbuild";
import { harnessEnv, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";
import type { startChatServer as StartChatServer } from "../../docs/examples/ai-sdk/src/server.js";
import { keepScreenshot } from "./fixtures.js";

// docs/examples/ai-sdk in real Chromium: the AI SDK's own useChat + DefaultChatTransport (React,
// bundled by esbuild) talking to the example's Node route (ChatStream.toUIMessageStreamResponse,
// approvalFromUIMessages + agent.resume), whose agent runs against the reference harness's
// scripted model (test/browser/ai-sdk-script.json). Screenshots are kept under test-results/browser.
// The server and the harness run from source (the server bundled by esbuild with the
// "antigravity-source" condition), so the test does not depend on a fresh dist.

const SCRIPT = fileURLToPath(new URL("./ai-sdk-script.json", import.meta.url));
const PAGE = fileURLToPath(new URL("../../docs/examples/ai-sdk/src/page.tsx", import.meta.url));
const SERVER = fileURLToPath(new URL("../../docs/examples/ai-sdk/src/server.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The example server from source, as one ESM file under test-results/ (so node_modules resolve). */
async function loadServer(): Promise<typeof StartChatServer> {
  const out = path.join(ROOT, "test-results", "ai-sdk-server", `server-${process.pid}.mjs`);
  await build({
    entryPoints: [SERVER],
    outfile: out,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["antigravity-source"],
    logLevel: "silent",
    plugins: [sourceWorkspace],
  });
  return ((await import(pathToFileURL(out).href)) as { startChatServer: typeof StartChatServer }).startChatServer;
}

/** Bundles the workspace packages (@antigravity-ts/*) from source; every other package stays external. */
const sourceWorkspace: Plugin = {
  name: "source-workspace",
  setup(b) {
    b.onResolve({ filter: /^#default-websocket$/ }, () => ({ path: "isomorphic-ws", external: true }));
    b.onResolve({ filter: /^[^./#]/ }, (args) => (args.path.startsWith("@antigravity-ts/") ? undefined : { path: args.path, external: true }));
  },
};

let harness: ListeningHarness;
let workspace: string;
let server: Server;
let url: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const startChatServer = await loadServer();
  workspace = await mkdtemp(path.join(tmpdir(), "ai-sdk-page-"));
  harness = await startListeningHarness({ build: "source", workspace, env: harnessEnv(SCRIPT) });
  const page = await build({ entryPoints: [PAGE], bundle: true, format: "esm", jsx: "automatic", write: false, define: { "process.env.NODE_ENV": '"production"' }, logLevel: "silent" });
  ({ url, server } = await startChatServer({
    harnessUrl: harness.url,
    apiKey: harness.apiKey,
    continuationSecret: "ai-sdk-page-continuation-secret-0123456789",
    pageScript: page.outputFiles[0]?.text ?? "",
    port: 0,
  }));
});

test.afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await harness?.stop();
  await rm(workspace, { recursive: true, force: true });
});

async function send(page: Page, prompt: string): Promise<void> {
  await page.getByLabel("Prompt").fill(prompt);
  await page.getByRole("button", { name: "Send" }).click();
}

async function ready(page: Page): Promise<void> {
  await expect(page.locator("main")).toHaveAttribute("data-status", "ready");
}

function log(): Promise<string> {
  return readFile(path.join(workspace, "log.txt"), "utf8").catch(() => "");
}

test("streams reasoning and text, a client tool card and a harness tool card, with usage", async ({ page }, testInfo) => {
  await page.goto(url);
  await send(page, "weather in Paris");
  await ready(page);
  const answer = page.locator("article.assistant");
  await expect(answer.locator(".reasoning")).toHaveText("The user wants the weather in Paris.");
  await expect(answer.locator(".text")).toHaveText(["Checking the weather.", "Paris is sunny, 21 degrees."]);
  const weather = answer.locator('.tool[data-tool="get_weather"]');
  await expect(weather).toHaveAttribute("data-state", "output-available");
  await expect(weather.locator(".output")).toHaveText('{"city":"Paris","sky":"sunny","celsius":21}');
  await expect(answer.locator('.tool[data-tool="list_directory"]')).toHaveAttribute("data-state", "output-available");
  await expect(answer.locator(".tool")).toHaveCount(2); // one card per call
  await expect(answer.locator(".usage")).toHaveText(/^[1-9]\d* tokens$/);
  await keepScreenshot(page, testInfo, "ai-sdk-tools", { committed: false });
});

test("an approval approved runs the command and the turn goes on; one denied does not run it", async ({ page }, testInfo) => {
  await page.goto(url);
  await send(page, "clean up the build");
  const card = page.locator('.tool[data-tool="run_command"]');
  await expect(card).toHaveAttribute("data-state", "approval-requested");
  await expect(card).toContainText("echo cleaned >> log.txt");
  await ready(page);
  expect(await log()).toBe("");
  await keepScreenshot(page, testInfo, "ai-sdk-approval-requested", { committed: false });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(card).toHaveAttribute("data-state", "output-available");
  await expect(page.locator("article.assistant .text").last()).toHaveText("Cleanup finished.");
  await ready(page);
  expect(await log()).toBe("cleaned\n");
  await expect(page.locator("article.assistant")).toHaveCount(1); // the resumed turn continues the same message
  await keepScreenshot(page, testInfo, "ai-sdk-approved", { committed: false });

  await page.goto(url);
  await send(page, "clean up again");
  const second = page.locator('.tool[data-tool="run_command"]');
  await second.getByRole("button", { name: "Deny" }).click();
  await expect(second).toHaveAttribute("data-state", "output-denied");
  await expect(second.locator(".output")).toHaveText("Denied");
  await ready(page);
  expect(await log()).toBe("cleaned\n");
  await expect(page.locator("#error")).toHaveCount(0);
  await keepScreenshot(page, testInfo, "ai-sdk-denied", { committed: false });
});

test("Stop ends the streaming answer and cancels the turn; the chat goes on", async ({ page }, testInfo) => {
  await page.goto(url);
  await send(page, "tell me a long story");
  const text = page.locator("article.assistant .text");
  await expect(text).toContainText("Once upon");
  await page.getByRole("button", { name: "Stop" }).click();
  await ready(page);
  const stopped = (await text.textContent()) ?? "";
  expect(stopped).not.toContain("ended early");
  await keepScreenshot(page, testInfo, "ai-sdk-stopped", { committed: false });
  // The same chat's agent answers the next prompt: the stopped turn was cancelled on the harness.
  await send(page, "weather in Paris");
  await expect(page.locator("article.assistant").last().locator(".text").last()).toHaveText("Paris is sunny, 21 degrees.");
  await expect(text.first()).toHaveText(stopped);
});

test("a failed turn shows useChat's error (masked as the AI SDK does)", async ({ page }, testInfo) => {
  await page.goto(url);
  await send(page, "quota please");
  await expect(page.locator("#error")).toHaveText("An error occurred.");
  await expect(page.locator("main")).toHaveAttribute("data-status", "error");
  await keepScreenshot(page, testInfo, "ai-sdk-error", { committed: false });
});
