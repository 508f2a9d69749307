import { SubprocessTransport } from "@antigravity-ts/node";
import { defineE2ESuite, harnessExecutable } from "@antigravity-ts/test-kit";

// Each session spawns its own harness over stdio, as with the real `localharness` binary.
defineE2ESuite("SubprocessTransport", async (context) => {
  const harnessPath = await context.shared("harness-executable", harnessExecutable, async () => undefined);
  return new SubprocessTransport({ harnessPath, env: context.harnessEnv });
});
