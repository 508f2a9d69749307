/**
 * Wire → SDK mapping (protocol §6.4, §14, §16): turns decoded `StepUpdate`s into `Step`s,
 * wire usage into plain-number `UsageMetadata`, and wire stop reasons into
 * `StopReason`s. Pure functions; no I/O.
 * @module
 */
export { stepFromUpdate, stepIdOf } from "./step-from-update.js";
export { toolCallsFromUpdate, hasToolAction } from "./tool-calls-from-update.js";
export { parseToolArguments, toolCallArguments, type NonObjectArguments } from "./tool-arguments.js";
export {
  canonicalToolCall,
  sdkToolName,
  toolCallFromPreToolArgs,
  type RawToolCall,
  type ToolCallOrigin,
} from "./canonical-tool-call.js";
export { normalizeWirePath, normalizePathArguments, WIRE_PATH_ARGUMENT_KEYS } from "./file-uri.js";
export { usageFromWire, stopReasonFromWire } from "./usage-from-wire.js";
