// A `Connection` over the Agent Client Protocol, built on the field's own library
// `@agentclientprotocol/sdk` 2.x (stable ACP v1: `client()`, `connect(stream)`, `methods`).
// Method and field names: that library's dist/v1/stable/acp.d.ts and dist/v1/schema/types.gen.d.ts.
import { SerialQueue } from "../util/serial-queue.js";
import * as acp from "@agentclientprotocol/sdk";
import type { Usage as AcpUsage } from "@agentclientprotocol/sdk/unstable";
import type { CallOptions } from "../call-options.js";
import type { Connection, UsageSnapshot } from "../connection/connection.js";
import type { ConfirmTool } from "../connection/harness-connection-options.js";
import { Turn, type TurnObserver } from "../connection/turn.js";
import { latestTurnView, observerTaken, STEP_MAPPER, viewOf } from "../connection/turn-view.js";
import { ErrorCode, SdkError } from "../errors.js";
import { assertPromptNotBlank, type Prompt } from "../prompt.js";
import {
  emptyUsage,
  StepStatus,
  type QuestionResponse,
  type Step,
  type StopReason,
  SYNTHETIC_STEP_INDEX_BASE,
  type ToolCall,
  type ToolResult,
  type UsageMetadata,
} from "../step.js";
import type { Logger } from "../telemetry/logger.js";
import { addUsage } from "../usage.js";
import { linkSignal, raceSignal, throwIfAborted } from "../util/abort.js";
import { activeToolStep, finishedToolStep } from "../connection/synthetic-steps.js";
import type { ClientToolResult, ToolRunner } from "../tools/tool-runner.js";
import type { ToolContext } from "../tools/tool.js";
import { base64 } from "./acp-base64.js";
import { mcpToolHandler, type AcpToolHost } from "./acp-mcp-tools.js";
import { AcpStepBuilder, type AcpSessionEvent, type AcpToolCallDetails } from "./acp-steps.js";
import {
  commandLineOf,
  serveTerminals,
  type AcpTerminalExit,
  type AcpTerminalRequest,
  type AcpTerminals,
} from "./acp-terminals.js";

/** What {@link AcpConnection.open} needs. */
export interface AcpConnectionOptions {
  /** JSON-RPC messages to and from the agent (`ndJsonStream(...)` of the library, an in-memory pair, a WebSocket bridge). */
  stream: acp.Stream;
  /** `session/new`'s `cwd` (ACP: an absolute path). */
  cwd: string;
  /** `session/new`'s `mcpServers`. */
  mcpServers?: acp.McpServer[];
  /** A session to load (`session/load`) instead of a new one; needs the agent's `loadSession` capability. */
  loadSessionId?: string;
  /** `authenticate` with this method id (one of the agent's `authMethods`) after `initialize`. */
  authMethodId?: string;
  /** `session/set_mode` with this mode id once the session exists. */
  modeId?: string;
  confirmTool: ConfirmTool;
  logger?: Logger | undefined;
  /** Serves `fs/read_text_file` and `fs/write_text_file` (and advertises them); default: not served. */
  fileSystem?: AcpFileSystem | undefined;
  /** Runs the agent's `terminal/*` commands (and advertises `terminal`), each allowed by `confirmTool` as `run_command`; default: not served. */
  terminals?: AcpTerminals | undefined;
  /** The agent's client tools: offered to the agent as an MCP server on `toolHost` (added to `mcpServers`) when there is any. */
  tools?: ToolRunner | undefined;
  /** Serves `tools` as an MCP server for this session (Node: `loopbackMcpHost()`); needed when `tools` has any. */
  toolHost?: AcpToolHost | undefined;
  /** The update kinds that make no step (plan, available commands, mode, usage ...), as the library types them. */
  onSessionUpdate?: ((event: AcpSessionEvent) => void) | undefined;
  /** How long `initialize` may take (the agent may never answer). Default 60,000 ms. */
  initializeTimeoutMs?: number;
  /**
   * Turns a failure of the peer (the stream closed, a malformed line) into the error the user sees:
   * the Node edge adds the agent's exit status and stderr tail. Default: the error as is.
   */
  describeFailure?: (error: SdkError) => SdkError | Promise<SdkError>;
  /** Called once the connection is closed, to release what carries the stream (the agent process). */
  release?: () => Promise<void>;
}

/**
 * The client's file system as an ACP agent may use it (`fs/read_text_file`, `fs/write_text_file`):
 * off unless given; then `clientCapabilities.fs` says so. Paths are the agent's (ACP: absolute).
 * `workspaceTextFiles` of `@antigravity-ts/harness` confines them to workspace roots with the
 * reference harness's own checks. A rejection is answered as a JSON-RPC error with its message.
 */
