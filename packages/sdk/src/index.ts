export * from "./step.js";
export type { CallOptions } from "./call-options.js";
export type { Prompt, PromptPart } from "./prompt.js";
export * from "./errors.js";
export type * from "./connection/connection.js";
export * from "./conversation/index.js";
export * from "./session/index.js";
export * from "./continuation/index.js";
export * from "./agent/index.js";
export * from "./config/index.js";
export { createHarnessConnection, HarnessConnection } from "./connection/harness-connection.js";
export type { ConfirmTool, HarnessConnectionOptions } from "./connection/harness-connection-options.js";
export { isSyntheticToolStep } from "./connection/synthetic-steps.js";
export type { ReconnectOptions, ReconnectedEvent, ReconnectPolicy } from "./transport/reconnect.js";
export { Turn, UsageMark, type TurnEntry, type TurnObserver, type TurnOptions, type TurnOutcome, type TurnRecorder } from "./connection/turn.js";
export * from "./hooks/index.js";
export * from "./policies/index.js";
export * from "./tools/index.js";
export * from "./triggers/index.js";
export * from "./telemetry/index.js";
export { GenAiAttributes, SessionTelemetry, type SessionTelemetryOptions, type TelemetrySource } from "./connection/session-telemetry.js";
export * from "./transcript/index.js";
export {
  WebSocketTransport,
  readEnvironment,
  type WebSocketConnector,
  type WebSocketConstructor,
  type WebSocketEventLike,
  type WebSocketLike,
  type WebSocketPeerClose,
  type WebSocketTransportOptions,
} from "./transport/websocket-transport.js";
export { whatwgWebSocketAdapter, type WebSocketAdapter } from "./transport/websocket-adapter.js";
export type { ConnectStage, Refusal } from "./transport/websocket-errors.js";
export { createChannelPair, createInMemoryTransport, type InMemoryChannel } from "./transport/in-memory.js";
export { fetchUpgradeWebSocket, type FetchUpgradeOptions } from "./transport/fetch-upgrade.js";
export type { Channel, Transport } from "./transport/transport.js";
