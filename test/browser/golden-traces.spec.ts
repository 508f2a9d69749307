import { readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { expect, test, type Page } from "@playwright/test";
import { SCENARIOS, USER_SCENARIO, withChangedToolResult, type TraceScenario } from "../traces/scenarios.js";

// The golden traces in Debian's Chromium: a page bundled from the built SDK for the browser runs
// each scenario of test/traces/scenarios.ts over replayTransport, the trace handed in by the test.
// No harness, no gateway, no socket: the SDK's own session logic in the page.

const root = join(import.meta.dirname, "../..");
const ORIGIN = "http://replay.test";

interface RunResult {
  ok: boolean;
  error?: string;
  runtime: string;
}

let script: string;

test.beforeAll(async () => {
  const result = await build({
    entryPoints: [join(root, "test/browser/replay-page.ts")],
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

const read = (scenario: TraceScenario): string =>
  readFileSync(join(root, `test/traces/localharness/${scenario.name}.ndjson`), "utf8");

async function openReplayPage(page: Page): Promise<void> {
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/replay-page.js") return route.fulfill({ contentType: "text/javascript", body: script });
    return route.fulfill({
      contentType: "text/html",
      body: '<!doctype html><meta charset="utf-8"><title>replay</title><script type="module" src="/replay-page.js"></script>',
    });
  });
  await page.goto(`${ORIGIN}/`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
}

function run(page: Page, scenario: TraceScenario, trace: string): Promise<RunResult> {
  return page.evaluate(
    ([name, text]) =>
      (window as unknown as { replayTest: { run(n: string, t: string): Promise<RunResult> } }).replayTest.run(
        name,
        text,
      ),
    [scenario.name, trace] as const,
  );
}

test.describe("the golden traces in Chromium", () => {
  for (const scenario of SCENARIOS) {
    test(`${scenario.name} replays: ${scenario.description}`, async ({ page }) => {
      await openReplayPage(page);
      const result = await run(page, scenario, read(scenario));
      expect(result).toEqual({ ok: true, runtime: expect.stringMatching(/Chrome\//) });
    });
  }

  test(`a user's test replaying ${USER_SCENARIO.description} fails with the diff once one client frame of the trace changed`, async ({
    page,
  }) => {
    await openReplayPage(page);
    const result = await run(page, USER_SCENARIO, withChangedToolResult(read(USER_SCENARIO)));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      /^replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame 3 of \d+, toolResponse, t=[\d.]+ ms\):/,
    );
    expect(result.error).toContain(
      'at toolResponse.responseJson: differs\n    expected: "{\\"sum\\":6}"\n    got:      "{\\"sum\\":5}"',
    );
  });
});
