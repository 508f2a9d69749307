import { buildHarnessConfig } from "../config/harness-config.js";
import { activeBuiltinTools, WRITE_TOOLS } from "../config/builtin-tools.js";
import { normalizeWorkspacePath, type LocalPathResolver } from "../config/workspace-path.js";
import type { ConfirmTool } from "../connection/harness-connection-options.js";
import type { TurnOutcome } from "../connection/turn.js";
import type { SandboxStatus } from "../connection/connection.js";
import type { Connection } from "../connection/connection.js";
import { assertCapabilities } from "./capability-check.js";
import { localHarness, type ConnectionStrategy } from "./connection-strategy.js";
import { Conversation } from "../conversation/conversation.js";
import { ErrorCode, SdkError } from "../errors.js";
import { definedProperties } from "../defined-properties.js";
import type { ResumeDecision, ResumedTurn, ResumeTarget } from "./resume.js";
import { subagentOnlyTools } from "../config/custom-subagents.js";
import type { HookRunner } from "../hooks/hook-runner.js";
import { evaluatePolicies } from "../policies/evaluate.js";
import { askHandler } from "../policies/policy-config.js";
import { confirmRunCommand, flattenPolicies, type Policy } from "../policies/policy.js";
import type { SessionTelemetry } from "../connection/session-telemetry.js";
import { isStandardSchema, type StandardSchemaV1 } from "../tools/standard-schema.js";
import { ToolRunner } from "../tools/tool-runner.js";
import { readEnvironment, WebSocketTransport } from "../transport/websocket-transport.js";
import type { TriggerRunner } from "../triggers/trigger-runner.js";
import type { ChatStream } from "../conversation/chat-stream.js";
import type { HarnessConfig } from "../wire/index.js";
import { StreamingSession, type StreamingSessionOptions } from "../session/streaming-session.js";
import type { CallOptions } from "../call-options.js";
import type { ChatResponse } from "../conversation/chat-response.js";
import type { Prompt } from "../prompt.js";
import { AgentBuilder } from "./agent-builder.js";
import type { AgentBuilderDefaults, AgentOptions, AgentOptionsWithPolicy, TransportContext } from "./agent-options.js";
import { NO_POLICY_MESSAGE } from "./agent-builder.js";
import { clientInfo } from "./client-info.js";
import { registeredAgentDefaults } from "./runtime-defaults.js";

/**
 * An agent that is configured but not started (antigravity-api.md §2.2): `start()` connects to
 * the harness and returns a {@link StartedAgent}, the only type with `chat`. Get one from
 * `Agent.builder()...build()` (the one way the docs use); `new Agent(options)` is the same agent
 * from an options object, with the same guarantees: the runtime's registered defaults and a
 * policy chosen explicitly.
 *
 * @example
 * await using agent = await Agent.builder().transport(transport).allowAll().build().start();
 * const response = await agent.chatToCompletion("What is 2 + 3?");
 */
export class Agent<Output = unknown> {
  readonly options: Readonly<AgentOptions>;
  readonly #defaults: AgentBuilderDefaults;
  #started = false;

  /**
   * The agent of `options`, as `Agent.builder()` would build it: it starts from the defaults a
   * runtime package registered (importing `@antigravity-ts/node` registers Node's), which
   * `defaults` replace, and, like `build()`, it needs `policies` chosen explicitly (the type
   * requires them; JavaScript gets `InvalidArgument`).
   */
  constructor(options: AgentOptionsWithPolicy, defaults: AgentBuilderDefaults = registeredAgentDefaults()) {
    if (options.policies === undefined) throw new SdkError(ErrorCode.InvalidArgument, NO_POLICY_MESSAGE);
    this.options = { ...options };
    this.#defaults = defaults;
  }

  /**
   * A builder whose `build()` compiles only after a policy was chosen (`allowAll()`, `policy()`,
   * `policies()`, `readOnly()`, `confirmRunCommand()`). It starts from the defaults a runtime
   * package registered (importing `@antigravity-ts/node` registers Node's: a harness subprocess,
   * the working directory as workspace); `defaults` win over them.
   */
  static builder(defaults: AgentBuilderDefaults = {}): AgentBuilder<false> {
    return AgentBuilder.create(
      { ...registeredAgentDefaults(), ...defaults },
      (options, builderDefaults) => new Agent(options, builderDefaults),
    );
  }

