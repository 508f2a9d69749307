import { SubprocessTransport } from "@antigravity-ts/node";
import { defineE2ESuite } from "../node/e2e/e2e-suite.js";
import { harnessExecutable } from "../node/e2e/harness-launcher.js";

// test/node/e2e again, against the rollup output: @antigravity-ts/node resolves to packages/node/dist
// (its "node" condition) and each session spawns packages/harness/dist/bin.js over stdio.
defineE2ESuite("SubprocessTransport (built)", async (context) => {
  const harnessPath = await context.shared("built-harness-executable", () => harnessExecutable("dist"), async () => undefined);
  return new SubprocessTransport({ harnessPath, env: context.harnessEnv });
});
