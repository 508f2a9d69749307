// The agent's client tools offered to an ACP agent as an MCP server the SDK hosts (ACP has no
// client-declared functions; an agent takes MCP servers in `session/new`'s `mcpServers`). This is
// the runtime-free part: the minimal MCP server, JSON-RPC 2.0 messages in and out, per the MCP
// specification 2025-06-18 (modelcontextprotocol.io/specification/2025-06-18: basic/lifecycle
// `initialize` { protocolVersion, capabilities, clientInfo } → { protocolVersion, capabilities,
// serverInfo }, `notifications/initialized`; basic/utilities/ping; server/tools `tools/list` →
// { tools: [{ name, description, inputSchema }] }, `tools/call` { name, arguments } → { content,
// isError }, an unknown tool a -32602 error; JSON-RPC batches removed in that version). The
// version is Gemini CLI 0.61's MCP client's LATEST_PROTOCOL_VERSION. The endpoint carrying the
// messages is the host's (`@antigravity-ts/node`: `loopbackMcpHost()`, HTTP on loopback with a
// per-session bearer token).
import type * as acp from "@agentclientprotocol/sdk";
import type { ToolCall } from "../step.js";
import type { ClientToolResult, ToolRunner } from "../tools/tool-runner.js";
import { base64 } from "./acp-base64.js";

/** The MCP versions the server speaks; the first is answered when the client asks for another. */
export const MCP_PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** A JSON-RPC 2.0 answer of the MCP server. */
export type McpResponse =
  | { jsonrpc: "2.0"; id: string | number | null; result: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string } };

/** Answers one JSON-RPC message (already parsed): a response, or undefined for a notification. */
export type McpMessageHandler = (message: unknown) => Promise<McpResponse | undefined>;

/**
 * Where the SDK serves the client tools of one ACP session (`acpAgent({ toolHost })`): it carries
 * `handle` (e.g. over HTTP) and says, as ACP's `McpServer` (`McpServerHttp { type: "http", name,
 * url, headers }` of `@agentclientprotocol/sdk` 2.4 types.gen.d.ts), how the agent reaches it.
 * `close()` ends it when the session closes.
 */
export interface AcpToolHost {
  /** The ACP MCP transport the host serves (checked against the agent's `agentCapabilities.mcpCapabilities`). */
  readonly transport: "http" | "sse";
  serve(handle: McpMessageHandler): Promise<{ server: acp.McpServer; close(): Promise<void> }>;
}

/** The MCP server's name: what the agent shows, and how Gemini CLI prefixes the tools (`mcp_antigravity_<tool>`). */
export const CLIENT_TOOLS_SERVER_NAME = "antigravity";

/**
 * The MCP server of the client tools: `tools/list` from the runner's declarations, `tools/call`
 * through `call` (the connection: the agent's policies, then the runner, with synthetic steps).
 */
export function mcpToolHandler(
  tools: ToolRunner,
  call: (call: ToolCall) => Promise<ClientToolResult>,
): McpMessageHandler {
  let calls = 0;
  return async (message) => {
    if (Array.isArray(message)) return failure(null, -32600, "JSON-RPC batches are not part of MCP 2025-06-18");
    if (typeof message !== "object" || message === null) return failure(null, -32600, "not a JSON-RPC message");
    const { jsonrpc, id, method, params } = message as Record<string, unknown>;
    if (jsonrpc !== "2.0" || typeof method !== "string") {
      // A response (the server sends no request) or garbage: nothing to answer unless it has an id.
      return id === undefined ? undefined : failure(rpcId(id), -32600, "not a JSON-RPC 2.0 request");
    }
    if (id === undefined) return undefined; // a notification (notifications/initialized, cancelled ...)
    const requestId = rpcId(id);
    const args = typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
    switch (method) {
      case "initialize": {
        const asked = args["protocolVersion"];
        const protocolVersion = MCP_PROTOCOL_VERSIONS.find((v) => v === asked) ?? MCP_PROTOCOL_VERSIONS[0];
        return success(requestId, {
          protocolVersion,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: CLIENT_TOOLS_SERVER_NAME, version: "1.0.0" },
        });
      }
      case "ping":
        return success(requestId, {});
      case "tools/list":
        return success(requestId, {
          tools: tools.declarations().map((tool) => ({
            name: tool.name,
            description: tool.description ?? "",
            inputSchema: JSON.parse(tool.parametersJsonSchema ?? "{}") as unknown,
          })),
        });
      case "tools/call": {
        const name = args["name"];
        if (typeof name !== "string" || !tools.has(name))
          return failure(requestId, -32602, `Unknown tool: ${JSON.stringify(name)}`);
        const input = args["arguments"] ?? {};
        if (typeof input !== "object" || input === null || Array.isArray(input))
          return failure(requestId, -32602, "tools/call arguments must be an object");
        const result = await call({ id: `client-tool-${++calls}`, name, args: input });
        return success(requestId, callToolResult(result));
      }
      default:
        return failure(requestId, -32601, `method not found: ${method}`);
    }
  };
}

/** `CallToolResult { content, isError }`: the result's JSON as text, media as image/audio content, an error as `isError`. */
function callToolResult(result: ClientToolResult): Record<string, unknown> {
  if (result.error !== undefined) return { content: [{ type: "text", text: result.error }], isError: true };
  const content: Record<string, unknown>[] = [{ type: "text", text: JSON.stringify(result.result ?? null) }];
  for (const media of result.media ?? []) {
    const type = media.mimeType.startsWith("image/") ? "image" : media.mimeType.startsWith("audio/") ? "audio" : "";
    if (type !== "") content.push({ type, mimeType: media.mimeType, data: base64(media.data) });
  }
  return { content, isError: false };
}

function rpcId(id: unknown): string | number | null {
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function success(id: string | number | null, result: Record<string, unknown>): McpResponse {
  return { jsonrpc: "2.0", id, result };
}

function failure(id: string | number | null, code: number, message: string): McpResponse {
  return { jsonrpc: "2.0", id, error: { code, message } };
}
