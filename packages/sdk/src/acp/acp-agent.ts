import type * as acp from "@agentclientprotocol/sdk";
import type { ConnectionStrategy } from "../agent/connection-strategy.js";
import type { ConnectionCapabilities } from "../connection/capabilities.js";
import type { HarnessConfig } from "../wire/index.js";
import { ErrorCode, SdkError } from "../errors.js";
import { AcpConnection, type AcpConnectionOptions, type AcpFileSystem } from "./acp-connection.js";
import type { AcpSessionEvent } from "./acp-steps.js";
import type { AcpTerminals } from "./acp-terminals.js";
import type { AcpToolHost } from "./acp-mcp-tools.js";

/**
 * What the acp wire can do (docs/acp.md, the capability table). Policies are decided by the client
 * when the agent asks (`session/request_permission`); `preToolCall` hooks run there too. ACP has no
 * client-declared tools, no questions, no injected messages, no context compaction the client
 * configures and no per-call usage (client tools only through an MCP server the SDK hosts:
 * `acpAgent({ toolHost })`, which turns `clientTools` on); a confirmation cannot pause a turn (the request belongs to
 * the running `session/prompt`). `resume` is `session/load`, checked against the agent's
 * `loadSession` capability when the session opens. No skills, rules files, tool output limit,
 * thinking level or built-in tool settings (schedule, manage_task, daemon commands, the presets).
 */
export const ACP_CAPABILITIES: ConnectionCapabilities = {
  wire: "acp",
  clientTools: false,
  hooks: new Set(["preToolCall"]),
  dynamicPolicies: true,
  confirmations: false,
  questions: false,
  triggers: false,
  halt: true,
  resume: true,
  reconnect: false,
  perCallUsage: false,
  compaction: false,
  media: ["image/*", "audio/*"], // ContentBlock image/audio, when the agent's promptCapabilities say so
  // session/new takes a cwd and MCP servers only; the agent reads its own skills and rules and decides its own tools.
  skills: false,
  rules: false,
  toolOutputTruncation: false,
  // A "thought_level" config option (SessionConfigOptionCategory, types.gen.d.ts) is the agent's own, with
  // values it names, and "MUST NOT be required for correctness": no level of the SDK maps onto it.
  thinkingLevel: false,
  // Session modes (acpAgent({ modeId })) are the agent's; none selects tools, daemons, retries or presets.
  builtinTools: false,
  // session/new carries no policy: the ACP agent asks about calls its own way (session/request_permission).
  autoPolicy: false,
};

/** Options of {@link acpAgent} in the core: a stream of JSON-RPC messages per session. */
export interface AcpAgentOptions {
  /** The JSON-RPC messages of one session (`ndJsonStream(...)`, an in-memory pair, a WebSocket bridge); a function is called once per session. */
  stream: acp.Stream | (() => acp.Stream | Promise<acp.Stream>);
  /**
   * `session/new`'s working directory (an absolute path). Default: the agent's first workspace
   * (`.workspace(dir)`); one of the two is required.
   */
  cwd?: string;
  /** MCP servers the agent should connect to (`session/new`'s `mcpServers`). */
  mcpServers?: acp.McpServer[];
  /** `authenticate` with this method (one of the agent's `authMethods`, e.g. `"gemini-api-key"`). */
  authMethodId?: string;
  /** `session/set_mode` with this mode once the session exists (e.g. `"default"`, `"yolo"`). */
  modeId?: string;
  /** The `session/update`s that make no step — `plan`, `available_commands_update`, `current_mode_update` ... — as the library types them. */
  onSessionUpdate?: (event: AcpSessionEvent) => void;
  /** How long `initialize` may take. Default 60,000 ms. */
  initializeTimeoutMs?: number;
  /** Serves the agent's `fs/read_text_file` / `fs/write_text_file` (off by default); e.g. `workspaceTextFiles([dir])` of `@antigravity-ts/harness`. */
  fileSystem?: AcpFileSystem;
  /**
   * Runs the agent's `terminal/*` commands (off by default; `terminal` is advertised only with it),
   * each allowed by the agent's policies as `run_command`; on Node, `workspaceTerminals([dir])` of
   * `@antigravity-ts/harness`. Every terminal is ended when the session closes.
   */
  terminals?: AcpTerminals;
  /**
   * Where the agent's client tools (`.tool(...)`) are served to the ACP agent, as an MCP server
   * added to `session/new`'s `mcpServers` (Node: `loopbackMcpHost()`, which `@antigravity-ts/node`'s
   * `acpAgent({ command })` uses by default). Without it, client tools are refused at `build()`.
   */
  toolHost?: AcpToolHost;
  /** For the Node edge: the peer's failure as the user sees it (stderr tail, exit status). */
  describeFailure?: AcpConnectionOptions["describeFailure"];
  /** For the Node edge: releases what carries the stream once the session is over. */
  release?: () => Promise<void>;
}

