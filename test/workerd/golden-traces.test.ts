import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCENARIOS, USER_SCENARIO, withChangedToolResult, type TraceScenario } from "../traces/scenarios.js";
import { bundleWorker } from "./bundle-worker.js";

// The golden traces in real workerd (miniflare): a Worker bundled from the built SDK with the
// workerd conditions runs each scenario of test/traces/scenarios.ts over replayTransport, the
// trace coming in the request's body. No harness, no socket, no nodejs_compat.

interface RunResult {
  ok: boolean;
  error?: string;
  runtime: string;
}

const read = (scenario: TraceScenario): string =>
  readFileSync(new URL(`../traces/localharness/${scenario.name}.ndjson`, import.meta.url), "utf8");

let worker: Miniflare;

async function run(scenario: TraceScenario, trace: string): Promise<RunResult> {
  const response = await worker.dispatchFetch(`http://replay.local/?scenario=${scenario.name}`, {
    method: "POST",
    body: trace,
  });
  return (await response.json()) as RunResult;
}

beforeAll(async () => {
  const script = await bundleWorker("test/workerd/replay-worker.ts");
  expect(script).not.toContain("node:");
  worker = new Miniflare({ modules: true, script, compatibilityDate: "2026-04-01" });
  await worker.ready;
});

afterAll(async () => {
  await worker?.dispose();
});

describe("the golden traces in workerd", () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))("%s replays", async (_name, scenario) => {
    expect(await run(scenario, read(scenario))).toEqual({ ok: true, runtime: "Cloudflare-Workers" });
  });

  it(`a user's test replaying ${USER_SCENARIO.description} fails with the diff once one client frame of the trace changed`, async () => {
    const result = await run(USER_SCENARIO, withChangedToolResult(read(USER_SCENARIO)));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      /^replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame 3 of \d+, toolResponse, t=[\d.]+ ms\):/,
    );
    expect(result.error).toContain(
      'at toolResponse.responseJson: differs\n    expected: "{\\"sum\\":6}"\n    got:      "{\\"sum\\":5}"',
    );
  });
});