  /**
   * Connects, sends the configuration, waits for the harness to accept it and starts the
   * triggers (bounded by `signal`/`timeoutMs`). Options are validated first (`InvalidArgument`);
   * on any failure nothing is left running. An agent starts once (`FailedPrecondition` after).
   */
  async start(options: CallOptions = {}): Promise<StartedAgent<Output>> {
    if (this.#started)
      throw new SdkError(
        ErrorCode.FailedPrecondition,
        "this agent was already started; build a new one for another session",
      );
    this.#started = true; // a second start() while this one runs fails at once
    return this.#start(options);
  }

  /**
   * Resumes a turn paused on a deferred confirmation (docs/continuations.md): checks
   * `continuation` (version, shape, `continuationSecret` signature) and that `decision` answers
   * the call it awaits, connects to its conversation (a new session of this agent's
   * configuration, in this process or any other), sends the decision and returns the rest of the
   * turn. Fails closed with a typed `SdkError`: `InvalidArgument` (malformed, wrong call),
   * `FailedPrecondition` (unknown version, replayed), `PermissionDenied` (bad signature),
   * `NotFound` (the harness no longer holds the confirmation). The resume steps load on the
   * first call (a dynamic import): an app that never resumes does not download them.
   */
  async resume(
    continuation: unknown,
    decision: ResumeDecision,
    options: CallOptions = {},
  ): Promise<ResumedTurn<Output>> {
    const { resumeContinuation } = await import("./resume.js");
    const guard =
      this.options.resumeGuard ?? (await import("../continuation/consumed-confirmations.js")).processResumeGuard;
    return resumeContinuation(
      (target, call) => this.#start(call, target),
      continuation,
      decision,
      this.options.continuationSecret,
      guard,
      options,
    );
  }

  async #start(options: CallOptions, resume?: ResumeTarget): Promise<StartedAgent<Output>> {
    let o: AgentOptions;
    let session: SessionParts;
    try {
      const configured = this.#defaults.fromEnvironment?.(this.options) ?? this.options;
      o =
        resume === undefined
          ? configured
          : { ...configured, conversationId: resume.conversationId, sessionContinuationMode: "resume" };
      session = await this.#prepare(o);
    } catch (error) {
      if (resume === undefined) this.#started = false; // nothing is running: the agent may try again
      throw error;
    }
    this.#started = true;
    const { config, strategy, tools, hooks, policies, triggers, telemetry, logger } = session;
    telemetry?.startSession();
    let connection: Connection;
    let started: StartedAgent<Output> | undefined;
    try {
      const confirmTool = confirmWith(policies, hooks, resume?.heldConfirmation);
      connection = await strategy.connect(
        {
          config,
          tools,
          hooks,
          policies,
          confirmTool,
          logger,
          telemetry,
          onProtocolError: o.onProtocolError,
          transportContext: this.#transportContext(),
        },
        options,
      );
    } catch (error) {
      if (resume === undefined) this.#started = false; // nothing is running: the agent may try again
      telemetry?.endSession(error);
      throw error;
    }
    telemetry?.connected(connection);
    // Loaded only when the harness says it cannot sandbox (rare): the warning stays out of the start-up bundle.
    if (connection.sandboxStatus?.available === false)
      (await import("./sandbox-warning.js")).warnIfSandboxUnavailable(config, connection.sandboxStatus, logger);
    try {
      const history = {
        // A Standard Schema `responseSchema` validates every turn's structured output (docs/tools-hooks-policies.md).
        ...(isStandardSchema(o.responseSchema)
          ? { structuredOutput: o.responseSchema as StandardSchemaV1<unknown, Output> }
          : {}),
        ...definedProperties({ maxHistorySize: o.maxHistorySize }),
        ...(logger === undefined
          ? {}
          : { onSaveError: (error: SdkError) => logger.warn(`could not save the conversation: ${error.message}`) }),
        ...definedProperties({ continuationSecret: o.continuationSecret }),
        // A deferred confirmation ended the turn: the session closes and the harness holds the call (docs/continuations.md).
        onTurnEnded: (outcome: TurnOutcome) => {
          if (outcome.awaitingConfirmation !== undefined)
            queueMicrotask(() => void started?.stop().catch(() => undefined));
        },
      };
      // Seed 002: restore what the store holds for this session; save after every turn.
      const conversation =
        o.conversationStore === undefined
          ? new Conversation<Output>(connection, history)
          : await Conversation.load<Output>(connection, { ...history, store: o.conversationStore });
      await triggers?.start({
        conversationId: connection.conversationId,
        isIdle: () => connection.isIdle,
        waitForIdle: (wait) => connection.waitForIdle(wait),
        sendTrigger: async (message, send = {}) => {
          if (send.delivery === "whenIdle") await connection.waitForIdle(send);
          await connection.sendTrigger(message, send);
        },
      });
      started = new StartedAgent<Output>(connection, conversation, triggers, telemetry);
      return started;
    } catch (error) {
      await connection.disconnect().catch(() => undefined);
      telemetry?.endSession(error);
      throw SdkError.from(error);
    }
  }

