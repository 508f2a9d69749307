import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test as base, expect, type Page, type TestInfo } from "@playwright/test";

const root = join(import.meta.dirname, "../..");

/** docs/examples/browser-chat/server.mjs running as a real process, with its reference harness. */
export interface ChatServer {
  /** The page URL, `http://127.0.0.1:PORT/`. */
  url: string;
  /** Pid of the server process. */
  pid: number;
  /** Pid of the reference harness the server started (`--listen`); null with `--per-client`. */
  harnessPid: number | null;
  /** Everything the server and harness wrote to stderr. */
  log(): string;
  /** Kills the harness only; the gateway stays up and must tell the page. */
  killHarness(): Promise<void>;
  /** Kills the server and its harness (the whole process group). Idempotent. */
  kill(): Promise<void>;
}

/** How the example server runs: the harness's offline model script, and one harness per tab or one shared. */
export interface ChatServerOptions {
  script?: string;
  perClient?: boolean;
  /** `--allow-run-command`: pages may enable run_command (off by default). */
  allowRunCommand?: boolean;
}

/** Starts the example server on a free port. */
export async function startChatServer(options: ChatServerOptions = {}): Promise<ChatServer> {
  const args = [
    join(root, "docs/examples/browser-chat/server.mjs"),
    "--port",
    "0",
    ...(options.script ? ["--script", options.script] : []),
    ...(options.perClient ? ["--per-client"] : []),
    ...(options.allowRunCommand ? ["--allow-run-command"] : []),
  ];
  // Its own process group, so one kill takes the server and its harness.
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let log = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (log += chunk));
  const exited = once(child, "exit");
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // already gone
    }
    await exited;
  };
  const ready = await new Promise<{ url: string; harnessPid: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server.mjs did not start in time:\n${log}`)), 20_000);
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { url: string; harnessPid: number | null });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server.mjs exited with ${code} before it was ready:\n${log}`));
    });
  }).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return {
    ...ready,
    pid: child.pid as number,
    log: () => log,
    killHarness: async () => {
      if (ready.harnessPid === null)
        throw new Error("this server runs a harness per tab; there is no shared harness to kill");
      process.kill(ready.harnessPid, "SIGKILL");
      await expect
        .poll(() => log, { message: "the server notices the harness exit" })
        .toContain("reference harness exited");
    },
    kill,
  };
}

/** The offline model script the browser tests use (deterministic turns, see the JSON). */
export const testScript = join(import.meta.dirname, "chat-script.json");

/** Opens the page and waits until the agent is connected. */
export async function openChat(page: Page, server: ChatServer): Promise<void> {
  await page.goto(server.url);
  await expect(page.locator("#status")).toHaveAttribute("data-state", "connected");
  await expect(page.locator("#prompt")).toBeEnabled();
}

/** Sends a prompt and waits for the turn to finish (the page counts turns in body[data-turns]). */
export async function sendPrompt(page: Page, prompt: string, options: { wait?: boolean } = {}): Promise<void> {
  const before = Number((await page.locator("body").getAttribute("data-turns")) ?? "0");
  await page.locator("#prompt").fill(prompt);
  await page.locator("#send").click();
  if (options.wait !== false) await expect(page.locator("body")).toHaveAttribute("data-turns", String(before + 1));
}

/** Where the example's README finds its screenshots; written only with UPDATE_SCREENSHOTS=1. */
const committedScreenshots = join(root, "docs/examples/browser-chat/screenshots");

/**
 * Saves a full-page screenshot under test-results/browser/<test>/<name>.png (ignored by git, every
 * run) and attaches it to the report. With UPDATE_SCREENSHOTS=1 it also writes
 * docs/examples/browser-chat/screenshots/<name>.png, the set the example's README shows: a plain
 * `npm test` never rewrites a tracked file. `committed: false` keeps a screenshot out of that set
 * (one that shows a path of the machine it ran on).
 */
export async function keepScreenshot(
  page: Page,
  testInfo: TestInfo,
  name: string,
  options: { committed?: boolean } = {},
): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true, animations: "disabled", caret: "hide" });
  await testInfo.attach(name, { path, contentType: "image/png" });
  if (process.env["UPDATE_SCREENSHOTS"] === "1" && options.committed !== false) {
    mkdirSync(committedScreenshots, { recursive: true });
    copyFileSync(path, join(committedScreenshots, `${name}.png`));
  }
}

/** A test whose `server` fixture is a fresh chat server (test script), killed after the test. */
export const test = base.extend<{ server: ChatServer; serverOptions: ChatServerOptions }>({
  serverOptions: [{ script: testScript }, { option: true }],
  server: async ({ serverOptions }, use, testInfo) => {
    const server = await startChatServer(serverOptions);
    try {
      await use(server);
    } finally {
      await server.kill();
      if (testInfo.status !== testInfo.expectedStatus)
        await testInfo.attach("server.log", { body: server.log(), contentType: "text/plain" });
    }
  },
});

export { expect };
