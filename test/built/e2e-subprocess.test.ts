import { SubprocessTransport } from "@antigravity-ts/node";
import { defineE2ESuite, harnessExecutable } from "@antigravity-ts/test-kit";

// test/node/e2e again, against the rollup output: @antigravity-ts/node resolves to packages/node/dist
// (its "node" condition) and each session spawns packages/harness/dist/bin.js over stdio.
defineE2ESuite("SubprocessTransport (built)", async (context) => {
  const harnessPath = await context.shared(
    "built-harness-executable",
    () => harnessExecutable("dist"),
    async () => undefined,
  );
  return new SubprocessTransport({ harnessPath, env: context.harnessEnv });
});
