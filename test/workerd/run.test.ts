import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";
import { bundleWorker } from "./bundle-worker.js";

// The core's run() in real workerd (miniflare) against the built reference harness in a real
// child process. Leaks: the Worker's answer says done() had resolved, and the harness's port has
// no established TCP connection left (Linux /proc/net/tcp*, polled within a bound).

let script: string;
let harness: ListeningHarness;
let mf: Miniflare;

beforeAll(async () => {
  script = await bundleWorker("test/workerd/run-worker.ts");
  harness = await startListeningHarness({ build: "dist" });
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-01",
    bindings: { HARNESS_URL: harness.url, HARNESS_API_KEY: harness.apiKey },
  });
  await mf.ready;
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await harness?.stop();
});

/** Established TCP connections whose local port is `port` (the harness's side of each session). */
function establishedOn(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  let count = 0;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let table = "";
    try {
      table = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of table.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local?.endsWith(`:${hex}`) && state === "01") count++;
    }
  }
  return count;
}

async function noConnectionLeft(port: number, boundMs = 10_000): Promise<boolean> {
  for (const until = Date.now() + boundMs; establishedOn(port) > 0; await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > until) return false;
  }
  return true;
}

describe("run() in workerd", () => {
  it("runs one turn, streams its events, answers final() and closes its session before answering", async () => {
    const response = await mf.dispatchFetch("http://worker.local/?prompt=Hello%20from%20a%20Worker");
    const body = (await response.json()) as {
      ok: boolean;
      kinds: string[];
      text: string;
      stopped: boolean;
      message?: string;
    };
    expect(body.ok, body.message).toBe(true);
    expect(body.kinds).toContain("thought");
    expect(body.kinds).toContain("toolResult");
    expect(body.kinds.at(-1)).toBe("turnComplete");
    expect(body.text).toContain("Cloudflare-Workers"); // the client tool ran inside workerd
    expect(body.stopped).toBe(true);
    expect(await noConnectionLeft(harness.port)).toBe(true);
  });

  it("reports a wrong key from final(), leaving no connection", async () => {
    const wrong = new Miniflare({
      modules: true,
      script,
      compatibilityDate: "2026-04-01",
      bindings: { HARNESS_URL: harness.url, HARNESS_API_KEY: "not-the-key" },
    });
    try {
      const body = (await (await wrong.dispatchFetch("http://worker.local/?prompt=hi")).json()) as {
        ok: boolean;
        code: string;
      };
      expect(body).toMatchObject({ ok: false, code: "PermissionDenied" });
    } finally {
      await wrong.dispose();
    }
    expect(await noConnectionLeft(harness.port)).toBe(true);
  });
});
