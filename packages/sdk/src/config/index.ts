/**
 * Assembly of the session's `HarnessConfig` from the agent's options (protocol §5.1, §11.1).
 * @module
 */
export { BuiltinTool, WRITE_TOOLS, activeBuiltinTools, harnessSideTools, type CapabilitiesOptions } from "./builtin-tools.js";
export {
  DEFAULT_MODEL,
  buildHarnessConfig,
  type AgentBehaviorOption,
  type BudgetOptions,
  type BudgetScopeOption,
  type CompactionOptions,
  type HarnessConfigOptions,
  type HarnessConfigRunners,
  type SessionContinuationMode,
  type SystemInstructionsOption,
} from "./harness-config.js";
