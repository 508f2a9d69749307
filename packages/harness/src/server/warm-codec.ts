import { decodeInitFrame, encodeOutputFrame } from "@antigravity-ts/sdk/internal";

/**
 * An `InitializeConversationEvent` shaped like the ones clients send (the SDK's `Agent.start()`
 * sends this with the tool switches and a policy): nested messages, enums by name, a list.
 */
const TYPICAL_INIT_FRAME = JSON.stringify({
  config: {
    cascadeId: "",
    harnessSideTools: { find: { enabled: true }, runCommand: { enabled: true, maxTimeoutMs: 0, enableDaemonCommands: false }, viewFile: { enabled: true } },
    compactionThreshold: 0,
    policyConfig: { rules: [{ tool: "*", name: "allow_all", decision: "POLICY_DECISION_ALLOW", isDynamic: false, ruleId: "" }] },
    agentBehavior: "AGENT_BEHAVIOR_AUTONOMOUS",
  },
});

/**
 * Reads the clock output frames are stamped with, decodes one typical init frame and encodes one
 * init response, on no session, once the harness waits for its first client (after the stdio
 * handshake reply, or once listening). The frame codec
 * builds its per-type plans and V8 compiles it on first use: measured 5–20 ms on a loaded 2-core
 * machine for the first real init frame, 0.1–0.2 ms after this. Done here, that time falls while
 * the client opens its WebSocket (or, for a prewarmed harness, long before `start()`), not
 * between the client's init frame and its answer. A failure is ignored: real frames report their own.
 */
export function warmSessionCodec(): void {
  setImmediate(() => {
    Promise.resolve()
      // Node's global `performance` loads node:perf_hooks on first use (1–2 ms measured); every output frame is stamped with it.
      .then(() => performance.now())
      .then(() => decodeInitFrame(TYPICAL_INIT_FRAME))
      .then(() =>
        encodeOutputFrame({ seqNum: 1n, timestampMicros: 0n, event: { case: "initializeConversationResponse", value: { cascadeId: "", history: [], cumulativeUsage: {}, trajectoryUsage: [] } } }),
      )
      .catch(() => undefined);
  });
}