  /**
   * Validates the options and builds what a session needs: its configuration, transport and
   * runners. Hooks, triggers and telemetry load only when the agent has them (dynamic imports): a
   * browser app without them does not download their code (docs/bundle-size.md).
   */
  async #prepare(given: AgentOptions): Promise<SessionParts> {
    // Presets (eval(), lightweight()) and a thinking level for models([...]): loaded only when used.
    const o =
      given.presets !== undefined || (given.models !== undefined && given.modelOptions?.thinkingLevel !== undefined)
        ? (await import("../config/presets.js")).resolvedOptions(given)
        : given;
    const policies = flattenPolicies(o.policies ?? [confirmRunCommand()]);
    // Subagents' own client tools run here too, declared only in their CustomAgent (upstream).
    const subagentTools = subagentOnlyTools(o.customSubagents ?? [], o.tools ?? []);
    const tools = new ToolRunner([...(o.tools ?? []), ...subagentTools]);
    const logger = o.logger;
    const hooks =
      (o.hooks ?? []).length === 0
        ? undefined
        : new (await import("../hooks/hook-runner.js")).HookRunner(o.hooks ?? []);
    const onError = (error: SdkError): void => logger?.warn(`trigger failed: ${error.message}`);
    const triggers =
      (o.triggers ?? []).length === 0
        ? undefined
        : new (await import("../triggers/trigger-runner.js")).TriggerRunner(
            o.triggers ?? [],
            logger === undefined ? {} : { onError },
          );
    // The runtime's defaults (Node: the working directory as workspace, upstream's app data
    // directory) describe this machine, so they go only to the runtime's own harness: no transport
    // given, or a factory that starts one. A transport the user points elsewhere (a gateway, a
    // remote harness) gets what the builder says, and the harness keeps its own defaults.
    const strategy = this.#strategy(o);
    assertCapabilities(o, strategy.capabilities);
    const ownHarness = (o.connection === undefined && o.transport === undefined) || strategy.startsHarness === true;
    const workspaces = workspacesWith(
      o.workspaces ?? (ownHarness ? this.#defaults.defaultWorkspaces?.() : undefined),
      this.#defaults.resolveWorkspace,
    );
    const appDataDir = o.appDataDir ?? (ownHarness ? this.#defaults.defaultAppDataDir?.() : undefined);
    const config = buildHarnessConfig(
      { ...o, ...definedProperties({ workspaces, appDataDir }) },
      definedProperties({ tools, hooks, policies, subagentTools: subagentTools.map((tool) => tool.name) }),
    );
    assertSafety(o, policies, hooks);
    const telemetry =
      o.tracer === undefined
        ? undefined
        : new (await import("../connection/session-telemetry.js")).SessionTelemetry(
            o.tracer,
            definedProperties({ parentContext: o.traceContext }),
          );
    return { config, strategy, tools, hooks, policies, triggers, telemetry, logger };
  }

  /**
   * The agent's connection strategy: its own, else `.transport(t)`'s localharness shorthand, else
   * the runtime's default transport, else a harness the environment names (§4).
   */
  #strategy(o: AgentOptions): ConnectionStrategy {
    if (o.connection !== undefined && o.transport !== undefined) {
      throw new SdkError(
        ErrorCode.InvalidArgument,
        "give either connection(...) or transport(...), not both: transport(t) is the shorthand of connection(localHarness(t))",
      );
    }
    if (o.connection !== undefined) return o.connection;
    const chosen = o.transport ?? this.#defaults.defaultTransport;
    if (chosen !== undefined) return localHarness(chosen);
    // Core default: a harness that is already listening, named by the environment (§4).
    if (
      readEnvironment("ANTIGRAVITY_HARNESS_HOST") !== undefined ||
      readEnvironment("ANTIGRAVITY_HARNESS_PORT") !== undefined
    ) {
      return localHarness(new WebSocketTransport());
    }
    throw new SdkError(
      ErrorCode.FailedPrecondition,
      "no transport: pass .transport(...) (e.g. new WebSocketTransport({ url, apiKey })), set ANTIGRAVITY_HARNESS_HOST/ANTIGRAVITY_HARNESS_PORT, or import @antigravity-ts/node, whose Agent starts the harness for you",
    );
  }

