import { assertCapabilities } from "./capability-check.js";
import type { ConnectionStrategy } from "./connection-strategy.js";
import type { CapabilitiesOptions, BuiltinTool } from "../config/builtin-tools.js";
import type {
  AgentBehaviorOption,
  BudgetOptions,
  CompactionOptions,
  HarnessConfigOptions,
  SessionContinuationMode,
} from "../config/harness-config.js";
import type { SystemInstructionsOption } from "../config/system-instructions.js";
import type { GeminiModelOptions, RetryOptions, ThinkingLevel, VertexOptions } from "../config/model-options.js";
import type { EvalPresetOptions } from "../config/presets.js";
import type { ServiceTier } from "../step.js";
import type { ConversationStore } from "../conversation/conversation-store.js";
import type { Hook } from "../hooks/hook.js";
import { allowAll, confirmRunCommand, readOnly, type AskUserHandler, type PolicyLike } from "../policies/policy.js";
import type { IsLiteralJsonSchema, JsonSchemaType } from "../tools/json-schema-type.js";
import { isStandardSchema, jsonSchemaOf, type StandardSchemaV1 } from "../tools/standard-schema.js";
import type { JsonSchema, Tool } from "../tools/tool.js";
import type { Transport } from "../transport/transport.js";
import type { Trigger } from "../triggers/trigger.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { Agent } from "./agent.js";
import type { AgentBuilderDefaults, AgentOptions, AgentOptionsWithPolicy, TransportFactory } from "./agent-options.js";
import { definedProperties } from "../defined-properties.js";

/**
 * Makes the agent at `build()`. `Agent.builder()` passes its constructor, so that this module
 * imports `Agent` only as a type and agent.ts ↔ agent-builder.ts is no import cycle.
 */
export type NewAgent = (options: AgentOptionsWithPolicy, defaults: AgentBuilderDefaults) => Agent;

/**
 * Fluent, immutable configuration of an {@link Agent} (antigravity-api.md §2.2). The type
 * parameter records whether a policy was chosen: `build()` only compiles on
 * `AgentBuilder<true>`, so an agent never runs with tools it was not meant to have by accident.
 * `buildUnchecked()` is the escape hatch (it defaults to `confirmRunCommand()`). After a typed
 * `responseSchema(schema)` it also records the structured output's type ({@link BuilderState}).
 *
 * @example
 * const agent = Agent.builder().model("gemini-3.7-flash").tool(add).confirmRunCommand().build();
 */
export class AgentBuilder<State extends BuilderState = false> {
  /**
   * Type-level marker of the policy state; never set at runtime. Public and optional so that the
   * bundled `.d.ts` keeps its type (a private member is emitted without one, which would let
   * `build()` compile without a policy for users of the package).
   */
  declare readonly "~policyChosen"?: PolicyOf<State>;
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

