/**
 * Assembly of the session's `HarnessConfig` from the agent's options (protocol §5.1, §11.1).
 * @module
 */
export {
  BUILTIN_TOOL_SWITCH,
  BuiltinTool,
  DEFAULT_TOOLS,
  MINIMAL_TOOLS,
  WRITE_TOOLS,
  activeBuiltinTools,
  builtinToolsOf,
  harnessSideTools,
  type CapabilitiesOptions,
} from "./builtin-tools.js";
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
} from "./harness-config.js";
export type { SystemInstructionsOption } from "./system-instructions.js";
export type { AgentPreset, EvalPresetOptions } from "./presets.js";
export {
  THINKING_LEVELS,
  type GeminiModelOptions,
  type ModelApiRetryOptions,
  type ModelOutputRetryOptions,
  type RetryOptions,
  ThinkingLevel,
  type VertexOptions,
} from "./model-options.js";
export {
  customSubagentsConfig,
  subagentOnlyTools,
  validateSubagents,
  type SubagentBehavior,
  type SubagentCapabilitiesOptions,
  type SubagentOptions,
} from "./custom-subagents.js";
export { vertexFromEnvironment, type EnvironmentLookup } from "./vertex-environment.js";
export { assertAppDataDir, isAbsolutePath, normalizeWorkspacePath, type LocalPathResolver } from "./workspace-path.js";
