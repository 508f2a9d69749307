/**
 * ACP agents as subprocesses (docs/acp.md): `acpAgent({ command, args, env, cwd })`, `createAcpBridge(...)` (pages drive
 * a server-side agent over a WebSocket), and the core's
 * ACP wire re-exported.
 * @module
 */
export * from "@antigravity-ts/sdk/acp";
export { AcpProcess, acpAgent, type AcpProcessOptions } from "./acp-agent.js";
export { createAcpBridge, type AcpBridge, type AcpBridgeOptions } from "./acp-bridge.js";
export { loopbackMcpHost, type LoopbackMcpHostOptions } from "./loopback-mcp-host.js";
