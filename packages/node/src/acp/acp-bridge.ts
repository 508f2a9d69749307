import type { Server } from "node:http";
import { isAbsolute } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { definedProperties, LogThrottle } from "@antigravity-ts/sdk/internal";
import type { OriginPolicy, TokenPolicy } from "../gateway/gateway-auth.js";
import { remoteAddress, type GatewayLogSink } from "../gateway/gateway-log.js";
import { openPageEndpoint, type PageEndpoint } from "../gateway/page-endpoint.js";
import { SessionOwnership } from "../gateway/session-ownership.js";
import { AcpProcess } from "./acp-agent.js";
import { AcpBridgeRelay } from "./acp-bridge-relay.js";
import { AcpPageRules, type AcpBridgeRules } from "./acp-bridge-rules.js";

/** Options of {@link createAcpBridge}. */
export interface AcpBridgeOptions {
  /** The agent's executable, chosen here, never by a page (a `.js`/`.mjs`/`.cjs` file runs under this Node). */
  command: string;
  args?: readonly string[];
  /** The agent's whole environment (its API keys live here; a page never sees it). Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** The agent's working directory, and every session's `cwd` (a page's own is replaced). */
  cwd: string;
  /** MCP servers every session gets (`session/new`'s `mcpServers`); a page's own are refused. Default none. */
  mcpServers?: readonly McpServer[];
  /** `authenticate` methods a page may pick (e.g. `"gemini-api-key"`, whose key the agent reads from `env`). Default none. */
  authMethodIds?: readonly string[];
  /** Whether a page may serve the agent's `fs/*` or `terminal/*` (`initialize`'s `clientCapabilities`). Default: neither. */
  clientCapabilities?: { fs?: boolean; terminal?: boolean };
  /** Page origins allowed to connect (`Origin` header). Others get HTTP 403. */
  allowedOrigins: OriginPolicy;
  /** The token a page must present (`?token=` or subprotocol `antigravity.token.<token>`), or a verifier. Others get HTTP 401. */
  token: TokenPolicy;
  /** Attach to this server's `upgrade` events instead of listening on a port. */
  server?: Server;
  /** Standalone mode: port (0 = any free port). Default 0. */
  port?: number;
  /** Standalone mode: address to bind. Default `127.0.0.1`. */
  host?: string;
  /** URL path of the endpoint. Default `/acp`. */
  path?: string;
  /** Most pages (each an agent process) at once; more get HTTP 503. Default 8. */
  maxConnections?: number;
  /** Largest frame a page may send, in bytes; a larger one closes that page with 1009. Default 4 MiB. */
  maxFrameBytes?: number;
  /** A page that sends no admitted `initialize` within this time is closed (1008). Default 10 000 ms. */
  initializeTimeoutMs?: number;
  /** How long a page's agent gets after its stdin closes before SIGTERM. Default 2 000 ms. */
  shutdownGraceMs?: number;
  /** Called with each agent process once it runs (its pid, its stderr tail). */
  onProcess?: (agent: AcpProcess) => void;
  /** Where log lines go (refusals, agents that ended), rate-limited per kind. Default: stderr. */
  log?: GatewayLogSink;
}

/** A running bridge: its `url` (standalone mode), `connectionCount` (pages connected now), and
 * `close()`, which refuses new pages, closes every page (1001) and shuts its agent down, and in
 * standalone mode the server. */
export type AcpBridge = PageEndpoint;

/** Node's timeouts for half-sent upgrade requests in standalone mode (as the gateway's default). */
const HEADERS_TIMEOUT_MS = 5_000;

/**
 * A WebSocket endpoint that lets browser pages drive an ACP agent that runs on the server
 * (docs/acp.md, "From a browser"): each page connection gets its own agent process, started with
 * the operator's command, environment and cwd when the page sends `initialize`, and shut down
 * (process group, as `acpAgent({ command })` does) when the page goes. One JSON-RPC message per
 * text frame, both ways; the page's messages are checked first ({@link AcpPageRules}): the
 * operator, not the page, picks the command, the cwd, the MCP servers, the auth methods and the
 * client capabilities, and a page may load only sessions it created. Pages are admitted like the
 * harness gateway's: `Origin`, then a token, then a connection cap; frames are capped in size.
 * The page runs `acpAgent({ stream: () => acpWebSocketStream(url) })` of `@antigravity-ts/sdk/acp`.
 *
 * @example
 * const bridge = await createAcpBridge({
 *   command: "antigravity-harness",
 *   args: ["--acp"],
 *   cwd: "/srv/agent-workspace",
 *   allowedOrigins: ["http://localhost:5173"],
 *   token: process.env.BRIDGE_TOKEN ?? "dev-token",
 *   port: 8788,
 * });
 */
export async function createAcpBridge(options: AcpBridgeOptions): Promise<AcpBridge> {
  const path = options.path ?? "/acp";
  const maxConnections = options.maxConnections ?? 8;
  const maxFrameBytes = options.maxFrameBytes ?? 4 * 1024 * 1024;
  const initializeTimeoutMs = options.initializeTimeoutMs ?? 10_000;
  const shutdownGraceMs = options.shutdownGraceMs ?? 2_000;
  for (const [name, value, least] of [
    ["maxConnections", maxConnections, 1],
    ["maxFrameBytes", maxFrameBytes, 1],
    ["initializeTimeoutMs", initializeTimeoutMs, 1],
    ["shutdownGraceMs", shutdownGraceMs, 0],
  ] as const)
    if (!(Number.isSafeInteger(value) && value >= least))
      throw new SdkError(ErrorCode.InvalidArgument, `${name} must be a whole number >= ${least}, got ${value}`);
  if (!isAbsolute(options.cwd))
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `cwd must be an absolute path (session/new's cwd), got ${options.cwd}`,
    );
  const rules: AcpBridgeRules = {
    cwd: options.cwd,
    mcpServers: options.mcpServers ?? [],
    authMethodIds: options.authMethodIds ?? [],
    clientCapabilities: {
      fs: options.clientCapabilities?.fs === true,
      terminal: options.clientCapabilities?.terminal === true,
    },
  };
  const ownership = new SessionOwnership();
  const log = new LogThrottle(
    options.log ?? ((line) => void process.stderr.write(`antigravity acp bridge: ${line}\n`)),
  );
  const spawn = async (): Promise<AcpProcess> => {
    const agent = await AcpProcess.spawn(options.command, options.args ?? [], {
      env: options.env,
      cwd: options.cwd,
      onStderr: undefined,
    });
    options.onProcess?.(agent);
    return agent;
  };
  return openPageEndpoint({
    allowedOrigins: options.allowedOrigins,
    token: options.token,
    ...definedProperties({ server: options.server, port: options.port, host: options.host }),
    path,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    maxConnections,
    maxPayload: maxFrameBytes,
    log,
    startRelay: (page, request, presented) =>
      new AcpBridgeRelay(page, {
        rules: new AcpPageRules(rules, ownership, presented.token),
        spawn,
        initializeTimeoutMs,
        shutdownGraceMs,
        log,
        remote: remoteAddress(request),
      }),
  });
}