  #with<S extends BuilderState = State>(patch: Partial<AgentOptions>): AgentBuilder<S> {
    return new AgentBuilder<S>({ ...this.#options, ...patch }, this.#defaults, this.#newAgent);
  }

  /** Text model name (protocol §5.1 `models`). */
  model(name: string): AgentBuilder<State> {
    return this.#with({ model: name });
  }

  /** Gemini API key for the model (not the harness key). */
  apiKey(key: string): AgentBuilder<State> {
    return this.#with({ apiKey: key });
  }

  /** The model list; a `model(name)` given too is added after it (upstream merges explicit and shorthand models). */
  models(models: NonNullable<HarnessConfigOptions["models"]>): AgentBuilder<State> {
    return this.#with({ models: [...models] });
  }

  /** Thinking level and service tier of the model (upstream `GeminiModelOptions`); merged with earlier calls. */
  modelOptions(options: GeminiModelOptions): AgentBuilder<State> {
    return this.#with({ modelOptions: { ...this.#options.modelOptions, ...options } });
  }

  /**
   * How much the model thinks (`modelOptions({ thinkingLevel })`): `ThinkingLevel.High` or
   * `"high"`. Every text model gets it; one whose endpoint cannot take it is refused (`Unsupported`).
   */
  thinkingLevel(level: ThinkingLevel): AgentBuilder<State> {
    return this.modelOptions({ thinkingLevel: level });
  }

  /** The inference tier to ask for (`modelOptions({ serviceTier })`); the served one is in `usage.serviceTier`. */
  serviceTier(tier: ServiceTier): AgentBuilder<State> {
    return this.modelOptions({ serviceTier: tier });
  }

  /** The model on Vertex AI: project and location, or the `apiKey` (express mode). */
  vertex(options: VertexOptions | boolean = true): AgentBuilder<State> {
    return this.#with({ vertex: typeof options === "boolean" ? options : { ...options } });
  }

  /** Retries of model calls by the harness (upstream `RetryConfig`). */
  retryConfig(config: RetryOptions): AgentBuilder<State> {
    return this.#with({ retryConfig: { ...config } });
  }

  systemInstructions(instructions: SystemInstructionsOption): AgentBuilder<State> {
    return this.#with({ systemInstructions: instructions });
  }

  /** Adds client tools. */
  tool(...tools: Tool[]): AgentBuilder<State> {
    return this.#with({ tools: [...(this.#options.tools ?? []), ...tools] });
  }

  /** Adds lifecycle hooks. */
  hook(...hooks: Hook[]): AgentBuilder<State> {
    return this.#with({ hooks: [...(this.#options.hooks ?? []), ...hooks] });
  }

  /** Adds triggers, started with the agent. */
  trigger(...triggers: Trigger[]): AgentBuilder<State> {
    return this.#with({ triggers: [...(this.#options.triggers ?? []), ...triggers] });
  }

  /** Appends a policy (or a list of them). */
  policy(policy: PolicyLike): AgentBuilder<PolicyChosen<State>> {
    return this.#with<PolicyChosen<State>>({ policies: [...(this.#options.policies ?? []), policy] });
  }

  /** Replaces the policies. */
  policies(...policies: PolicyLike[]): AgentBuilder<PolicyChosen<State>> {
    return this.#with<PolicyChosen<State>>({ policies });
  }

  /** Lets every tool run. */
  allowAll(): AgentBuilder<PolicyChosen<State>> {
    return this.policies(allowAll());
  }

  /** Lets only the read-only built-ins run (protocol §11.1). */
  readOnly(): AgentBuilder<PolicyChosen<State>> {
    return this.policies(readOnly());
  }

  /** Allows everything but `run_command`, which `handler` decides (refused without one). */
  confirmRunCommand(handler?: AskUserHandler): AgentBuilder<PolicyChosen<State>> {
    return this.policies(confirmRunCommand(handler));
  }

  /**
   * Upstream's evaluation preset (`AgentConfig.eval()`, 0.1.18–0.1.19): a product-neutral setup
   * for benchmarks. For what this builder leaves unset, at `start()`: `allowAll()`, the benchmark
   * retries (`benchmarkRetry()`: transient API errors retried up to 2^32 − 1 times), daemon
   * commands, no `generate_image` and no subagents (unless `enabledTools` names them), and
   * `thinkingLevel` (default `ThinkingLevel.High`; `null` keeps the models' own) on the text
   * models — refused when the agent sets a level itself. Chooses the policy when none is chosen.
   */
  eval(options: EvalPresetOptions = {}): AgentBuilder<PolicyChosen<State>> {
    const thinkingLevel = options.thinkingLevel === undefined ? "high" : options.thinkingLevel;
    return this.#with<PolicyChosen<State>>({
      presets: [...(this.#options.presets ?? []), { name: "eval", thinkingLevel }],
    });
  }

  /**
   * Upstream's preset for small and local models (`AgentConfig.lightweight()`, 0.1.16): for what
   * this builder leaves unset, at `start()`: the minimal built-ins (`MINIMAL_TOOLS`: run_command,
   * view_file, create_file, edit_file, search_directory, less any `disabledTools`), so no
   * subagents, `agentBehavior("minimal")` and compaction at 65,536 tokens.
   */
  lightweight(): AgentBuilder<State> {
    return this.#with({ presets: [...(this.#options.presets ?? []), { name: "lightweight" }] });
  }

  /** Directories the agent works in (absolute paths). */
  workspaces(...paths: string[]): AgentBuilder<State> {
    return this.#with({ workspaces: paths });
  }

  skillsPaths(...paths: string[]): AgentBuilder<State> {
    return this.#with({ skillsPaths: paths });
  }

  /** Skill directories (`skills_config`, 0.1.19 wire): each a skill with a `SKILL.md`, or a catalog of them. */
  skills(skills: NonNullable<HarnessConfigOptions["skills"]>): AgentBuilder<State> {
    return this.#with({ skills: { ...skills, directories: [...skills.directories] } });
  }

  /** Rules files whose text the harness adds to the system instructions (`rules_config`, 0.1.19 wire). */
  rules(...files: string[]): AgentBuilder<State> {
    return this.#with({ rules: files });
  }

  /** Tool results over `maxTokens` estimated tokens keep their beginning (`tool_output_truncation`; 0: off). */
  toolOutputTruncation(maxTokens: number): AgentBuilder<State> {
    return this.#with({ toolOutputTruncation: maxTokens });
  }

  appDataDir(directory: string): AgentBuilder<State> {
    return this.#with({ appDataDir: directory });
  }

  capabilities(capabilities: CapabilitiesOptions): AgentBuilder<State> {
    return this.#with({ capabilities: { ...this.#options.capabilities, ...capabilities } });
  }

  /** Only these built-in tools (exclusive with `disabledTools`). */
  enabledTools(...tools: BuiltinTool[]): AgentBuilder<State> {
    return this.capabilities({ enabledTools: tools });
  }

  /** Every built-in tool but these (exclusive with `enabledTools`). */
  disabledTools(...tools: BuiltinTool[]): AgentBuilder<State> {
    return this.capabilities({ disabledTools: tools });
  }

  compactionThreshold(tokens: number): AgentBuilder<State> {
    return this.capabilities({ compactionThreshold: tokens });
  }

  /** Compaction checkpoints: compact each time the context grew by `checkpointIntervalTokens`. */
  compaction(compaction: CompactionOptions): AgentBuilder<State> {
    return this.#with({ compaction: { ...compaction } });
  }

  /**
   * Schema of a structured answer, read from `ChatResponse.structuredOutput`, whose type it
   * gives: a Standard Schema (zod, valibot, arktype, …) — its output type; the output is
   * validated (docs/tools-hooks-policies.md) and its JSON Schema is the library's conversion or
   * `options.jsonSchema` (valibot) — or a JSON Schema (object or JSON text), typed when declared
   * `as const`. A Standard Schema that cannot be converted throws `InvalidArgument` here.
   */
  responseSchema<Schema extends StandardSchemaV1 | JsonSchema | string>(
    schema: Schema,
    options: { jsonSchema?: object } = {},
  ): AgentBuilder<WithOutput<State, ResponseOutput<Schema>>> {
    const { responseJsonSchema: _replaced, ...rest } = this.#options;
    const jsonSchema = isStandardSchema(schema)
      ? jsonSchemaOf(schema, "responseSchema", options.jsonSchema)
      : undefined;
    const patch = { ...rest, responseSchema: schema, ...definedProperties({ responseJsonSchema: jsonSchema }) };
    return new AgentBuilder<WithOutput<State, ResponseOutput<Schema>>>(patch, this.#defaults, this.#newAgent);
  }

  conversationId(id: string): AgentBuilder<State> {
    return this.#with({ conversationId: id });
  }

  sessionContinuationMode(mode: SessionContinuationMode): AgentBuilder<State> {
    return this.#with({ sessionContinuationMode: mode });
  }

  agentBehavior(behavior: AgentBehaviorOption): AgentBuilder<State> {
    return this.#with({ agentBehavior: behavior });
  }

  /** Session limits; `scope` says whether they count from the session's start or from now. */
  budget(budget: BudgetOptions): AgentBuilder<State> {
    return this.#with({ budget });
  }

  mcpServers(servers: NonNullable<HarnessConfigOptions["mcpServers"]>): AgentBuilder<State> {
    return this.#with({ mcpServers: [...servers] });
  }

  /**
   * Adds static subagents (upstream `subagents=[SubagentConfig(...)]`), sent as
   * `HarnessConfig.customSubagents`; the model starts one by name with `start_subagent`.
   */
  customSubagents(...subagents: NonNullable<HarnessConfigOptions["customSubagents"]>): AgentBuilder<State> {
    return this.#with({ customSubagents: [...(this.#options.customSubagents ?? []), ...subagents] });
  }

  /** Steps kept in history (default 10,000; 0 = unlimited). */
  maxHistorySize(steps: number): AgentBuilder<State> {
    return this.#with({ maxHistorySize: steps });
  }

  /**
   * Persists the conversation in `store` (seed 002): `start()` restores what the store holds for
   * the session's conversation id, and the conversation is saved after every turn, a cancelled or
   * failed one included. Pair it with `conversationId()` (and the harness's own persistence,
   * `saveDir` of `@antigravity-ts/node`'s `subprocessTransportFactory`) to continue a conversation in a new process.
   */
  conversationStore(store: ConversationStore): AgentBuilder<State> {
    return this.#with({ conversationStore: store });
  }

  /** How to reach the harness: a transport, or a factory called at `start()`. */
  transport(transport: Transport | TransportFactory): AgentBuilder<State> {
    return this.#with({ transport });
  }

  /**
   * How the agent reaches its runtime (`localHarness(transport)`, and the ACP and hosted wires'
   * strategies). Options the wire cannot honour are refused at `build()` with `Unsupported`,
   * naming the option and the wire. Exclusive with {@link transport}, its localharness shorthand.
   */
  connection(strategy: ConnectionStrategy): AgentBuilder<State> {
    return this.#with({ connection: strategy });
  }

  /**
   * Signs the continuations of paused turns and is required to resume them (HMAC-SHA-256 via
   * WebCrypto, at least 32 bytes; docs/continuations.md). Without it continuations are unsigned.
   */
  continuationSecret(secret: NonNullable<AgentOptions["continuationSecret"]>): AgentBuilder<State> {
    return this.#with({ continuationSecret: secret });
  }

  /**
   * Refuses a second resume of one continuation (`agent.resume`); default: one guard shared by the
   * agents of this process. Give one backed by a shared store to refuse replays across processes.
   */
  resumeGuard(guard: NonNullable<AgentOptions["resumeGuard"]>): AgentBuilder<State> {
    return this.#with({ resumeGuard: guard });
  }

  /** Receives frames the SDK could not decode (default: `console.warn`). */
  onProtocolError(handler: NonNullable<AgentOptions["onProtocolError"]>): AgentBuilder<State> {
    return this.#with({ onProtocolError: handler });
  }

  /**
   * Where the SDK's warnings go (`debug`/`info`/`warn`/`error`; `console` fits). Default: `console`,
   * prefixed `antigravity: `. The Node runtime's subprocess transport sends harness stderr lines to it too.
   */
  logger(logger: NonNullable<AgentOptions["logger"]>): AgentBuilder<State> {
    return this.#with({ logger });
  }

  /**
   * Traces the session through an OpenTelemetry `Tracer` (`trace.getTracer("my-app")`) with the
   * GenAI semantic conventions: `invoke_agent` for the session, `chat` per turn, `execute_tool`
   * per client tool call. The SDK itself depends on no OpenTelemetry package. `options.parentContext`
   * (e.g. `context.active()`) makes the session span a child of that context's span.
   */
  tracer(
    tracer: NonNullable<AgentOptions["tracer"]>,
    options: { parentContext?: NonNullable<AgentOptions["traceContext"]> } = {},
  ): AgentBuilder<State> {
    return this.#with(
      options.parentContext === undefined ? { tracer } : { tracer, traceContext: options.parentContext },
    );
  }

  /**
   * The agent. Compiles only once a policy was chosen: without one the compiler says the builder
   * is not assignable to {@link CallAllowAllReadOnlyOrPoliciesBeforeBuild}, and plain JavaScript
   * gets the same advice here as `InvalidArgument`.
   */
  build(this: CallAllowAllReadOnlyOrPoliciesBeforeBuild): Agent<OutputOf<State>> {
    const builder: AgentBuilder<BuilderState> = this;
    if (builder.#options.policies === undefined && !builder.#evaluates())
      throw new SdkError(ErrorCode.InvalidArgument, NO_POLICY_MESSAGE);
    return builder.buildUnchecked() as Agent<OutputOf<State>>;
  }

  /** The agent, with or without a chosen policy (none means `confirmRunCommand()`, or `allowAll()` after `eval()`). */
  buildUnchecked(): Agent<OutputOf<State>> {
    // What the chosen wire cannot do fails here, not at start() (start() checks again for agents made without a builder).
    if (this.#options.connection !== undefined)
      assertCapabilities(this.#options, this.#options.connection.capabilities);
    const policies = this.#options.policies ?? (this.#evaluates() ? [allowAll()] : [confirmRunCommand()]);
    return this.#newAgent({ ...this.#options, policies }, this.#defaults) as Agent<OutputOf<State>>;
  }

  /** Whether `eval()` was called (upstream's eval preset allows every tool when no policy is chosen). */
  #evaluates(): boolean {
    return (this.#options.presets ?? []).some((preset) => preset.name === "eval");
  }
}

/**
 * The type state of an {@link AgentBuilder}: whether a policy was chosen (`true`/`false`), or,
 * after `responseSchema(schema)`, that and the type of the structured output. A plain boolean
 * keeps `AgentBuilder<false>` the type named in the forgotten-policy compile error.
 */
export type BuilderState = boolean | { readonly policy: boolean; readonly output: unknown };
/** Whether the state records a chosen policy. */
export type PolicyOf<State extends BuilderState> = State extends { readonly policy: infer P } ? P : State;
/** The structured output type the state records (`unknown` without a typed `responseSchema`). */
export type OutputOf<State extends BuilderState> = State extends { readonly output: infer O } ? O : unknown;
type PolicyChosen<State extends BuilderState> = State extends boolean
  ? true
  : { readonly policy: true; readonly output: OutputOf<State> };
type WithOutput<State extends BuilderState, Output> = unknown extends Output
  ? PolicyOf<State>
  : { readonly policy: PolicyOf<State>; readonly output: Output };

/**
 * The type of `ChatResponse.structuredOutput` for `responseSchema(schema)`: a Standard Schema's
 * output, what a JSON Schema declared `as const` describes, else `unknown`.
 */
export type ResponseOutput<Schema> = Schema extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<Schema>
  : IsLiteralJsonSchema<Schema> extends true
    ? JsonSchemaType<Schema>
    : unknown;

/**
 * A builder on which a policy was chosen: the `this` type of `build()`. Its name is the fix the
 * compiler shows for a forgotten policy ("'AgentBuilder<false>' is not assignable to …
 * 'CallAllowAllReadOnlyOrPoliciesBeforeBuild'").
 */
export interface CallAllowAllReadOnlyOrPoliciesBeforeBuild
  extends AgentBuilder<true | { readonly policy: true; readonly output: unknown }> {}

/** @internal The advice of `build()`, `new Agent(options)` and `run()` without a policy. */
export const NO_POLICY_MESSAGE =
  "no policy chosen: call allowAll(), readOnly(), confirmRunCommand() or policies(...) before build() (buildUnchecked() builds with confirmRunCommand())";
