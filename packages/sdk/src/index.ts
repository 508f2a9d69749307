export * from "./step.js";
export type { CallOptions } from "./call-options.js";
export type { Prompt, PromptPart } from "./prompt.js";
// `declare global` of AsyncDisposable for consumers on older libs; a declarations file, kept in the published types by this export.
export type { AsyncDisposableLike } from "./global-disposable.js";
export * from "./errors.js";
export type * from "./connection/connection.js";
export * from "./conversation/index.js";
export * from "./session/index.js";
// Continuations' functions live in `@antigravity-ts/sdk/continuation` (loaded by a paused turn and
// `agent.resume()` on first use, so an app that never pauses does not download them); their types are here too.
export type {
  Continuation,
  ContinuationPayload,
  ContinuationSecret,
  PendingToolCall,
  WebCryptoKey,
} from "./continuation/index.js";
export * from "./agent/index.js";
export * from "./config/index.js";
// The protocol layer (createHarnessConnection and its runners) is `@antigravity-ts/sdk/connection`.
export type { HarnessConnection } from "./connection/harness-connection.js";
export type {
  ClientToolResult,
  PreToolOutcome,
  SessionTelemetry,
  SessionTelemetryOptions,
  TelemetrySource,
  TriggerRunnerOptions,
} from "./connection/index.js";
export type { ConfirmTool, HarnessConnectionOptions } from "./connection/harness-connection-options.js";
export { isSyntheticToolStep } from "./connection/synthetic-steps.js";
export type { ReconnectOptions, ReconnectedEvent, ReconnectPolicy } from "./transport/reconnect.js";
export {
  Turn,
  UsageMark,
  type TurnEntry,
  type TurnObserver,
  type TurnOptions,
  type TurnOutcome,
  type TurnRecorder,
} from "./connection/turn.js";
export * from "./hooks/index.js";
export * from "./policies/index.js";
export * from "./tools/index.js";
export * from "./triggers/index.js";
export * from "./telemetry/index.js";
export * from "./transcript/index.js";
export {
  WebSocketTransport,
  readEnvironment,
  type WebSocketConnector,
  type WebSocketTransportOptions,
} from "./transport/websocket-transport.js";
export type {
  WebSocketConstructor,
  WebSocketEventLike,
  WebSocketLike,
  WebSocketPeerClose,
} from "./transport/websocket-like.js";
export { whatwgWebSocketAdapter, type WebSocketAdapter } from "./transport/websocket-adapter.js";
export type { ConnectStage, Refusal } from "./transport/websocket-errors.js";
export { createChannelPair, createInMemoryTransport, type InMemoryChannel } from "./transport/in-memory.js";
export { fetchUpgradeWebSocket, type FetchUpgradeOptions } from "./transport/fetch-upgrade.js";
export type { Channel, Transport } from "./transport/transport.js";
