import { defineConfig } from "@playwright/test";

// Browser suite: Debian's Chromium (toolchain.md §3; nothing is downloaded) drives the browser-chat
// example, served with the harness gateway by docs/examples/browser-chat/server.mjs. Each test
// starts its own server and harness (test/browser/fixtures.ts). Run `npm run build` first.
export default defineConfig({
  testDir: "./test/browser",
  outputDir: "./test-results/browser",
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env["CI"],
  retries: 0,
  reporter: process.env["CI"] ? [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]] : "list",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    browserName: "chromium",
    headless: true,
    viewport: { width: 1000, height: 760 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
      args: [
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
