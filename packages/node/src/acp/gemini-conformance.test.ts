import { ACP_CAPABILITIES, AcpConnection } from "@antigravity-ts/sdk/acp";
import type { ConformancePlay } from "@antigravity-ts/sdk/testing";
import {
  defineConnectionConformance,
  GEMINI_ROUTER,
  geminiScratch,
  geminiStream,
  geminiText,
  geminiUsage,
} from "@antigravity-ts/test-kit";
import { AcpProcess } from "./index.js";

// The connection conformance kit against a real third-party ACP agent: Gemini CLI 0.61 `--acp`,
// offline, one process per check answering from canned model responses prepared from the check's
// plays (Gemini CLI reads them in strict order, one router call and one streamed call per turn).
// Its fake model streams a response at once, so it has no "slow" turn, and it answers
// session/prompt after its last update, so no "late" one: the checks that need those are skipped.

/** The canned model calls of each play Gemini CLI can play. */
const PLAY_LINES: Partial<Record<ConformancePlay, unknown[]>> = {
  text: [
    GEMINI_ROUTER,
    geminiStream(geminiText("Hello from "), {
      ...geminiText("Gemini CLI, in two chunks.", { finishReason: "STOP" }),
      ...geminiUsage(7, 4),
    }),
  ],
  // A stream that ends without a finish reason is invalid: Gemini CLI has streamed its text and
  // retries the call, which meets the next line, a router answer, and fails the prompt (JSON-RPC 500).
  failing: [GEMINI_ROUTER, geminiStream(geminiText("About to fail in the middle. ")), GEMINI_ROUTER],
};

defineConnectionConformance(
  "AcpConnection against Gemini CLI 0.61 --acp (offline, canned responses)",
  ACP_CAPABILITIES,
  async (check) => {
    const g = geminiScratch(check.plays.flatMap((play) => PLAY_LINES[play] ?? []));
    const agent = await AcpProcess.spawn(g.options.command, g.options.args, {
      env: g.options.env,
      cwd: g.workspace,
      onStderr: undefined,
    });
    const connection = await AcpConnection.open({
      stream: agent.stream,
      cwd: g.workspace,
      confirmTool: () => true,
      initializeTimeoutMs: g.options.initializeTimeoutMs,
      describeFailure: (error) => agent.describe(error),
      release: () => agent.shutdown(2_000),
    });
    return {
      connection,
      prompt: (play) => `conformance ${play} turn`,
      waitMs: 60_000,
      close: async () => {
        await connection.disconnect();
        await agent.shutdown(2_000);
        g.remove();
      },
    };
  },
  { playable: ["text", "failing"] },
);
