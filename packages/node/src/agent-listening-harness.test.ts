import { afterEach, describe, expect, it } from "vitest";
import { Agent, subprocessTransportFactory } from "./index.js";
import { killAllHarnesses, startListeningHarness } from "@antigravity-ts/test-kit";
import { liveChildCount } from "./subprocess/child-registry.js";

// Issue 12 item 3: the Node Agent connects to the harness ANTIGRAVITY_HARNESS_HOST/PORT name
// instead of silently starting a subprocess (a real listening reference harness, real socket).

const NAMES = ["ANTIGRAVITY_HARNESS_HOST", "ANTIGRAVITY_HARNESS_PORT", "ANTIGRAVITY_API_KEY"] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));

afterEach(async () => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await killAllHarnesses();
});

describe("Node Agent and ANTIGRAVITY_HARNESS_HOST/PORT", () => {
  it("connects to the listening harness the environment names and starts no subprocess", async () => {
    const harness = await startListeningHarness({
      env: { PATH: process.env["PATH"] ?? "", ANTIGRAVITY_MODEL_PROVIDER: "scripted" },
    });
    process.env["ANTIGRAVITY_HARNESS_HOST"] = "127.0.0.1";
    process.env["ANTIGRAVITY_HARNESS_PORT"] = String(harness.port);
    process.env["ANTIGRAVITY_API_KEY"] = harness.apiKey;
    const agent = await Agent.builder().allowAll().build().start({ timeoutMs: 20_000 });
    try {
      expect(liveChildCount()).toBe(0); // no harness of our own
      const response = await agent.chatToCompletion("Hello there", { timeoutMs: 20_000 });
      expect(response.text).toContain("scripted demo model");
    } finally {
      await agent.stop();
    }
    // The listening harness saw our session: it logs each session it opens.
    expect(harness.stderr()).toMatch(/session/);
  }, 60_000);

  it("a harness path given to the transport factory still wins over the environment", async () => {
    process.env["ANTIGRAVITY_HARNESS_PORT"] = "9"; // nothing listens there
    const missing = "/nonexistent/antigravity-dx/localharness";
    const error = await Agent.builder()
      .transport(subprocessTransportFactory({ harnessPath: missing }))
      .allowAll()
      .build()
      .start({ timeoutMs: 20_000 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String((error as Error).message)).toContain(`harness binary not found at ${missing}`);
  }, 60_000);
});
