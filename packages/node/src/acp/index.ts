/**
 * ACP agents as subprocesses (docs/acp.md): `acpAgent({ command, args, env, cwd })`, and the core's
 * ACP wire re-exported.
 * @module
 */
export * from "@antigravity-ts/sdk/acp";
export { AcpProcess, acpAgent, type AcpProcessOptions } from "./acp-agent.js";
export { loopbackMcpHost, type LoopbackMcpHostOptions } from "./loopback-mcp-host.js";
