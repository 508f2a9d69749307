/**
 * Lifecycle hooks: the `Hook` interface and the `HookRunner` that answers the harness's
 * `callHookRequest`s (protocol §10).
 * @module
 */
export type {
  Awaitable,
  CompactionEvent,
  Hook,
  HookDecision,
  HookLocation,
  HookToolCall,
  HookToolError,
  HookToolResult,
  PreToolDecision,
  Question,
  StopArgs,
  StopResult,
} from "./hook.js";
export { HookContext, HookContexts, type HookScope, type HookState } from "./hook-context.js";
export { DEFAULT_COMPACTION_SUMMARY, HookRunner, type PreToolOutcome } from "./hook-runner.js";
