/**
 * The reference harness: a localharness-compatible server (protocol.md) with pluggable model
 * providers. Run it as `antigravity-harness` (see docs/harness.md) or embed it with
 * {@link startHarnessServer}.
 * @module
 */
export {
  startHarnessServer,
  DEFAULT_MAX_FRAME_BYTES,
  type HarnessServer,
  type HarnessServerOptions,
} from "./server/server.js";
export { commandEnvironment } from "./tools/command-env.js";
export { runHarnessCli } from "./main.js";
export {
  parseCliArgs,
  CliUsageError,
  USAGE,
  type HarnessCliOptions,
  type ListenModeOptions,
  type ResourceLimitOptions,
  type StdioModeOptions,
} from "./cli-args.js";
export { generateApiKey } from "./server/auth.js";
export { installCrashGuard } from "./crash-guard.js";
export { createLogger, type Logger, type LoggerOptions } from "./log.js";
export {
  createFileSessionStore,
  createMemorySessionStore,
  StorageError,
  type MemorySessionStoreOptions,
  type SessionStore,
  type StoredSession,
} from "./loop/stored-sessions.js";
export { createScriptedProvider, type ScriptedProviderOptions } from "./providers/scripted.js";
export { DEMO_SCRIPT, DEMO_NOTICE } from "./providers/demo-script.js";
export {
  loadScriptFile,
  parseScript,
  ScriptError,
  type ScriptFile,
  type ScriptTurn,
  type ScriptCall,
  type ScriptToolCall,
} from "./providers/script-format.js";
export {
  selectProvider,
  ProviderConfigError,
  DEFAULT_GEMINI_MODEL,
  type ProviderSelection,
  type SelectProviderOptions,
} from "./providers/select-provider.js";
export {
  ModelError,
  type ModelProvider,
  type ModelRequest,
  type ModelEvent,
  type ModelMessage,
  type ModelToolCall,
  type ModelToolResult,
  type ModelUsage,
  type ToolDeclaration,
} from "./model/provider.js";
export {
  createInMemoryHarness,
  type InMemoryHarness,
  type InMemoryHarnessOptions,
} from "./server/in-memory-harness.js";
export {
  startInteractionsEmulator,
  type InteractionsEmulator,
  type InteractionsEmulatorOptions,
  type EmulatedStatus,
} from "./interactions/interactions-server.js";
export { serveAcp, type AcpServer, type AcpServerOptions } from "./acp/acp-server.js";
export { workspaceTextFiles, type WorkspaceTextFilesOptions } from "./acp/workspace-text-files.js";
export { workspaceTerminals, type WorkspaceTerminalsOptions } from "./acp/workspace-terminals.js";
