import { WebSocketTransport } from "@antigravity-ts/sdk";
import { defineE2ESuite, startListeningHarness } from "@antigravity-ts/test-kit";

// One listening harness (`antigravity-harness --listen 127.0.0.1:0`) serves every test's session.
defineE2ESuite("WebSocketTransport", async (context) => {
  const harness = await context.shared(
    "listening-harness",
    () =>
      startListeningHarness({ env: context.harnessEnv, workspace: context.workspace, apiKey: "e2e-key-0123456789" }),
    (h) => h.stop(),
  );
  return new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey });
});
