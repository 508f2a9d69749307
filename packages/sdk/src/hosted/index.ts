/**
 * The hosted Antigravity agent over the Gemini Interactions API (`@antigravity-ts/sdk/hosted`,
 * docs/hosted.md): `Agent.builder().connection(hostedAgent({ apiKey }))`. Runs on `fetch` and
 * SSE alone — browsers (through a server route that adds the key), Workers, Deno and Node.
 * @module
 */
import type { ConnectionStrategy } from "../agent/connection-strategy.js";
import type { ConnectionCapabilities } from "../connection/capabilities.js";
import { ErrorCode, SdkError } from "../errors.js";
import { HostedConnection } from "./hosted-connection.js";
import { InteractionsClient, type WireObject } from "./interactions-client.js";

export { HostedConnection, usageOf, type HostedConnectionOptions } from "./hosted-connection.js";
export {
  createInteractionsProxy,
  routeCall,
  upstreamHeaders,
  RouteRefusal,
  type InteractionsProxyOptions,
  type InteractionsRouteRules,
  type RoutedCall,
} from "./interactions-proxy.js";
export {
  InteractionsClient,
  readEvents,
  type InteractionEvent,
  type InteractionsClientOptions,
  type WireObject,
} from "./interactions-client.js";

/** The agent `create` names by default (`AgentOption` in genai.d.ts). */
export const DEFAULT_HOSTED_AGENT = "antigravity-preview-09-2026";

/**
 * What the interactions wire does (docs/hosted.md, the capability table): client tools (function
 * declarations answered through the agent's ToolRunner), halt (`interactions.cancel`), reconnect
 * (`last_event_id`), text prompts. The agent's policies decide the client functions' calls,
 * `when` predicates and `askUser` handlers included, and `deferToUser` pauses a turn on one (the
 * interaction waits in `requires_action`) for `agent.resume`; the hosted harness's own tools run
 * without asking — the API has no field that carries a policy nor a step a client approves — so
 * an ask-user policy for any other tool is refused at `start()`. No hooks, questions, triggers,
 * compaction settings, per-call usage, skills, rules files, tool output limits, thinking levels or
 * built-in tool settings (schedule, manage_task, daemon commands, the presets): the API carries none of them. A conversation restored
 * from a store (in another process too) goes on from the last interaction its history names.
 */
export const INTERACTIONS_CAPABILITIES: ConnectionCapabilities = {
  wire: "interactions",
  clientTools: true,
  hooks: new Set(),
  dynamicPolicies: true,
  confirmations: true,
  questions: false,
  triggers: false,
  halt: true,
  resume: true,
  reconnect: true,
  perCallUsage: false,
  compaction: false,
  media: [],
  // AntigravityAgentConfig (@google/genai genai.d.ts: type, model, max_total_tokens) and
  // CreateAgentInteraction carry none of these (issue 25): refused at build() by assertCapabilities.
  skills: false,
  rules: false,
  toolOutputTruncation: false,
  thinkingLevel: false,
  builtinTools: false,
  // No field of the Interactions API carries a policy, let alone a safety assessment.
  autoPolicy: false,
};

/** Options of {@link hostedAgent}. */
export interface HostedAgentOptions {
  /** The Gemini API key, sent as `x-goog-api-key`. Never in a page: give `baseUrl` of a server route that adds it, and `headers` for that route. */
  apiKey?: string | undefined;
  /** Headers on every request (e.g. the page's credentials for its own route). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** `CreateAgentInteraction.agent`; default `antigravity-preview-09-2026`. */
  agent?: string | undefined;
  /** Default `https://generativelanguage.googleapis.com/`. */
  baseUrl?: string | undefined;
  /** Default `v1beta`. */
  apiVersion?: string | undefined;
  /** `CreateAgentInteraction.environment`: `{ type: "remote", sources, env, network, environment_id }` (`Environment_2`) or an environment id. */
  environment?: WireObject | string | undefined;
  /** Send later turns to the environment the first interaction got (`Interaction.environment_id`). */
  reuseEnvironment?: boolean | undefined;
  /** `AntigravityAgentConfig` without its `type`: `model`. The agent's `budget({ maxTotalTokens })` becomes its `max_total_tokens`. */
  agentConfig?: { model?: string | undefined } | undefined;
  /** `CreateAgentInteraction.system_instruction`. */
  systemInstruction?: string | undefined;
  /** Create each interaction with `background: true` and read it with `get(id, { stream: true })`. */
  background?: boolean | undefined;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch | undefined;
  /** Resumes of a dropped event stream in a row before the turn fails (default 8). */
  maxReconnects?: number | undefined;
  /** Pause before the n-th resume in a row, in ms. */
  reconnectDelayMs?: ((attempt: number) => number) | undefined;
}

