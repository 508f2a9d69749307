import { WebSocketTransport } from "@antigravity-ts/sdk";
import { defineE2ESuite, startListeningHarness } from "@antigravity-ts/test-kit";

// test/node/e2e again, against the rollup output: @antigravity-ts/sdk resolves to packages/sdk/dist
// (vitest.built.config.ts has no "antigravity-source" condition) and the harness is packages/harness/dist/bin.js.
defineE2ESuite("WebSocketTransport (built)", async (context) => {
  const harness = await context.shared(
    "built-listening-harness",
    () =>
      startListeningHarness({
        env: context.harnessEnv,
        workspace: context.workspace,
        apiKey: "built-e2e-key-0123456789",
        build: "dist",
      }),
    (h) => h.stop(),
  );
  return new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey });
});