  #transportContext(): TransportContext {
    const o = this.options;
    return {
      clientInfo: clientInfo(),
      ...definedProperties({ logger: o.logger }),
    };
  }
}

/**
 * A running agent session. Like its {@link Conversation}, `chat()` streams a turn and
 * `chatToCompletion()` waits for all of it; `conversation()` gives history, usage and the raw
 * step API; `stop()` (or `await using`) ends the session, stopping triggers and closing the transport.
 *
 * @example
 * for await (const chunk of agent.chat("Tell me a story")) if (chunk.type === "text") write(chunk.text);
 * const { text } = await agent.chatToCompletion("And now in one line?");
 */
export class StartedAgent<Output = unknown> implements AsyncDisposable {
  readonly #connection: Connection;
  readonly #conversation: Conversation<Output>;
  readonly #triggers: TriggerRunner | undefined;
  readonly #telemetry: SessionTelemetry | undefined;
  #stopping: Promise<void> | undefined;

  /** @internal Created by {@link Agent.start}. */
  constructor(
    connection: Connection,
    conversation: Conversation<Output>,
    triggers?: TriggerRunner,
    telemetry?: SessionTelemetry,
  ) {
    this.#connection = connection;
    this.#conversation = conversation;
    this.#triggers = triggers;
    this.#telemetry = telemetry;
  }

  /** The conversation id the harness uses. */
  get conversationId(): string {
    return this.#connection.conversationId;
  }

  /** The session's protocol connection. */
  get connection(): Connection {
    return this.#connection;
  }

