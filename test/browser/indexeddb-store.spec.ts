import { join } from "node:path";
import { build } from "esbuild";
import { expect, test, type Page } from "@playwright/test";

// createIndexedDbConversationStore in Debian's Chromium: the store contract every adapter keeps,
// entries moved aside, a page reloaded in the middle of its saves, and two tabs saving one
// conversation. The page is served from a routed origin (http://store.test), its script bundled
// from the built SDK for the browser.

const root = join(import.meta.dirname, "../..");
const ORIGIN = "http://store.test";
type StoreTest = Record<string, (...args: never[]) => unknown> & { checkCount: number };

let script: string;

test.beforeAll(async () => {
  const result = await build({
    entryPoints: [join(root, "test/browser/store-page.ts")],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["browser"],
    logLevel: "silent",
  });
  script = result.outputFiles[0]?.text ?? "";
});

async function openStorePage(page: Page): Promise<void> {
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/store-page.js") return route.fulfill({ contentType: "text/javascript", body: script });
    return route.fulfill({
      contentType: "text/html",
      body: '<!doctype html><meta charset="utf-8"><title>store</title><script type="module" src="/store-page.js"></script>',
    });
  });
  await page.goto(`${ORIGIN}/`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
}

function run<T>(page: Page, method: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(
    ([name, list]) => (window as unknown as { storeTest: StoreTest }).storeTest[name as string]?.(...(list as never[])),
    [method, args] as const,
  ) as Promise<T>;
}

test.describe("IndexedDB conversation store in Chromium", () => {
  test("keeps the store contract", async ({ page }) => {
    await openStorePage(page);
    const count = await page.evaluate(() => (window as unknown as { storeTest: StoreTest }).storeTest.checkCount);
    expect(count).toBeGreaterThan(10);
    for (let i = 0; i < count; i++) expect(await run(page, "check", i)).toEqual({ ok: true, name: expect.any(String) });
  });

  test("an unusable value is moved to the movedAside object store whole, in the same transaction", async ({ page }) => {
    await openStorePage(page);
    const result = await run<{
      loaded: unknown;
      warnings: string[];
      kept: { conversationId: string; value: unknown }[];
    }>(page, "movedAside");
    expect(result.loaded).toBeNull();
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /is unusable: invalid conversation snapshot: format: .+ It was moved to IndexedDB moved\/movedAside key 1; the conversation starts empty\.$/,
      ),
    ]);
    expect(result.kept).toEqual([
      {
        conversationId: "browser-0123456789abcdef0123456789abcdef",
        movedAt: expect.any(String),
        value: { not: "a snapshot", list: [1, 2, 3] },
      },
    ]);
  });

  test("a page reloaded in the middle of its saves leaves a whole snapshot", async ({ page }) => {
    await openStorePage(page);
    await run(page, "saveRange", "storm", 1, 1);
    await run(page, "saveStorm", "storm", 40);
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
    const after = await run<{ turnCount: number | null; warnings: string[] }>(page, "load", "storm");
    expect(after.warnings).toEqual([]);
    expect(after.turnCount).toBeGreaterThanOrEqual(1);
    expect(after.turnCount).toBeLessThanOrEqual(40);
  });

  test("two tabs saving one conversation: every load is a whole snapshot, the last save wins", async ({
    page,
    context,
  }) => {
    const other = await context.newPage();
    await openStorePage(page);
    await openStorePage(other);
    const seen: (number | null)[] = [];
    const writers = Promise.all([run(page, "saveRange", "tabs", 1, 30), run(other, "saveRange", "tabs", 101, 130)]);
    let done = false;
    void writers.then(() => (done = true));
    while (!done) {
      const now = await run<{ turnCount: number | null; warnings: string[] }>(page, "load", "tabs");
      expect(now.warnings).toEqual([]);
      seen.push(now.turnCount);
    }
    await writers;
    expect(seen.every((n) => n === null || (n >= 1 && n <= 30) || (n >= 101 && n <= 130))).toBe(true);
    expect([30, 130]).toContain((await run<{ turnCount: number }>(other, "load", "tabs")).turnCount);
  });

  test("a runtime without IndexedDB is told so when the store is created", async ({ page }) => {
    await openStorePage(page);
    expect(await run(page, "withoutIndexedDb")).toBe(
      "FailedPrecondition: IndexedDB is not available in this runtime: pass the `indexedDB` option or use another conversation store",
    );
  });
});
