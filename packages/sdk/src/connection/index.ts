/**
 * The protocol layer for sessions assembled by hand (docs/agent.md, "Without Agent"):
 * `createHarnessConnection` and the runners it takes — client tools, hooks, triggers — and the
 * OpenTelemetry session spans. `Agent` builds these itself and loads the hook, trigger and
 * telemetry code only when an agent has them, which is why they are not exported from the root
 * (a browser app without them does not download them; docs/bundle-size.md). Here too: the
 * protocol layer's types — `Turn` and its entries, observers and recorders, the connection's
 * options — which the root leaves out (it exports the user's nouns).
 * @module
 */
export { createHarnessConnection, HarnessConnection } from "./harness-connection.js";
export { ToolRunner, toToolResponse, type ClientToolResult } from "../tools/tool-runner.js";
export { DEFAULT_COMPACTION_SUMMARY, HookRunner, type PreToolOutcome } from "../hooks/hook-runner.js";
export { TriggerRunner, type TriggerRunnerOptions } from "../triggers/trigger-runner.js";
export {
  GenAiAttributes,
  SessionTelemetry,
  type SessionTelemetryOptions,
  type TelemetrySource,
} from "./session-telemetry.js";
export { LOCALHARNESS_CAPABILITIES, type ConnectionCapabilities, type HookKind } from "./capabilities.js";
export type { ConfirmDecision, ConfirmTool, HarnessConnectionOptions } from "./harness-connection-options.js";
export {
  Turn,
  UsageMark,
  type PausedConfirmation,
  type TurnEntry,
  type TurnObserver,
  type TurnOptions,
  type TurnRecorder,
} from "./turn.js";