  /**
   * What this session runs on: its conversation id and the era of the wire the SDK writes
   * (`localHarness(transport, { wireEra })`, default `"0.1.19"`; undefined for a wire without eras).
   */
  get info(): { readonly conversationId: string; readonly wireEra: string | undefined } {
    return { conversationId: this.#connection.conversationId, wireEra: this.#connection.wireEra };
  }

  /** What the harness said of run_command's OS sandbox (`capabilities.runCommand.enableSandbox`); undefined from an older harness. */
  get sandboxStatus(): SandboxStatus | undefined {
    return this.#connection.sandboxStatus;
  }

  /** The stateful conversation: streaming chat, history, usage. */
  conversation(): Conversation<Output> {
    return this.#conversation;
  }

  /** Sends `prompt` and returns its turn as a {@link ChatStream} (= `conversation().chat`). */
  chat(prompt: Prompt, options?: CallOptions): ChatStream<Output> {
    return this.#conversation.chat(prompt, options);
  }

  /** Sends `prompt` and waits for the whole turn (= `chat(prompt, options).final()`). */
  chatToCompletion(prompt: Prompt, options?: CallOptions): Promise<ChatResponse<Output>> {
    return this.#conversation.chatToCompletion(prompt, options);
  }

  /**
   * A long-lived {@link StreamingSession} over this agent's conversation: send user messages at
   * any time, read one event stream across turns; `midTurn` says what a message sent while a
   * turn runs does (default `"queue"`). See docs/streaming-session.md.
   */
  streamingSession(options?: StreamingSessionOptions): StreamingSession {
    return new StreamingSession(this.#conversation, options);
  }

  /** Resolves once no turn runs, a trigger's included (= `conversation().waitForIdle(options)`). */
  waitForIdle(options?: CallOptions): Promise<void> {
    return this.#conversation.waitForIdle(options);
  }

  /** Stops the triggers, runs the session-end hooks and closes the transport. Idempotent. */
  stop(options?: CallOptions): Promise<void> {
    this.#stopping ??= (async () => {
      try {
        await this.#triggers?.stop(options);
      } finally {
        try {
          await this.#conversation.disconnect(options);
        } finally {
          this.#telemetry?.endSession(); // the `invoke_agent` span covers the whole session
        }
      }
    })();
    return this.#stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

/** What {@link Agent}'s `#prepare` builds for a session. */
interface SessionParts {
  config: HarnessConfig;
  strategy: ConnectionStrategy;
  tools: ToolRunner;
  hooks: HookRunner | undefined;
  policies: readonly Policy[];
  triggers: TriggerRunner | undefined;
  telemetry: SessionTelemetry | undefined;
  logger: AgentOptions["logger"];
}

/** Workspaces normalised with the runtime's resolver (upstream `normalize_workspace_paths`). */
function workspacesWith(
  workspaces: readonly string[] | undefined,
  resolve: LocalPathResolver | undefined,
): readonly string[] | undefined {
  if (workspaces === undefined || resolve === undefined || !Array.isArray(workspaces)) return workspaces;
  return workspaces.map((workspace: string) => normalizeWorkspacePath(workspace, resolve));
}

/**
 * Upstream's safety rule (antigravity-api.md §3.2): write tools enabled with an explicitly empty
 * policy list and no pre-tool hook is refused.
 */
function assertSafety(options: AgentOptions, policies: readonly Policy[], hooks: HookRunner | undefined): void {
  if (policies.length > 0 || hooks?.has("preToolCall") === true) return;
  const active = activeBuiltinTools(options.capabilities);
  const writers = WRITE_TOOLS.filter((tool) => active.has(tool));
  if (writers.length === 0 && (options.mcpServers ?? []).length === 0) return;
  throw new SdkError(
    ErrorCode.InvalidArgument,
    `write tools (${writers.join(", ") || "MCP servers"}) are enabled without a safety policy: add a policy (e.g. confirmRunCommand(), readOnly(), allowAll()) or a preToolCall hook, or disable them`,
  );
}

/**
 * Decides built-in confirmations (§8): the policies' verdict (ASK_USER asks its handler), then
 * the PRE_TOOL hooks. Nothing matching means accept, as upstream does.
 */
function confirmWith(policies: readonly Policy[], hooks: HookRunner | undefined, held?: string): ConfirmTool {
  return async (call, step) => {
    // agent.resume answers the confirmation its continuation awaits itself, once it checked it.
    if (held !== undefined && `${step.trajectoryId}:${step.stepIndex}` === held) return "manual";
    const verdict = await evaluatePolicies(policies, call);
    if (verdict.decision === "deny") return false;
    // An ask-user policy without a handler (deferToUser) defers: the turn pauses (docs/continuations.md).
    if (verdict.decision === "ask_user") {
      return verdict.policy?.handler === undefined
        ? "defer"
        : await askHandler(verdict.policy, call, {
            trajectoryId: step.trajectoryId,
            stepIndex: step.stepIndex,
            stepId: step.id,
          });
    }
    if (hooks === undefined || !hooks.has("preToolCall")) return true;
    return (await hooks.preToolCall({ ...call, trajectoryId: step.trajectoryId, stepIndex: step.stepIndex })).allow;
  };
}
