/**
 * The agent: a builder with a type-level lifecycle, and the started session (antigravity-api.md §2.2).
 * @module
 */
export { Agent, StartedAgent } from "./agent.js";
export {
  AgentBuilder,
  type BuilderState,
  type CallAllowAllReadOnlyOrPoliciesBeforeBuild,
  type OutputOf,
  type PolicyOf,
  type ResponseOutput,
} from "./agent-builder.js";
export { run, type RunOptions, type RunResult } from "./run.js";
export type {
  AgentBuilderDefaults,
  AgentOptions,
  AgentOptionsWithPolicy,
  ClientInfo,
  TransportContext,
  TransportFactory,
} from "./agent-options.js";
export { SDK_VERSION, clientInfo } from "./client-info.js";
export type { ResumeDecision, ResumedTurn } from "./resume.js";
export {
  localHarness,
  type ConnectionRequest,
  type ConnectionStrategy,
  type LocalHarnessOptions,
} from "./connection-strategy.js";
export type { ConnectionCapabilities, HookKind } from "../connection/capabilities.js";
