import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { Miniflare } from "miniflare";
import { bundleWorker } from "../workerd/bundle-worker.js";
import { harnessEnv, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// The approval page of docs/examples/worker-continuation in real Chromium, served by the Worker
// itself in miniflare's workerd (listening on a local port) against the reference harness's
// scripted model: the page receives the signed continuation, approves it, then denies the
// second pause of the same turn; a page that alters the envelope is refused.

const SCRIPT = fileURLToPath(new URL("../node/e2e/scripts/continuation-script.json", import.meta.url));

let harness: ListeningHarness;
let mf: Miniflare;
let url: string;
let workspace: string;
let persist: string;

test.beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "worker-continuation-page-ws-"));
  persist = await mkdtemp(path.join(tmpdir(), "worker-continuation-page-do-"));
  harness = await startListeningHarness({ build: "dist", args: ["--workspace", workspace], env: harnessEnv(SCRIPT) });
  mf = new Miniflare({
    modules: true,
    script: await bundleWorker("docs/examples/worker-continuation/src/index.ts"),
    compatibilityDate: "2026-04-01",
    host: "127.0.0.1",
    port: 0,
    bindings: {
      HARNESS_URL: harness.url,
      HARNESS_API_KEY: harness.apiKey,
      CONTINUATION_SECRET: "page-continuation-secret-0123456789abcdef",
    },
    durableObjects: { PENDING: { className: "PendingConfirmation", useSQLite: true } },
    durableObjectsPersist: persist,
  });
  url = (await mf.ready).href;
});

test.afterAll(async () => {
  await mf?.dispose();
  await harness?.stop();
  await rm(persist, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

function log(): Promise<string> {
  return readFile(path.join(workspace, "log.txt"), "utf8").catch(() => "");
}

test("the page approves the signed continuation from the Worker, then denies the next pause", async ({ page }) => {
  await page.goto(url);
  await expect(page.locator("body")).toHaveAttribute("data-state", "idle");
  await page.locator("#prompt").fill("two commands please");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.locator("#tool")).toHaveText("run_command");
  await expect(page.locator("#args")).toContainText("echo one >> log.txt");
  await expect(page.locator("#answer")).toContainText("I will run two commands.");
  const envelope = JSON.parse((await page.locator("#envelope").textContent()) ?? "") as { signature: string };
  expect(envelope.signature).toMatch(/^hmac-sha256:/);
  expect(await log()).toBe("");

  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.locator("#args")).toContainText("echo two >> log.txt");
  expect(await log()).toBe("one\n");

  await page.getByRole("button", { name: "Deny" }).click();
  await expect(page.locator("#pending")).toBeHidden();
  await expect(page.locator("#answer")).toContainText("all done");
  await expect(page.locator("body")).toHaveAttribute("data-state", "idle");
  await expect(page.locator("#error")).toHaveText("");
  expect(await log()).toBe("one\n");
});

test("a page that alters the call it approves is refused and nothing runs", async ({ page }) => {
  await page.goto(url);
  await page.locator("#prompt").fill("two commands please");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.locator("#tool")).toHaveText("run_command");
  const before = await log();
  // What a hostile page script could do: send back the envelope with other arguments.
  const status = await page.evaluate(async () => {
    const continuation = JSON.parse(document.getElementById("envelope")?.textContent ?? "null") as {
      payload: { pendingToolCalls: { args: unknown }[] };
    };
    (continuation.payload.pendingToolCalls[0] as { args: unknown }).args = { CommandLine: "echo pwned >> log.txt" };
    const response = await fetch("/approve", {
      method: "POST",
      body: JSON.stringify({ continuation, approved: true }),
    });
    return { status: response.status, body: (await response.json()) as { error: { code: string } } };
  });
  expect(status).toMatchObject({ status: 403, body: { error: { code: "PermissionDenied" } } });
  expect(await log()).toBe(before);
});
