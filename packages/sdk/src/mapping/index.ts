/**
 * Wire → SDK mapping (protocol §6.4, §14, §16): turns decoded `StepUpdate`s into `Step`s,
 * wire usage into plain-number `UsageMetadata`, and wire stop reasons into
 * `StopReason`s. Pure functions; no I/O.
 * @module
 */
export { stepFromUpdate, stepIdOf } from "./step-from-update.js";
export { toolCallsFromUpdate, hasToolAction, parseArguments } from "./tool-calls-from-update.js";
export { normalizeWirePath, normalizePathArguments, WIRE_PATH_ARGUMENT_KEYS } from "./wire-path.js";
export { usageFromWire, stopReasonFromWire } from "./usage-from-wire.js";