export interface AcpFileSystem {
  /** `ReadTextFileRequest { path, line?, limit? }`: from 1-based `line`, at most `limit` lines. */
  readTextFile(path: string, range: { line?: number; limit?: number }): Promise<string>;
  /** `WriteTextFileRequest { path, content }`. */
  writeTextFile(path: string, content: string): Promise<void>;
}

/** `PromptResponse.stopReason` → the SDK's `StopReason` (§16) where one fits; `undefined` for a normal end. */
const STOP_REASONS: Record<acp.StopReason, StopReason | undefined | "cancelled" | "refusal"> = {
  end_turn: undefined,
  max_tokens: "MAX_OUTPUT_TOKENS_EXCEEDED",
  max_turn_requests: "MAX_MODEL_CALLS_EXCEEDED",
  refusal: "refusal",
  cancelled: "cancelled",
};

/**
 * One ACP session as a {@link Connection}: `send` is `session/prompt`, its `session/update`s are the
 * turn's steps (acp-steps.ts), `halt` is `session/cancel` (the partial turn kept), and
 * `session/request_permission` is answered by the agent's `confirmTool` (its policies, `askUser`
 * handlers and `preToolCall` hooks). Built by `acpAgent`.
 */
export class AcpConnection implements Connection {
  /** The agent's `initialize` response. */
  readonly agentInfo: acp.InitializeResponse;
  /** `session/new` (or `session/load`) modes, when the agent has any. */
  readonly modes: acp.SessionModeState | undefined;
  readonly #peer: acp.ClientConnection;
  readonly #sessionId: string;
  readonly #options: AcpConnectionOptions;
  readonly #builder: AcpStepBuilder;
  readonly #closedListeners: ((reason: SdkError) => void)[] = [];
  /** The loaded session's replayed steps (latest state per step, in first-arrival order). */
  readonly #history = new Map<string, Step>();
  readonly #resumedListeners: ((history: readonly Step[]) => void)[] = [];
  /** True from a `session/load` until the first prompt: updates then are the replay (Gemini CLI sends part of it after answering the load). */
  #replaying: boolean;
  /** Permission requests left to the caller (`"manual"`), by `<trajectoryId>:<stepIndex>`. */
  readonly #manual = new Map<string, (accepted: boolean) => void>();
  /** The turn each step belongs to (a WeakMap would do, but steps are keyed by id). */
  readonly #owners = new Map<string, Turn>();
  #observer: TurnObserver | undefined;
  #turn: Turn | undefined;
  readonly #sends = new SerialQueue();
  /** Ends what the session serves the agent (its terminals, its client tools' MCP server) once it closes. */
  readonly #hosts: (() => Promise<void>)[];
  #nextSyntheticIndex = SYNTHETIC_STEP_INDEX_BASE;
  /** The client tools' `ToolContext.state`, shared by every call of the session. */
  readonly #toolState = new Map<string, unknown>();
  #usage: UsageSnapshot;
  #stopReason: StopReason | undefined;
  #closed: SdkError | undefined;

  private constructor(
    peer: acp.ClientConnection,
    init: acp.InitializeResponse,
    session: {
      sessionId: string;
      modes: acp.SessionModeState | undefined;
      history: Step[];
      builder: AcpStepBuilder;
      loaded: boolean;
    },
    options: AcpConnectionOptions,
    hosts: (() => Promise<void>)[],
  ) {
    this.#hosts = hosts;
    this.#peer = peer;
    this.agentInfo = init;
    this.#sessionId = session.sessionId;
    this.modes = session.modes;
    for (const step of session.history) this.#history.set(step.id, step);
    this.#replaying = session.loaded;
    this.#builder = session.builder;
    this.#options = options;
    this.#usage = { total: emptyUsage(), byTrajectory: new Map() };
  }

