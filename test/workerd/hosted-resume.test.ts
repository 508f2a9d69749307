import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Miniflare } from "miniflare";
import { ErrorCode, type Continuation } from "@antigravity-ts/sdk";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payAgent, ran, SECRET } from "../node/hosted/fixtures/pay-agent.js";
import { bundleWorker } from "./bundle-worker.js";

// A hosted turn paused in Node and resumed in workerd (miniflare): the continuation is all that
// crosses; hosted-resume-worker.ts, bundled from the built SDK, reads the interaction back, runs
// the deferred client call in the Worker and answers it with the next create. A second resume of
// the same continuation in that isolate is refused by its replay guard.

const KEY = "workerd-resume-key-0123456789";
let root = "";
let emulator: InteractionsEmulator;
let mf: Miniflare | undefined;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-resume-workerd-"));
  await mkdir(path.join(root, "ws"));
  const script = parseScript({
    turns: [
      {
        match: "buy",
        calls: [
          {
            toolCalls: [
              { name: "lookup", args: { item: "book" } },
              { name: "pay", args: { amount: 12 } },
            ],
          },
          { text: "Bought: {{results.pay.receipt}} in {{results.pay.userAgent}}." },
        ],
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
    script: await bundleWorker("test/workerd/hosted-resume-worker.ts"),
    compatibilityDate: "2026-04-01",
    bindings: { GEMINI_API_KEY: KEY, HOSTED_BASE_URL: emulator.url, CONTINUATION_SECRET: SECRET },
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

describe("a hosted turn paused in Node, resumed in workerd", () => {
  it("runs the deferred call in the Worker and finishes the turn; a replay there is refused", async () => {
    const started = await payAgent({ apiKey: KEY, baseUrl: emulator.url }).start();
    const continuation = (await started.chat("buy the book").final()).awaitingConfirmation
      ?.continuation as Continuation;
    await started.stop();
    expect(ran.map((call) => call.name)).toEqual(["lookup"]);

    const resume = async () => {
      const response = await (mf as Miniflare).dispatchFetch("http://worker.test/", {
        method: "POST",
        body: JSON.stringify(continuation),
      });
      const text = await response.text();
      expect(response.status, text).toBe(200);
      return JSON.parse(text) as {
        text?: string;
        ran: { name: string; args: unknown }[];
        error?: { code: string; details?: unknown };
      };
    };
    const first = await resume();
    expect(first.error).toBeUndefined();
    expect(first.text).toMatch(/^Bought: R-12 in .*Cloudflare-Workers/);
    expect(first.ran).toEqual([{ name: "pay", args: { amount: 12 } }]);
    const second = await resume();
    expect(second.ran).toEqual([]);
    expect(second.error).toMatchObject({ code: ErrorCode.FailedPrecondition, details: { reason: "replayed" } });
  });
});
