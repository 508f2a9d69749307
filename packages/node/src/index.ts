/**
 * The Node edge of the Antigravity TypeScript SDK: everything of `@antigravity-ts/sdk` (its own
 * `Agent`, with Node's defaults registered on import: `start()` starts the harness as a
 * subprocess), the {@link SubprocessTransport} itself, and {@link createHarnessGateway} for
 * browser pages. One import for Node users.
 * @module
 */
import { registerAgentDefaults, registerWebSocketAdapter } from "@antigravity-ts/sdk/internal";
import { nodeAgentDefaults } from "./agent.js";
import { wsWebSocketAdapter } from "./socket/ws-adapter.js";

registerAgentDefaults(nodeAgentDefaults());
registerWebSocketAdapter(wsWebSocketAdapter());

export * from "@antigravity-ts/sdk";
export * from "@antigravity-ts/sdk/connection";
export * from "@antigravity-ts/sdk/continuation";
export { nodeAgentDefaults, prewarmHarness, subprocessTransportFactory, type PrewarmOptions } from "./agent.js";
export { PrewarmedHarness } from "./subprocess/prewarmed-harness.js";
export { defaultAppDataDir, resolveLocalPath } from "./local-path.js";
export {
  SubprocessTransport,
  SubprocessChannel,
  createSubprocessTransport,
  type ClientInfoInit,
  type HarnessHandshake,
  type SubprocessTransportOptions,
} from "./subprocess/subprocess-transport.js";
export {
  HARNESS_PATH_ENV,
  LOCALHARNESS_BINARY,
  discoverHarnessBinary,
  findBundledHarness,
  type DiscoverHarnessOptions,
  type HarnessBinary,
  type HarnessSource,
} from "./subprocess/discover-harness.js";
export type { HarnessExit } from "./subprocess/harness-process.js";
export { wsWebSocketAdapter, type WsWebSocketAdapterOptions, type WsWebSocketClass } from "./socket/ws-adapter.js";
export { connectHarnessSocket, type ConnectHarnessSocketOptions } from "./socket/connect-harness-socket.js";
export {
  createHarnessGateway,
  type HarnessGateway,
  type HarnessGatewayOptions,
  type HarnessGatewayTarget,
} from "./gateway/harness-gateway.js";
export { GATEWAY_TOKEN_PROTOCOL_PREFIX, type OriginPolicy, type TokenPolicy } from "./gateway/gateway-auth.js";
export { GatewayCloseCode } from "./gateway/gateway-relay.js";
export { DEFAULT_GATEWAY_TOOLS } from "./gateway/gateway-defaults.js";
export type { GatewayRuleTarget, GatewaySessionOptions, PageIdentity } from "./gateway/gateway-session.js";
export type { GatewayLogSink } from "./gateway/gateway-log.js";
export {
  createFileConversationStore,
  type FileConversationStore,
  type FileConversationStoreOptions,
} from "./storage/file-store.js";
export { onFileChange, type FileChangeCallback, type OnFileChangeOptions } from "./triggers/on-file-change.js";
export {
  createInteractionsRoute,
  type InteractionsRoute,
  type InteractionsRouteOptions,
} from "./hosted/interactions-route.js";