  /**
   * Connects: `initialize` (protocol version `PROTOCOL_VERSION`, no client capabilities),
   * `authenticate` when asked, then `session/new` or `session/load`, then `session/set_mode` when
   * asked. Rejects with a typed error (the peer's failure described by `describeFailure`) after
   * releasing the stream.
   */
  static async open(options: AcpConnectionOptions, callOptions: CallOptions = {}): Promise<AcpConnection> {
    let self: AcpConnection | undefined;
    const clientTool = (call: ToolCall): Promise<ClientToolResult> =>
      self === undefined
        ? Promise.resolve({ id: call.id, name: call.name, error: "the session is not open yet" })
        : self.#clientTool(call);
    let pending: { builder: AcpStepBuilder; history: Step[] } | undefined;
    const early: acp.SessionNotification[] = [];
    const app = acp
      .client({ name: "antigravity-ts" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        if (self !== undefined) self.#update(params);
        else if (pending !== undefined) {
          // session/load replays the conversation as updates before it answers (ACP "Loading Sessions").
          const steps = pending.builder.apply(params.update);
          pending.history.push(...steps);
          if (steps.length === 0) options.onSessionUpdate?.(params.update as AcpSessionEvent);
        } else early.push(params);
      })
      .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
        if (self === undefined) return { outcome: { outcome: "cancelled" as const } };
        return self.#permission(params);
      });
    const fs = options.fileSystem;
    if (fs !== undefined) {
      const answer = async <T>(run: () => Promise<T>): Promise<T> => {
        try {
          return await run();
        } catch (error) {
          throw acp.RequestError.invalidParams(undefined, error instanceof Error ? error.message : String(error));
        }
      };
      app
        .onRequest(acp.methods.client.fs.readTextFile, ({ params }) =>
          answer(async () => ({
            content: await fs.readTextFile(params.path, {
              ...(params.line == null ? {} : { line: params.line }),
              ...(params.limit == null ? {} : { limit: params.limit }),
            }),
          })),
        )
        .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) =>
          answer(async () => (await fs.writeTextFile(params.path, params.content), {})),
        );
    }
    const terminals =
      options.terminals === undefined
        ? undefined
        : serveTerminals(app, options.terminals, {
            sessionId: () => (self === undefined ? undefined : self.#sessionId),
            cwd: options.cwd,
            confirm: (request, terminalId) => {
              if (self === undefined) return Promise.reject(new Error("the session is not open yet"));
              return self.#confirmCommand(request, terminalId);
            },
            exited: (terminalId, exit) => {
              if (self !== undefined) self.#commandExited(terminalId, exit);
            },
          });
    const peer = app.connect(options.stream);
    const hosts: (() => Promise<void>)[] = terminals === undefined ? [] : [() => terminals.releaseAll()];
    const releaseHosts = () => Promise.allSettled(hosts.map((close) => close())).then(() => undefined);
    const link = linkSignal(callOptions);
    let stage = "initialize";
    const failed = async (error: unknown): Promise<never> => {
      const sdkError = link.signal.aborted
        ? SdkError.from(link.signal.reason, ErrorCode.Canceled)
        : await peerFailure(error instanceof acp.RequestError ? requestError(error, stage) : error, peer, options);
      peer.close(sdkError);
      await releaseHosts();
      await options.release?.();
      throw sdkError;
    };
    try {
      const timeoutMs = options.initializeTimeoutMs ?? 60_000;
      const initialize = peer.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {
          ...(fs === undefined ? {} : { fs: { readTextFile: true, writeTextFile: true } }),
          ...(terminals === undefined ? {} : { terminal: true }),
        },
        clientInfo: { name: "antigravity-ts", version: "0" },
      });
      const init = await raceSignal(withTimeout(initialize, timeoutMs, peer), link.signal);
      if (options.authMethodId !== undefined) {
        if (!(init.authMethods ?? []).some((method) => method.id === options.authMethodId)) {
          throw new SdkError(
            ErrorCode.InvalidArgument,
            `the agent offers no auth method ${JSON.stringify(options.authMethodId)}; it offers ${JSON.stringify((init.authMethods ?? []).map((m) => m.id))}`,
          );
        }
        stage = "authenticate";
        await raceSignal(
          peer.agent.request(acp.methods.agent.authenticate, { methodId: options.authMethodId }),
          link.signal,
        );
      }
      const mcpServers = [...(options.mcpServers ?? [])];
      const tools = options.tools;
      if (tools !== undefined && tools.names.length > 0) {
        mcpServers.push(await toolServer(tools, options.toolHost, init, hosts, (call) => clientTool(call)));
      }
      let builder: AcpStepBuilder;
      let sessionId: string;
      let modes: acp.SessionModeState | undefined;
      let history: Step[] = [];
      if (options.loadSessionId !== undefined && options.loadSessionId !== "") {
        if (init.agentCapabilities?.loadSession !== true) {
          throw new SdkError(
            ErrorCode.Unsupported,
            "resuming a conversation needs session/load, which this ACP agent does not offer (agentCapabilities.loadSession)",
            {
              details: { option: "resume", wire: "acp" },
            },
          );
        }
        builder = new AcpStepBuilder(options.loadSessionId);
        pending = { builder, history: [] };
        stage = "session/load";
        const loaded = await raceSignal(
          peer.agent.request(acp.methods.agent.session.load, {
            sessionId: options.loadSessionId,
            cwd: options.cwd,
            mcpServers,
          }),
          link.signal,
        );
        sessionId = options.loadSessionId;
        modes = loaded?.modes ?? undefined;
        // The history is the steps' latest states, in the order they first came.
        const latest = new Map<string, Step>();
        for (const step of pending.history) latest.set(step.id, step);
        history = [...latest.values()];
      } else {
        stage = "session/new";
        const created = await raceSignal(
          peer.agent.request(acp.methods.agent.session.new, { cwd: options.cwd, mcpServers }),
          link.signal,
        );
        sessionId = created.sessionId;
        builder = new AcpStepBuilder(sessionId);
        modes = created.modes ?? undefined;
      }
      stage = "session/set_mode";
      if (options.modeId !== undefined)
        await raceSignal(
          peer.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: options.modeId }),
          link.signal,
        );
      const connection = new AcpConnection(
        peer,
        init,
        { sessionId, modes, history, builder, loaded: pending !== undefined },
        options,
        hosts,
      );
      self = connection;
      for (const params of early) connection.#update(params);
      void peer.closed.then(
        () => connection.#peerClosed(undefined),
        (error: unknown) => connection.#peerClosed(error),
      );
      return connection;
    } catch (error) {
      return failed(error);
    } finally {
      link.dispose();
    }
  }

  /** Steps the agent replayed on `session/load` (Conversation.load starts from them); empty for a new session. */
  get initialHistory(): readonly Step[] {
    return [...this.#history.values()];
  }

  /** Replay updates that arrive after `session/load` answered, merged by step id (the Conversation's merge). */
  onResumed(listener: (history: readonly Step[]) => void): void {
    this.#resumedListeners.push(listener);
  }

  #replayed(steps: readonly Step[]): void {
    if (steps.length === 0) return;
    for (const step of steps) this.#history.set(step.id, step);
    const history = this.initialHistory;
    for (const listener of this.#resumedListeners) listener(history);
  }

  /** The ACP session id: the conversation id (`Conversation.load` / stores keep it). */
  get conversationId(): string {
    return this.#sessionId;
  }

  get isIdle(): boolean {
    return this.#turn === undefined || this.#turn.settled;
  }

  get usage(): UsageSnapshot {
    return this.#usage;
  }

  get lastStopReason(): StopReason | undefined {
    return this.#stopReason;
  }

  /** What ACP said of a tool step (kind, status, content, locations, diffs), by step id. */
  toolCallDetails(stepId: string): AcpToolCallDetails | undefined {
    return this.#builder.details(stepId);
  }

  observeTurns(observer: TurnObserver): void {
    if (this.#observer !== undefined) throw observerTaken();
    this.#observer = observer;
    if (this.#turn !== undefined && !this.#turn.settled) observer.turnStarted(this.#turn);
  }

  onClosed(listener: (reason: SdkError) => void): void {
    if (this.#closed !== undefined) listener(this.#closed);
    else this.#closedListeners.push(listener);
  }

  send(prompt: Prompt, options?: CallOptions): Promise<Turn> {
    try {
      assertPromptNotBlank(prompt);
    } catch (error) {
      return Promise.reject(SdkError.from(error));
    }
    return this.#sends.run(() => this.#send(prompt, options));
  }

  async #send(prompt: Prompt, options?: CallOptions): Promise<Turn> {
    const link = linkSignal(options);
    try {
      while (this.#turn !== undefined && !this.#turn.settled) await raceSignal(this.#turn.over(), link.signal);
      if (this.#closed !== undefined) throw this.#closed;
      throwIfAborted(link.signal);
      const blocks = this.#promptBlocks(prompt);
      if (this.#replaying) {
        this.#replaying = false;
        this.#replayed(this.#builder.endTurn(StepStatus.Done));
      }
      this.#stopReason = undefined;
      const turn = new Turn({ solicited: true });
      this.#turn = turn;
      this.#observer?.turnStarted(turn);
      const response = this.#peer.agent.request(acp.methods.agent.session.prompt, {
        sessionId: this.#sessionId,
        prompt: blocks,
      });
      void response.then(
        (result) => this.#turnEnded(turn, result),
        (error: unknown) => void this.#turnFailed(turn, error),
      );
      return turn;
    } finally {
      link.dispose();
    }
  }

  receiveSteps(options?: CallOptions): AsyncIterable<Step> {
    return latestTurnView(
      () => viewOf(this.#turn),
      () => STEP_MAPPER,
      options,
    );
  }

  async sendToolResponse(_result: ToolResult): Promise<void> {
    throw unsupported("client tool responses", "ACP has no client-declared tools");
  }

  /** Answers a permission request the agent's `confirmTool` left to the caller (`"manual"`). */
  async sendToolConfirmation(
    trajectoryId: string,
    stepIndex: number,
    accepted: boolean,
    options?: CallOptions,
  ): Promise<void> {
    throwIfAborted(options?.signal);
    const answer = this.#manual.get(`${trajectoryId}:${stepIndex}`);
    if (answer === undefined)
      throw new SdkError(ErrorCode.NotFound, `no permission request waits for step ${trajectoryId}:${stepIndex}`);
    answer(accepted);
  }

  async sendQuestionResponse(_trajectoryId: string, _stepIndex: number, _response: QuestionResponse): Promise<void> {
    throw unsupported("question responses", "ACP has no ask_question request");
  }

  async sendTrigger(_message: string): Promise<void> {
    throw unsupported("triggers", "ACP has no message injected into a running session");
  }

  async waitForIdle(options?: CallOptions): Promise<void> {
    const link = linkSignal(options);
    try {
      while (this.#turn !== undefined && !this.#turn.settled) await raceSignal(this.#turn.over(), link.signal);
      if (this.#closed !== undefined) throw this.#closed;
    } finally {
      link.dispose();
    }
  }

  /** `session/cancel`: the agent stops and answers the prompt with `stopReason: "cancelled"`; the turn ends `Canceled` with the steps it had. */
  async halt(options?: CallOptions): Promise<void> {
    throwIfAborted(options?.signal);
    if (this.#closed !== undefined) throw this.#closed;
    const turn = this.#turn;
    if (turn === undefined || turn.settled) return;
    turn.halt();
    // ACP "Cancellation": the client answers every pending permission request with `cancelled`.
    for (const answer of this.#manual.values()) answer(false);
    await this.#peer.agent.notify(acp.methods.agent.session.cancel, { sessionId: this.#sessionId });
  }

  async disconnect(options?: CallOptions): Promise<void> {
    if (this.#closed !== undefined) return;
    throwIfAborted(options?.signal);
    const reason = new SdkError(
      ErrorCode.ConnectionClosed,
      "the connection was disconnected: create a new one to continue",
    );
    if (this.#turn !== undefined && !this.#turn.settled) {
      await this.#peer.agent
        .notify(acp.methods.agent.session.cancel, { sessionId: this.#sessionId })
        .catch(() => undefined);
    }
    this.#close(reason);
    this.#peer.close(reason);
    await Promise.allSettled(this.#hosts.map((close) => close()));
    await this.#options.release?.();
  }

  #update(params: acp.SessionNotification): void {
    if (params.sessionId !== this.#sessionId) return;
    const steps = this.#builder.apply(params.update);
    if (steps.length === 0) {
      this.#options.onSessionUpdate?.(params.update as AcpSessionEvent);
      return;
    }
    if (this.#replaying && (this.#turn === undefined || this.#turn.settled)) {
      this.#replayed(steps);
      return;
    }
    for (const step of steps) {
      // An update of a step an earlier turn has goes to that turn (after its end: the recorder's `late`), never to the next.
      const owner = this.#owners.get(step.id) ?? this.#turn;
      if (owner === undefined) continue;
      this.#owners.set(step.id, owner);
      owner.push(step);
    }
  }

  async #permission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const turn = this.#turn;
    if (turn === undefined || turn.settled || turn.halted) return { outcome: { outcome: "cancelled" } };
    for (const step of this.#builder.waiting(params.toolCall)) turn.push(step);
    const step = this.#builder.toolStep(params.toolCall.toolCallId);
    const call = step?.toolCalls[0];
    if (step === undefined || call === undefined) return { outcome: { outcome: "cancelled" } };
    const decision = await this.#decide(turn, call, step);
    if (turn.halted || turn.settled) return { outcome: { outcome: "cancelled" } };
    if (!decision) for (const refused of this.#builder.refused(params.toolCall.toolCallId)) turn.push(refused);
    const kinds: acp.PermissionOptionKind[] = decision
      ? ["allow_once", "allow_always"]
      : ["reject_once", "reject_always"];
    for (const kind of kinds) {
      const option = params.options.find((o) => o.kind === kind);
      if (option !== undefined) return { outcome: { outcome: "selected", optionId: option.optionId } };
    }
    return { outcome: { outcome: "cancelled" } };
  }

  /**
   * `terminal/create` during a turn: a `run_command` tool step (`{ CommandLine, Cwd }`, the
   * reference harness's arguments) that the agent's `confirmTool` decides like a permission
   * request; it stays ACTIVE while the command runs. Rejects when refused or when no turn runs.
   */
  async #confirmCommand(request: AcpTerminalRequest, terminalId: string): Promise<void> {
    const turn = this.#turn;
    if (turn === undefined || turn.settled || turn.halted)
      throw new Error("a terminal is created during a prompt turn; none is running");
    const commandLine = commandLineOf(request);
    const toolCallId = `${terminalId}/create`;
    for (const step of this.#builder.waiting({
      toolCallId,
      name: "run_command",
      kind: "execute",
      title: commandLine,
      status: "pending",
      rawInput: { CommandLine: commandLine, Cwd: request.cwd },
    }))
      turn.push(step);
    const step = this.#builder.toolStep(toolCallId);
    if (step !== undefined) this.#owners.set(step.id, turn);
    const call = step?.toolCalls[0];
    const allowed = step !== undefined && call !== undefined && (await this.#decide(turn, call, step));
    if (turn.halted || turn.settled) throw new Error("the turn ended before the command was allowed");
    if (!allowed) {
      for (const refused of this.#builder.refused(toolCallId)) turn.push(refused);
      throw new Error(`the client's policy refused the command ${JSON.stringify(commandLine.slice(0, 200))}`);
    }
    for (const running of this.#builder.apply({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    }))
      turn.push(running);
  }

  /** A terminal's command exited: its step ends DONE (exit 0) or ERROR, in the turn it belongs to. */
  #commandExited(terminalId: string, exit: AcpTerminalExit): void {
    const toolCallId = `${terminalId}/create`;
    const step = this.#builder.toolStep(toolCallId);
    if (step === undefined || (step.status !== StepStatus.Active && step.status !== StepStatus.WaitingForUser)) return;
    const failed = exit.exitCode !== 0;
    const how = exit.signal === null ? `exit code ${exit.exitCode}` : `signal ${exit.signal}`;
    const owner = this.#owners.get(step.id);
    for (const ended of this.#builder.apply({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: failed ? "failed" : "completed",
      content: [
        { type: "terminal", terminalId },
        { type: "content", content: { type: "text", text: how } },
      ],
    }))
      if (owner !== undefined && !owner.settled) owner.push(ended);
  }

  /**
   * A client tool called through the MCP server (`tools/call`) during a turn: synthetic steps from
   * 50,000 as on the other wires (ACTIVE, then DONE with the result or ERROR); the agent's
   * `confirmTool` (policies, `askUser`, `preToolCall` hooks) decides first, then the tool runs once.
   */
  async #clientTool(call: ToolCall): Promise<ClientToolResult> {
    const turn = this.#turn;
    if (turn === undefined || turn.settled || turn.halted)
      return { id: call.id, name: call.name, error: "no prompt turn is running: client tools run during one" };
    const where = { stepIndex: this.#nextSyntheticIndex++, trajectoryId: this.#sessionId, cascadeId: this.#sessionId };
    const active = activeToolStep(call, where);
    turn.push(active);
    if (!(await this.#decide(turn, call, active))) {
      const refused = { id: call.id, name: call.name, error: `the client's policy refused ${call.name}` };
      if (!turn.settled) turn.push(finishedToolStep(call, refused, where));
      return refused;
    }
    const context: ToolContext = {
      conversationId: this.#sessionId,
      callId: call.id,
      signal: turn.signal,
      sendTrigger: () => Promise.reject(unsupported("sendTrigger", "no message can be injected into an ACP session")),
      state: this.#toolState,
    };
    const result = await (this.#options.tools as ToolRunner).run(call, context);
    if (!turn.settled) turn.push(finishedToolStep(call, result, where));
    return result;
  }

  /** The agent's `confirmTool` on a tool call: true when it may run (a deferral, a failure or a halt refuse it). */
  async #decide(turn: Turn, call: ToolCall, step: Step): Promise<boolean> {
    let decision: boolean | "defer" | "manual";
    try {
      // A halt answers the request `cancelled` at once (ACP "Cancellation"), whatever the handler still does.
      decision = await raceSignal(Promise.resolve(this.#options.confirmTool(call, step)), turn.signal);
    } catch (error) {
      if (turn.halted || turn.settled) return false; // the caller answers `cancelled`
      this.#options.logger?.warn(
        `the confirmation of ${call.name} failed, so it is refused: ${SdkError.from(error).message}`,
      );
      decision = false;
    }
    if (decision === "defer") {
      // A deferred confirmation cannot outlive the prompt request it belongs to: refuse it.
      this.#options.logger?.warn(`${call.name}: a deferred confirmation cannot pause an ACP turn; the call is refused`);
      decision = false;
    }
    if (decision === "manual") {
      const key = step.id;
      decision = await new Promise<boolean>((resolve) => this.#manual.set(key, resolve));
      this.#manual.delete(key);
    }
    return decision;
  }

  #turnEnded(turn: Turn, response: acp.PromptResponse): void {
    const stop = STOP_REASONS[response.stopReason];
    const cancelled = stop === "cancelled" || turn.halted;
    for (const step of this.#builder.endTurn(cancelled ? StepStatus.Error : StepStatus.Done)) turn.push(step);
    const usage = turnUsage(response);
    if (usage !== undefined) {
      const total = addUsage(this.#usage.total, usage);
      this.#usage = { total, byTrajectory: new Map([[this.#sessionId, total]]) };
      turn.pushUsage(total);
    }
    if (cancelled) {
      turn.end({ error: new SdkError(ErrorCode.Canceled, "the turn was cancelled (session/cancel)") });
    } else if (stop === "refusal") {
      turn.end({
        error: new SdkError(ErrorCode.ExecutionError, "the agent refused to continue the turn (stopReason: refusal)"),
      });
    } else {
      this.#stopReason = stop;
      turn.end(stop === undefined ? {} : { stopReason: stop });
    }
  }

  async #turnFailed(turn: Turn, error: unknown): Promise<void> {
    for (const step of this.#builder.endTurn(StepStatus.Error)) turn.push(step);
    const closed = this.#closed;
    const sdkError =
      closed ??
      (error instanceof acp.RequestError
        ? requestError(error, "session/prompt")
        : await peerFailure(error, this.#peer, this.#options));
    turn.end({ error: sdkError });
  }

  async #peerClosed(error: unknown): Promise<void> {
    if (this.#closed !== undefined) return;
    const reason = await peerFailure(
      error ?? new SdkError(ErrorCode.ConnectionClosed, "the ACP agent closed the connection"),
      this.#peer,
      this.#options,
    );
    this.#close(reason);
    await Promise.allSettled(this.#hosts.map((close) => close()));
    await this.#options.release?.();
  }

  #close(reason: SdkError): void {
    if (this.#closed !== undefined) return;
    this.#closed = reason;
    for (const answer of this.#manual.values()) answer(false);
    const turn = this.#turn;
    if (turn !== undefined && !turn.settled) {
      for (const step of this.#builder.endTurn(StepStatus.Error)) turn.push(step);
      turn.end({ error: reason });
    }
    for (const listener of this.#closedListeners.splice(0)) listener(reason);
  }

  /** A prompt as ACP content blocks (`ContentBlock`: text, image, audio), refused when the agent lacks the prompt capability. */
  #promptBlocks(prompt: Prompt): acp.ContentBlock[] {
    if (typeof prompt === "string") return [{ type: "text", text: prompt }];
    const capabilities = this.agentInfo.agentCapabilities?.promptCapabilities;
    return prompt.map((part): acp.ContentBlock => {
      if ("text" in part) return { type: "text", text: part.text };
      if ("slashCommand" in part)
        return { type: "text", text: part.slashCommand.startsWith("/") ? part.slashCommand : `/${part.slashCommand}` };
      const { mimeType, data } = part.media;
      const kind = mimeType.startsWith("image/") ? "image" : mimeType.startsWith("audio/") ? "audio" : undefined;
      if (kind === undefined || capabilities?.[kind] !== true) {
        throw new SdkError(
          ErrorCode.Unsupported,
          `this ACP agent takes no ${mimeType} in a prompt (promptCapabilities ${JSON.stringify(capabilities ?? {})})`,
          {
            details: { option: "prompt media", wire: "acp" },
          },
        );
      }
      return { type: kind, mimeType, data: base64(data) };
    });
  }
}

/**
 * Starts the MCP server of the client tools on `host` and returns its `McpServer` entry; refused
 * with `Unsupported` when there is no host or the agent takes no MCP server of the host's
 * transport (`agentCapabilities.mcpCapabilities.http` / `.sse`; stdio servers every agent takes,
 * but they are processes the agent spawns, not an endpoint the SDK can serve).
 */
async function toolServer(
  tools: ToolRunner,
  host: AcpToolHost | undefined,
  init: acp.InitializeResponse,
  hosts: (() => Promise<void>)[],
  call: (call: ToolCall) => Promise<ClientToolResult>,
): Promise<acp.McpServer> {
  const details = { option: "tools", wire: "acp" };
  if (host === undefined)
    throw new SdkError(
      ErrorCode.Unsupported,
      "client tools over ACP need an MCP endpoint the SDK hosts: pass acpAgent({ toolHost }) (Node: loopbackMcpHost())",
      { details },
    );
  const mcp = init.agentCapabilities?.mcpCapabilities;
  if (mcp?.[host.transport] !== true)
    throw new SdkError(
      ErrorCode.Unsupported,
      `client tools are served as an ${host.transport} MCP server, which this ACP agent does not take (agentCapabilities.mcpCapabilities ${JSON.stringify(mcp ?? {})}); remove the tools or use a wire that has them`,
      { details },
    );
  const served = await host.serve(mcpToolHandler(tools, call));
  hosts.push(() => served.close());
  return served.server;
}

/**
 * Usage of a turn, where the agent reports it: the unstable `PromptResponse.usage` of ACP
 * (`@agentclientprotocol/sdk/unstable` `Usage`), else Gemini CLI's `_meta.quota.token_count`
 * (`input_tokens`, `output_tokens`: what gemini-cli 0.61 sends, seen on the wire; `_meta` is the
 * agent's own extension, read only when it has exactly that shape).
 */
function turnUsage(response: acp.PromptResponse): UsageMetadata | undefined {
  const usage = (response as { usage?: AcpUsage | null }).usage;
  if (usage !== undefined && usage !== null) {
    return {
      promptTokenCount: usage.inputTokens,
      candidatesTokenCount: usage.outputTokens,
      totalTokenCount: usage.totalTokens,
      cachedContentTokenCount: usage.cachedReadTokens ?? 0,
      thoughtsTokenCount: usage.thoughtTokens ?? 0,
    };
  }
  const quota = response._meta?.["quota"] as
    | { token_count?: { input_tokens?: unknown; output_tokens?: unknown } }
    | undefined;
  const input = quota?.token_count?.input_tokens;
  const output = quota?.token_count?.output_tokens;
  if (typeof input !== "number" || typeof output !== "number") return undefined;
  return { ...emptyUsage(), promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output };
}

function unsupported(what: string, why: string): SdkError {
  return new SdkError(ErrorCode.Unsupported, `${what}: the acp wire cannot do this (${why})`, {
    details: { wire: "acp" },
  });
}

/** A JSON-RPC error answer as an `SdkError`: `-32602`/`-32600` InvalidArgument, `-32601` Unsupported, `-32000` (auth required) PermissionDenied, else ExecutionError. */
function requestError(error: acp.RequestError, method: string): SdkError {
  const code =
    error.code === -32602 || error.code === -32600
      ? ErrorCode.InvalidArgument
      : error.code === -32601
        ? ErrorCode.Unsupported
        : error.code === -32000
          ? ErrorCode.PermissionDenied
          : ErrorCode.ExecutionError;
  const data = error.data === undefined ? "" : `: ${JSON.stringify(error.data).slice(0, 2_000)}`;
  const message = error.message.length > 2_000 ? `${error.message.slice(0, 2_000)}…` : error.message;
  return new SdkError(code, `the ACP agent answered ${method} with error ${error.code} ${message}${data}`, {
    cause: error,
    details: { rpcCode: error.code },
  });
}

async function peerFailure(
  error: unknown,
  peer: acp.ClientConnection,
  options: AcpConnectionOptions,
): Promise<SdkError> {
  const sdkError =
    error instanceof SdkError
      ? error
      : error instanceof acp.RequestError
        ? requestError(error, "a request")
        : new SdkError(
            ErrorCode.ConnectionClosed,
            `the ACP connection failed: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
  void peer;
  return options.describeFailure === undefined ? sdkError : options.describeFailure(sdkError);
}

/** `promise`, or `DeadlineExceeded` after `timeoutMs`; a closed stream fails it at once with the close's reason. */
async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, peer: acp.ClientConnection): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SdkError(ErrorCode.DeadlineExceeded, `the ACP agent did not answer initialize within ${timeoutMs} ms`),
        ),
      timeoutMs,
    );
  });
  const closed = peer.closed.then(
    () =>
      Promise.reject(
        new SdkError(ErrorCode.ConnectionClosed, "the ACP agent closed the connection before it answered initialize"),
      ),
    (error: unknown) => Promise.reject(error),
  );
  try {
    return await Promise.race([promise, timeout, closed]);
  } finally {
    clearTimeout(timer);
  }
}
