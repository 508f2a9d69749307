import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, subprocessTransportFactory, type Logger } from "@antigravity-ts/node";
import { harnessEnv, harnessExecutable, killAllHarnesses } from "@antigravity-ts/test-kit";

// Issue 12 item 5: the agent's `logger` receives the stderr lines of the harness the Node
// subprocess transport starts, and a transport's own `onStderr` is not needed for it.

const SCRIPT = fileURLToPath(new URL("./scripts/telemetry-script.json", import.meta.url));
const BOUND_MS = 20_000;

describe("logger and the harness subprocess", () => {
  let dir = "";
  let harnessPath = "";

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "antigravity-harness-logger-"));
    // Imported into the harness before it starts: one known line on its stderr.
    const preload = path.join(dir, "stderr-line.mjs");
    await writeFile(preload, 'process.stderr.write("harness-logger-marker: before start\\n");\n');
    harnessPath = await harnessExecutable("source", [preload]);
  });

  afterAll(async () => {
    await killAllHarnesses();
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  it("routes every complete stderr line of the harness to logger.info, prefixed `harness: `", async () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: (message) => lines.push(`debug ${message}`),
      info: (message) => lines.push(`info ${message}`),
      warn: (message) => lines.push(`warn ${message}`),
      error: (message) => lines.push(`error ${message}`),
    };
    const env = harnessEnv(SCRIPT);
    const agent = await Agent.builder()
      .transport(
        subprocessTransportFactory({
          harnessPath,
          env: { ANTIGRAVITY_MODEL_PROVIDER: env.ANTIGRAVITY_MODEL_PROVIDER ?? "scripted", ANTIGRAVITY_SCRIPT: SCRIPT },
        }),
      )
      .workspaces(dir)
      .logger(logger)
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS });
    try {
      expect((await agent.chatToCompletion("hello", { timeoutMs: BOUND_MS })).text).toBe("Fallback answer.");
      expect(lines).toContain("info harness: harness-logger-marker: before start");
    } finally {
      await agent.stop();
    }
  });
});
