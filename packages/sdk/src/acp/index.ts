/**
 * The Agent Client Protocol wire (docs/acp.md): `acpAgent({ stream })` makes any ACP agent the
 * runtime of an `Agent`, over any duplex of JSON-RPC messages. Built on `@agentclientprotocol/sdk`
 * (stable ACP v1). In its own entry so the start-up bundle of the localharness path does not grow.
 * @module
 */
export { ACP_CAPABILITIES, acpAgent, type AcpAgentOptions } from "./acp-agent.js";
export { acpWebSocketStream, type AcpWebSocketStreamOptions } from "./acp-websocket-stream.js";
export { AcpConnection, type AcpConnectionOptions, type AcpFileSystem } from "./acp-connection.js";
export type { AcpSessionEvent, AcpToolCallDetails } from "./acp-steps.js";
export {
  CLIENT_TOOLS_SERVER_NAME,
  MCP_PROTOCOL_VERSIONS,
  mcpToolHandler,
  type AcpToolHost,
  type McpMessageHandler,
  type McpResponse,
} from "./acp-mcp-tools.js";
export {
  MAX_TERMINALS_PER_SESSION,
  commandLineOf,
  type AcpTerminal,
  type AcpTerminalExit,
  type AcpTerminalRequest,
  type AcpTerminals,
} from "./acp-terminals.js";
