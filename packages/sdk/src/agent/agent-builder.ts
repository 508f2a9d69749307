import type { CapabilitiesOptions, BuiltinTool } from "../config/builtin-tools.js";
import type {
  AgentBehaviorOption,
  BudgetOptions,
  CompactionOptions,
  HarnessConfigOptions,
  SessionContinuationMode,
  SystemInstructionsOption,
} from "../config/harness-config.js";
import type { GeminiModelOptions, RetryOptions, ServiceTier, ThinkingLevel, VertexOptions } from "../config/model-options.js";
import type { ConversationStore } from "../conversation/conversation-store.js";
import type { Hook } from "../hooks/hook.js";
import { allowAll, confirmRunCommand, readOnly, type AskUserHandler, type PolicyLike } from "../policies/policy.js";
import type { JsonSchema, Tool } from "../tools/tool.js";
import type { Transport } from "../transport/transport.js";
import type { Trigger } from "../triggers/trigger.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { Agent } from "./agent.js";
import type { AgentBuilderDefaults, AgentOptions, TransportFactory } from "./agent-options.js";

/**
 * Makes the agent at `build()`. `Agent.builder()` passes its constructor, so that this module
 * imports `Agent` only as a type and agent.ts ↔ agent-builder.ts is no import cycle.
 */
export type NewAgent = (options: AgentOptions, defaults: AgentBuilderDefaults) => Agent;

/**
 * Fluent, immutable configuration of an {@link Agent} (antigravity-api.md §2.2). The type
 * parameter records whether a policy was chosen: `build()` only compiles on
 * `AgentBuilder<true>`, so an agent never runs with tools it was not meant to have by accident.
 * `buildUnchecked()` is the escape hatch (it defaults to `confirmRunCommand()`).
 *
 * @example
 * const agent = Agent.builder().model("gemini-3.7-flash").tool(add).confirmRunCommand().build();
 */
export class AgentBuilder<HasPolicy extends boolean = false> {
  /**
   * Type-level marker of the policy state; never set at runtime. Public and optional so that the
   * bundled `.d.ts` keeps its type (a private member is emitted without one, which would let
   * `build()` compile without a policy for users of the package).
   */
  declare readonly "~policyChosen"?: HasPolicy;
  readonly #options: AgentOptions;
  readonly #defaults: AgentBuilderDefaults;
  readonly #newAgent: NewAgent;

  private constructor(options: AgentOptions, defaults: AgentBuilderDefaults, newAgent: NewAgent) {
    this.#options = options;
    this.#defaults = defaults;
    this.#newAgent = newAgent;
  }

  /** @internal Use `Agent.builder()`. */
  static create(defaults: AgentBuilderDefaults, newAgent: NewAgent): AgentBuilder<false> {
    return new AgentBuilder<false>({}, defaults, newAgent);
  }

  /** The options collected so far. */
  get options(): Readonly<AgentOptions> {
    return this.#options;
  }