/**
 * An ACP agent as the agent's runtime: `Agent.builder().connection(acpAgent({ stream })).allowAll().build()`.
 * Every session opens the stream, `initialize`s, and creates (or, for a conversation id,
 * loads) an ACP session. `@antigravity-ts/node`'s `acpAgent({ command })` spawns the agent.
 *
 * @example
 * const agent = Agent.builder().connection(acpAgent({ stream: ndJsonStream(out, in), cwd: "/work" })).allowAll().build();
 */
export function acpAgent(options: AcpAgentOptions): ConnectionStrategy {
  return {
    capabilities: options.toolHost === undefined ? ACP_CAPABILITIES : { ...ACP_CAPABILITIES, clientTools: true },
    async connect(request, callOptions) {
      const refusal = configRefusal(request.config);
      if (refusal !== undefined) {
        await options.release?.();
        throw refusal;
      }
      const workspace = request.config.workspaces[0]?.workspaceType;
      const cwd = options.cwd ?? (workspace?.case === "filesystemWorkspace" ? workspace.value.directory : undefined);
      if (cwd === undefined || cwd === "") {
        await options.release?.();
        throw new SdkError(
          ErrorCode.InvalidArgument,
          "an ACP session needs a working directory: pass acpAgent({ cwd }) or .workspace(dir)",
        );
      }
      const stream = typeof options.stream === "function" ? await options.stream() : options.stream;
      const loadSessionId = request.config.cascadeId;
      return AcpConnection.open(
        {
          stream,
          cwd,
          confirmTool: request.confirmTool,
          logger: request.logger,
          ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
          ...(loadSessionId === undefined || loadSessionId === "" ? {} : { loadSessionId }),
          ...(options.authMethodId === undefined ? {} : { authMethodId: options.authMethodId }),
          ...(options.modeId === undefined ? {} : { modeId: options.modeId }),
          ...(options.onSessionUpdate === undefined ? {} : { onSessionUpdate: options.onSessionUpdate }),
          ...(options.initializeTimeoutMs === undefined ? {} : { initializeTimeoutMs: options.initializeTimeoutMs }),
          ...(options.fileSystem === undefined ? {} : { fileSystem: options.fileSystem }),
          ...(options.terminals === undefined ? {} : { terminals: options.terminals }),
          ...(options.toolHost === undefined ? {} : { toolHost: options.toolHost, tools: request.tools }),
          ...(options.describeFailure === undefined ? {} : { describeFailure: options.describeFailure }),
          ...(options.release === undefined ? {} : { release: options.release }),
        },
        callOptions,
      );
    },
  };
}

/**
 * Options of the agent the acp wire has no field for (ACP v1's `session/new` takes a cwd and MCP
 * servers only; the agent has its own model, instructions and tools): each is refused at
 * `start()` with `Unsupported` naming it, never dropped. Defaults the agent builder sets on its
 * own (the built-in tool switches, the policy config) are not the user's asking and are ignored.
 */
function configRefusal(config: HarnessConfig): SdkError | undefined {
  const asked: [boolean, string, string][] = [
    [
      config.models.length > 0,
      "model / models",
      "ACP v1 chooses no model (the agent has its own; its modes are acpAgent({ modeId }))",
    ],
    [config.systemInstructions !== undefined, "systemInstructions", "ACP has no system instructions"],
    [config.mcpServers.length > 0, "mcpServers", "pass them as acpAgent({ mcpServers }) in ACP's McpServer shape"],
    [config.customSubagents.length > 0, "customSubagents", "ACP has no subagent configuration"],
    [(config.finishToolSchemaJson ?? "") !== "", "responseSchema", "ACP has no structured output"],
    [config.budgetConfig !== undefined, "budget", "ACP has no budget the client sets"],
    [
      config.workspaces.length > 1,
      "workspaces (more than one)",
      "the first workspace is session/new's cwd; ACP v1 takes one",
    ],
  ];
  for (const [isAsked, option, why] of asked) {
    if (isAsked)
      return new SdkError(
        ErrorCode.Unsupported,
        `${option} cannot be honoured by the acp wire: ${why}; remove it or use a wire that has it`,
        { details: { option, wire: "acp" } },
      );
  }
  return undefined;
}