/**
 * The hosted Antigravity agent as the agent's connection.
 *
 * @example
 * const agent = await Agent.builder().connection(hostedAgent({ apiKey })).allowAll().build().start();
 * console.log((await agent.chatToCompletion("Summarise README.md")).text);
 */
export function hostedAgent(options: HostedAgentOptions = {}): ConnectionStrategy {
  const client = new InteractionsClient({
    apiKey: options.apiKey,
    headers: options.headers,
    baseUrl: options.baseUrl,
    apiVersion: options.apiVersion,
    fetch: options.fetch,
  });
  return {
    capabilities: INTERACTIONS_CAPABILITIES,
    async connect(request) {
      const config = request.config;
      const refuse = (option: string, what: string): never => {
        throw new SdkError(
          ErrorCode.Unsupported,
          `${option}: ${what}, which the interactions wire cannot carry; remove it${option === "systemInstructions" ? " or give hostedAgent({ systemInstruction })" : ""}`,
          {
            details: { option, wire: "interactions" },
          },
        );
      };
      if (config.systemInstructions !== undefined) refuse("systemInstructions", "structured system instructions");
      if (config.mcpServers.length > 0) refuse("mcpServers", "MCP servers run by the harness");
      if (config.customSubagents.length > 0) refuse("customSubagents", "custom subagents");
      if ((config.finishToolSchemaJson ?? "") !== "") refuse("responseSchema", "a finish tool schema");
      // Only a client function's call waits for the client (requires_action); the hosted harness's tools never ask.
      for (const policy of request.policies) {
        if (policy.decision !== "ask_user" || request.tools.has(policy.tool)) continue;
        const option = `policies (${policy.name}: ${policy.handler === undefined ? "deferToUser" : "askUser"})`;
        throw new SdkError(
          ErrorCode.Unsupported,
          `${option}: on the interactions wire only calls of the agent's client tools wait for a decision, and ${JSON.stringify(policy.tool)} is none of them (the hosted harness runs its own tools without asking); name a client tool or remove the policy`,
          { details: { option, wire: "interactions" } },
        );
      }
      const budget = config.budgetConfig;
      if (
        budget !== undefined &&
        (budget.maxModelCalls !== undefined ||
          budget.maxToolCalls !== undefined ||
          budget.maxInputTokens !== undefined ||
          budget.maxOutputTokens !== undefined)
      ) {
        refuse("budget", "limits other than maxTotalTokens (AntigravityAgentConfig.max_total_tokens)");
      }
      // AntigravityAgentConfig { type: "antigravity", model?, max_total_tokens? (int64 as a string) }.
      const agentConfig: WireObject | undefined =
        options.agentConfig?.model === undefined && budget?.maxTotalTokens === undefined
          ? undefined
          : {
              type: "antigravity",
              ...(options.agentConfig?.model === undefined ? {} : { model: options.agentConfig.model }),
              ...(budget?.maxTotalTokens === undefined ? {} : { max_total_tokens: String(budget.maxTotalTokens) }),
            };
      return new HostedConnection({
        client,
        agent: options.agent ?? DEFAULT_HOSTED_AGENT,
        agentConfig,
        environment: options.environment,
        reuseEnvironment: options.reuseEnvironment,
        systemInstruction: options.systemInstruction,
        background: options.background,
        tools: request.tools,
        confirmTool: request.confirmTool,
        conversationId: (config.cascadeId ?? "") !== "" ? (config.cascadeId as string) : crypto.randomUUID(),
        maxReconnects: options.maxReconnects,
        reconnectDelayMs: options.reconnectDelayMs,
      });
    },
  };
}
