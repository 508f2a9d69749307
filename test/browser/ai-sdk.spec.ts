import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { build, type Plugin } from "esbuild";
import { Miniflare } from "miniflare";
import { harnessEnv, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";
import type { startChatServer as StartChatServer } from "../../docs/examples/ai-sdk/src/server.js";
import { keepScreenshot } from "./fixtures.js";

// docs/examples/ai-sdk in real Chromium: the AI SDK's own useChat + DefaultChatTransport (React,
// bundled by esbuild) talking to the example's route (ChatStream.toUIMessageStreamResponse,
// approvalFromUIMessages + agent.resume) behind a Node server and behind a Worker in miniflare's
// workerd, whose agents run against the reference harness's scripted model
// (test/browser/ai-sdk-script.json). Screenshots are kept under test-results/browser. The server,
// the Worker and the harness run from source (bundled by esbuild with the "antigravity-source"
// condition), so the test does not depend on a fresh dist.

const SCRIPT = fileURLToPath(new URL("./ai-sdk-script.json", import.meta.url));
const PAGE = fileURLToPath(new URL("../../docs/examples/ai-sdk/src/page.tsx", import.meta.url));
const SERVER = fileURLToPath(new URL("../../docs/examples/ai-sdk/src/server.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("../../docs/examples/ai-sdk/src/worker.ts", import.meta.url));
const SECRET = "ai-sdk-page-continuation-secret-0123456789";
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

/** The example Worker from source, bundled as wrangler would (ESM, the workerd conditions). */
async function workerScript(): Promise<string> {
  const result = await build({
    entryPoints: [WORKER],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["antigravity-source", "workerd", "worker", "browser"],
    logLevel: "silent",
  });
  return result.outputFiles[0]?.text ?? "";
}

/** Bundles the workspace packages (@antigravity-ts/*) from source; every other package stays external. */
const sourceWorkspace: Plugin = {
  name: "source-workspace",
  setup(b) {
    b.onResolve({ filter: /^#default-websocket$/ }, () => ({ path: "isomorphic-ws", external: true }));
    b.onResolve({ filter: /^[^./#]/ }, (args) =>
      args.path.startsWith("@antigravity-ts/") ? undefined : { path: args.path, external: true },
    );
  },
};

/** A backend under test: the harness its agents use (its own workspace) and the page's URL. */
interface Backend {
  url: string;
  workspace: string;
  close(): Promise<void>;
}

async function pageScript(): Promise<string> {
  const page = await build({
    entryPoints: [PAGE],
    bundle: true,
    format: "esm",
    jsx: "automatic",
    write: false,
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent",
  });
  return page.outputFiles[0]?.text ?? "";
}

async function harnessIn(): Promise<{ harness: ListeningHarness; workspace: string }> {
  const workspace = await mkdtemp(path.join(tmpdir(), "ai-sdk-page-"));
  return { harness: await startListeningHarness({ build: "source", workspace, env: harnessEnv(SCRIPT) }), workspace };
}

const BACKENDS: Record<string, () => Promise<Backend>> = {
  "a Node route": async () => {
    const startChatServer = await loadServer();
    const { harness, workspace } = await harnessIn();
    const { url, server } = await startChatServer({
      harnessUrl: harness.url,
      apiKey: harness.apiKey,
      continuationSecret: SECRET,
      pageScript: await pageScript(),
      port: 0,
    });
    return {
      url,
      workspace,
      close: async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await harness.stop();
        await rm(workspace, { recursive: true, force: true });
      },
    };
  },
  "a Worker in workerd": async () => {
    const { harness, workspace } = await harnessIn();
    const mf = new Miniflare({
      modules: true,
      script: await workerScript(),
      compatibilityDate: "2026-04-01",
      host: "127.0.0.1",
      port: 0,
      bindings: {
        HARNESS_URL: harness.url,
        HARNESS_API_KEY: harness.apiKey,
        CONTINUATION_SECRET: SECRET,
        PAGE_SCRIPT: await pageScript(),
      },
    });
    const url = (await mf.ready).href;
    return {
      url,
      workspace,
      close: async () => {
        await mf.dispose();
        await harness.stop();
        await rm(workspace, { recursive: true, force: true });
      },
    };
  },
};

async function send(page: Page, prompt: string): Promise<void> {
  await page.getByLabel("Prompt").fill(prompt);
  await page.getByRole("button", { name: "Send" }).click();
}

async function ready(page: Page): Promise<void> {
  await expect(page.locator("main")).toHaveAttribute("data-status", "ready");
}

function log(workspace: string): Promise<string> {
  return readFile(path.join(workspace, "log.txt"), "utf8").catch(() => "");
}

for (const [name, start] of Object.entries(BACKENDS)) {
  test.describe(`useChat against ${name}`, () => {
    let backend: Backend;
    const slug = name.includes("Worker") ? "ai-sdk-worker" : "ai-sdk-node";

    test.beforeAll(async () => {
      test.setTimeout(120_000);
      backend = await start();
    });

    test.afterAll(async () => {
      await backend?.close();
    });

    test("streams reasoning and text, a client tool card and a harness tool card, with usage", async ({
      page,
    }, testInfo) => {
      await page.goto(backend.url);
      await send(page, "weather in Paris");
      await ready(page);
      const answer = page.locator("article.assistant");
      await expect(answer.locator(".reasoning")).toHaveText("The user wants the weather in Paris.");
      await expect(answer.locator(".text")).toHaveText(["Checking the weather.", "Paris is sunny, 21 degrees."]);
      const weather = answer.locator('.tool[data-tool="get_weather"]');
      await expect(weather).toHaveAttribute("data-state", "output-available");
      await expect(weather.locator(".output")).toHaveText('{"city":"Paris","sky":"sunny","celsius":21}');
      // A built-in the agent has by default (list_directory is none since upstream 0.1.19, issue 25 item 3).
      await expect(answer.locator('.tool[data-tool="find_file"]')).toHaveAttribute("data-state", "output-available");
      await expect(answer.locator(".tool")).toHaveCount(2); // one card per call
      await expect(answer.locator(".usage")).toHaveText(/^[1-9]\d* tokens$/);
      await keepScreenshot(page, testInfo, `${slug}-tools`, { committed: false });
    });

    test("an approval approved runs the command and the turn goes on; one denied does not run it", async ({
      page,
    }, testInfo) => {
      await page.goto(backend.url);
      await send(page, "clean up the build");
      const card = page.locator('.tool[data-tool="run_command"]');
      await expect(card).toHaveAttribute("data-state", "approval-requested");
      await expect(card).toContainText("echo cleaned >> log.txt");
      await ready(page);
      expect(await log(backend.workspace)).toBe("");
      await keepScreenshot(page, testInfo, `${slug}-approval-requested`, { committed: false });
      await card.getByRole("button", { name: "Approve" }).click();
      await expect(card).toHaveAttribute("data-state", "output-available");
      await expect(page.locator("article.assistant .text").last()).toHaveText("Cleanup finished.");
      await ready(page);
      expect(await log(backend.workspace)).toBe("cleaned\n");
      await expect(page.locator("article.assistant")).toHaveCount(1); // the resumed turn continues the same message
      await keepScreenshot(page, testInfo, `${slug}-approved`, { committed: false });

      await page.goto(backend.url);
      await send(page, "clean up again");
      const second = page.locator('.tool[data-tool="run_command"]');
      await second.getByRole("button", { name: "Deny" }).click();
      await expect(second).toHaveAttribute("data-state", "output-denied");
      await expect(second.locator(".output")).toHaveText("Denied");
      await ready(page);
      expect(await log(backend.workspace)).toBe("cleaned\n");
      await expect(page.locator("#error")).toHaveCount(0);
      await keepScreenshot(page, testInfo, `${slug}-denied`, { committed: false });
    });

    test("Stop ends the streaming answer and cancels the turn; the chat goes on", async ({ page }, testInfo) => {
      await page.goto(backend.url);
      await send(page, "tell me a long story");
      const text = page.locator("article.assistant .text");
      await expect(text).toContainText("Once upon");
      await page.getByRole("button", { name: "Stop" }).click();
      await ready(page);
      const stopped = (await text.textContent()) ?? "";
      expect(stopped).not.toContain("ended early");
      await keepScreenshot(page, testInfo, `${slug}-stopped`, { committed: false });
      // Behind the Node route the chat's agent answers the next prompt, which its conversation would
      // queue behind the story (about 90 words, 400 ms apart) had Stop not cancelled that turn on
      // the harness; the Worker starts a new agent per request.
      await send(page, "weather in Paris");
      await expect(page.locator("article.assistant").last().locator(".text").last()).toHaveText(
        "Paris is sunny, 21 degrees.",
      );
      await expect(text.first()).toHaveText(stopped);
    });

    test("a failed turn shows useChat's error (masked as the AI SDK does)", async ({ page }, testInfo) => {
      await page.goto(backend.url);
      await send(page, "quota please");
      await expect(page.locator("#error")).toHaveText("An error occurred.");
      await expect(page.locator("main")).toHaveAttribute("data-status", "error");
      await keepScreenshot(page, testInfo, `${slug}-error`, { committed: false });
    });
  });
}
