/**
 * Lifecycle hooks: the `Hook` interface and its contexts (protocol §10). The `HookRunner` that
 * answers the harness's `callHookRequest`s is in `@antigravity-ts/sdk/connection`.
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