  #with<P extends boolean = HasPolicy>(patch: Partial<AgentOptions>): AgentBuilder<P> {
    return new AgentBuilder<P>({ ...this.#options, ...patch }, this.#defaults, this.#newAgent);
  }

  /** Text model name (protocol §5.1 `models`). */
  model(name: string): AgentBuilder<HasPolicy> {
    return this.#with({ model: name });
  }

  /** Gemini API key for the model (not the harness key). */
  apiKey(key: string): AgentBuilder<HasPolicy> {
    return this.#with({ apiKey: key });
  }

  /** The full model list, replacing `model`/`apiKey`. */
  models(models: NonNullable<HarnessConfigOptions["models"]>): AgentBuilder<HasPolicy> {
    return this.#with({ models: [...models] });
  }

  /** Thinking level and service tier of the model (upstream `GeminiModelOptions`); merged with earlier calls. */
  modelOptions(options: GeminiModelOptions): AgentBuilder<HasPolicy> {
    return this.#with({ modelOptions: { ...this.#options.modelOptions, ...options } });
  }

  /** How much the model thinks (`modelOptions({ thinkingLevel })`). */
  thinkingLevel(level: ThinkingLevel): AgentBuilder<HasPolicy> {
    return this.modelOptions({ thinkingLevel: level });
  }

  /** The inference tier to ask for (`modelOptions({ serviceTier })`); the served one is in `usage.serviceTier`. */
  serviceTier(tier: ServiceTier): AgentBuilder<HasPolicy> {
    return this.modelOptions({ serviceTier: tier });
  }

  /** The model on Vertex AI: project and location, or the `apiKey` (express mode). */
  vertex(options: VertexOptions | boolean = true): AgentBuilder<HasPolicy> {
    return this.#with({ vertex: typeof options === "boolean" ? options : { ...options } });
  }

  /** Retries of model calls by the harness (upstream `RetryConfig`). */
  retryConfig(config: RetryOptions): AgentBuilder<HasPolicy> {
    return this.#with({ retryConfig: { ...config } });
  }

  systemInstructions(instructions: SystemInstructionsOption): AgentBuilder<HasPolicy> {
    return this.#with({ systemInstructions: instructions });
  }

  /** Adds client tools. */
  tool(...tools: Tool[]): AgentBuilder<HasPolicy> {
    return this.#with({ tools: [...(this.#options.tools ?? []), ...tools] });
  }

  /** Adds lifecycle hooks. */
  hook(...hooks: Hook[]): AgentBuilder<HasPolicy> {
    return this.#with({ hooks: [...(this.#options.hooks ?? []), ...hooks] });
  }

  /** Adds triggers, started with the agent. */
  trigger(...triggers: Trigger[]): AgentBuilder<HasPolicy> {
    return this.#with({ triggers: [...(this.#options.triggers ?? []), ...triggers] });
  }

  /** Appends a policy (or a list of them). */
  policy(policy: PolicyLike): AgentBuilder<true> {
    return this.#with<true>({ policies: [...(this.#options.policies ?? []), policy] });
  }

  /** Replaces the policies. */
  policies(...policies: PolicyLike[]): AgentBuilder<true> {
    return this.#with<true>({ policies });
  }

  /** Lets every tool run. */
  allowAll(): AgentBuilder<true> {
    return this.policies(allowAll());
  }

  /** Lets only the read-only built-ins run (protocol §11.1). */
  readOnly(): AgentBuilder<true> {
    return this.policies(readOnly());
  }

  /** Allows everything but `run_command`, which `handler` decides (refused without one). */
  confirmRunCommand(handler?: AskUserHandler): AgentBuilder<true> {
    return this.policies(confirmRunCommand(handler));
  }

  /** Directories the agent works in (absolute paths). */
  workspaces(...paths: string[]): AgentBuilder<HasPolicy> {
    return this.#with({ workspaces: paths });
  }

  skillsPaths(...paths: string[]): AgentBuilder<HasPolicy> {
    return this.#with({ skillsPaths: paths });
  }

  appDataDir(directory: string): AgentBuilder<HasPolicy> {
    return this.#with({ appDataDir: directory });
  }

  capabilities(capabilities: CapabilitiesOptions): AgentBuilder<HasPolicy> {
    return this.#with({ capabilities: { ...this.#options.capabilities, ...capabilities } });
  }

  /** Only these built-in tools (exclusive with `disabledTools`). */
  enabledTools(...tools: BuiltinTool[]): AgentBuilder<HasPolicy> {
    return this.capabilities({ enabledTools: tools });
  }

  /** Every built-in tool but these (exclusive with `enabledTools`). */
  disabledTools(...tools: BuiltinTool[]): AgentBuilder<HasPolicy> {
    return this.capabilities({ disabledTools: tools });
  }

  compactionThreshold(tokens: number): AgentBuilder<HasPolicy> {
    return this.capabilities({ compactionThreshold: tokens });
  }

  /** Compaction checkpoints: compact each time the context grew by `checkpointIntervalTokens`. */
  compaction(compaction: CompactionOptions): AgentBuilder<HasPolicy> {
    return this.#with({ compaction: { ...compaction } });
  }

  /** JSON Schema of a structured answer (read it from `ChatResponse.structuredOutput`). */
  responseSchema(schema: JsonSchema | string): AgentBuilder<HasPolicy> {
    return this.#with({ responseSchema: schema });
  }

  conversationId(id: string): AgentBuilder<HasPolicy> {
    return this.#with({ conversationId: id });
  }

  sessionContinuationMode(mode: SessionContinuationMode): AgentBuilder<HasPolicy> {
    return this.#with({ sessionContinuationMode: mode });
  }

  agentBehavior(behavior: AgentBehaviorOption): AgentBuilder<HasPolicy> {
    return this.#with({ agentBehavior: behavior });
  }

  /** Session limits; `scope` says whether they count from the session's start or from now. */
  budget(budget: BudgetOptions): AgentBuilder<HasPolicy> {
    return this.#with({ budget });
  }

  mcpServers(servers: NonNullable<HarnessConfigOptions["mcpServers"]>): AgentBuilder<HasPolicy> {
    return this.#with({ mcpServers: [...servers] });
  }

  /**
   * Adds static subagents (upstream `subagents=[SubagentConfig(...)]`), sent as
   * `HarnessConfig.customSubagents`; the model starts one by name with `start_subagent`.
   */
  customSubagents(...subagents: NonNullable<HarnessConfigOptions["customSubagents"]>): AgentBuilder<HasPolicy> {
    return this.#with({ customSubagents: [...(this.#options.customSubagents ?? []), ...subagents] });
  }

  /** Where the harness persists the session (transports that start the harness). */
  saveDir(directory: string): AgentBuilder<HasPolicy> {
    return this.#with({ saveDir: directory });
  }

  /** Extra environment for the harness and its tools (transports that start the harness). */
  env(env: Record<string, string>): AgentBuilder<HasPolicy> {
    return this.#with({ env: { ...env } });
  }

  /** Path of the harness binary (transports that start the harness). */
  harnessPath(path: string): AgentBuilder<HasPolicy> {
    return this.#with({ harnessPath: path });
  }

  /** Steps kept in history (default 10,000; 0 = unlimited). */
  maxHistorySize(steps: number): AgentBuilder<HasPolicy> {
    return this.#with({ maxHistorySize: steps });
  }

  /**
   * Persists the conversation in `store` (seed 002): `start()` restores what the store holds for
   * the session's conversation id, and the conversation is saved after every turn, a cancelled or
   * failed one included. Pair it with `conversationId()` (and the harness's own persistence,
   * `saveDir()`) to continue a conversation in a new process.
   */
  conversationStore(store: ConversationStore): AgentBuilder<HasPolicy> {
    return this.#with({ conversationStore: store });
  }

  /** How to reach the harness: a transport, or a factory called at `start()`. */
  transport(transport: Transport | TransportFactory): AgentBuilder<HasPolicy> {
    return this.#with({ transport });
  }

  /** Receives frames the SDK could not decode (default: `console.warn`). */
  onProtocolError(handler: NonNullable<AgentOptions["onProtocolError"]>): AgentBuilder<HasPolicy> {
    return this.#with({ onProtocolError: handler });
  }

  /**
   * Where the SDK's warnings go (`debug`/`info`/`warn`/`error`; `console` fits). Default: `console`,
   * prefixed `antigravity: `. The Node runtime's subprocess transport sends harness stderr lines to it too.
   */
  logger(logger: NonNullable<AgentOptions["logger"]>): AgentBuilder<HasPolicy> {
    return this.#with({ logger });
  }

  /**
   * Traces the session through an OpenTelemetry `Tracer` (`trace.getTracer("my-app")`) with the
   * GenAI semantic conventions: `invoke_agent` for the session, `chat` per turn, `execute_tool`
   * per client tool call. The SDK itself depends on no OpenTelemetry package. `options.parentContext`
   * (e.g. `context.active()`) makes the session span a child of that context's span.
   */
  tracer(tracer: NonNullable<AgentOptions["tracer"]>, options: { parentContext?: NonNullable<AgentOptions["traceContext"]> } = {}): AgentBuilder<HasPolicy> {
    return this.#with(options.parentContext === undefined ? { tracer } : { tracer, traceContext: options.parentContext });
  }

  /**
   * The agent. Compiles only once a policy was chosen: without one the compiler says the builder
   * is not assignable to {@link CallAllowAllReadOnlyOrPoliciesBeforeBuild}, and plain JavaScript
   * gets the same advice here as `InvalidArgument`.
   */
  build(this: CallAllowAllReadOnlyOrPoliciesBeforeBuild): Agent {
    const builder: AgentBuilder<boolean> = this;
    if (builder.#options.policies === undefined) throw new SdkError(ErrorCode.InvalidArgument, NO_POLICY_MESSAGE);
    return builder.#newAgent(builder.#options, builder.#defaults);
  }

  /** The agent, with or without a chosen policy (none means `confirmRunCommand()`). */
  buildUnchecked(): Agent {
    return this.#newAgent(this.#options, this.#defaults);
  }
}

/**
 * A builder on which a policy was chosen: the `this` type of `build()`. Its name is the fix the
 * compiler shows for a forgotten policy ("'AgentBuilder<false>' is not assignable to …
 * 'CallAllowAllReadOnlyOrPoliciesBeforeBuild'").
 */
export interface CallAllowAllReadOnlyOrPoliciesBeforeBuild extends AgentBuilder<true> {}

const NO_POLICY_MESSAGE =
  "no policy chosen: call allowAll(), readOnly(), confirmRunCommand() or policies(...) before build() (buildUnchecked() builds with confirmRunCommand())";
