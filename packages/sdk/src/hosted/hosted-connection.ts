/**
 * The SDK's `Connection` over the Gemini Interactions API: the hosted Antigravity agent (issue 28,
 * docs/hosted.md). A turn is one interaction (or several, when client functions are answered:
 * each answer is the next `create` with `previous_interaction_id`); the conversation goes on
 * through `previous_interaction_id`. Wire fields are those of `@google/genai` 3.x (genai.d.ts):
 * `CreateAgentInteraction`, `InteractionSSEEvent`, `Step`, `StepDeltaData`, `Usage`.
 */
import { SerialQueue } from "../util/serial-queue.js";
import type { CallOptions } from "../call-options.js";
import type { Connection, UsageSnapshot } from "../connection/connection.js";
import type { PausedTurnReader } from "../agent/resume.js";
import type { ConfirmTool } from "../connection/harness-connection-options.js";
import { Turn, type TurnObserver } from "../connection/turn.js";
import { latestTurnView, observerTaken, STEP_MAPPER, viewOf } from "../connection/turn-view.js";
import { activeToolStep, finishedToolStep } from "../connection/synthetic-steps.js";
import { ErrorCode, SdkError } from "../errors.js";
import { assertPromptNotBlank, type Prompt } from "../prompt.js";
import {
  emptyUsage,
  newStep,
  StepSource,
  StepStatus,
  StepTarget,
  StepType,
  SYNTHETIC_STEP_INDEX_BASE,
  type Step,
  type StopReason,
  type ToolCall,
  type ToolResult,
  type UsageMetadata,
} from "../step.js";
import type { ToolContext } from "../tools/tool.js";
import type { Continuation, PendingToolCall } from "../continuation/continuation.js";
import { callStep, userInputStep } from "./hosted-steps.js";
import type { LoadedPause } from "./paused-interaction.js";
import type { ToolRunner } from "../tools/tool-runner.js";
import { addUsage } from "../usage.js";
import { delay, linkSignal, raceSignal, throwIfAborted } from "../util/abort.js";
import type { InteractionEvent, InteractionsClient, WireObject } from "./interactions-client.js";

/** What the hosted connection needs besides its client. */
export interface HostedConnectionOptions {
  client: InteractionsClient;
  /** `CreateAgentInteraction.agent`, e.g. `antigravity-preview-09-2026`. */
  agent: string;
  /** `CreateAgentInteraction.agent_config` (`AntigravityAgentConfig`: `type: "antigravity"`, `model`, `max_total_tokens`). */
  agentConfig?: WireObject | undefined;
  /** `CreateAgentInteraction.environment`: an `Environment_2` (`type: "remote"`, …) or an environment id. */
  environment?: WireObject | string | undefined;
  /** Keep using the environment the first interaction got (`Interaction.environment_id`) on later turns. */
  reuseEnvironment?: boolean | undefined;
  /** `CreateAgentInteraction.system_instruction`. */
  systemInstruction?: string | undefined;
  /** Run each interaction with `background: true` (then `halt()` is `interactions.cancel`, as for every turn). */
  background?: boolean | undefined;
  tools: ToolRunner;
  /**
   * Decides each call of a client function before it runs: the agent's policies (`askUser`
   * handlers, `when` predicates). `true` runs it, `false` answers it refused, `"defer"` (a
   * `deferToUser` policy) pauses the turn with a continuation (`agent.resume`). Default: run every call.
   */
  confirmTool?: ConfirmTool | undefined;
  conversationId: string;
  /** Resume a conversation after this interaction (its `previous_interaction_id`). */
  lastInteractionId?: string | undefined;
  /** How many times in a row a dropped event stream is resumed before the turn fails (default 8). */
  maxReconnects?: number | undefined;
  /** Pause before the n-th resume in a row, in ms (default `min(50·2ⁿ, 2000)`). */
  reconnectDelayMs?: ((attempt: number) => number) | undefined;
}

/** How one interaction of a turn ended. */
interface InteractionEnd {
  id: string;
  status: string;
  usage?: UsageMetadata | undefined;
  error?: string | undefined;
  continuationToken?: string | undefined;
  environmentId?: string | undefined;
  /** Calls of client functions it waits for (status `requires_action`). */
  calls: HeldCall[];
}

/** A call of a client function an interaction waits for. */
interface HeldCall {
  call: ToolCall;
  /** The `index` of its `FunctionCallStep` in the interaction (`step.start`, `Interaction.steps`): its step id is `<interaction id>:<index>`. */
  index: number;
}

/** What the next interaction of a turn is made of. */
interface NextInteraction {
  input: unknown;
  previous: string | undefined;
}

/** A step of the wire being read, by its `index`. */
interface OpenStep {
  step: Step;
  kind: "thought" | "text" | "call" | "result" | "other";
  /** `ArgumentsDelta.arguments` streamed so far (a call whose arguments come in deltas). */
  argumentsText?: string;
}

/** What is known of the interaction being read. */
interface InteractionState {
  id?: string;
  lastEventId?: string;
  /** Event ids seen: a resumed stream never shows one twice. */
  seen: Set<string>;
  end?: InteractionEnd;
  error?: string;
  steps: Map<number, OpenStep>;
  /** Calls of the agent's client tools, in order. */
  calls: HeldCall[];
  /** The last model_output step (the complete response once the interaction completed). */
  lastText?: OpenStep;
}

const REQUIRES_ACTION = "requires_action";

/** The hosted agent's `Connection`. */
export class HostedConnection implements Connection, PausedTurnReader {
  readonly conversationId: string;
  readonly initialHistory: readonly Step[] = [];
  readonly #options: HostedConnectionOptions;
  readonly #closedListeners: ((reason: SdkError) => void)[] = [];
  readonly #toolState = new Map<string, unknown>();
  readonly #session = new AbortController();
  #observer: TurnObserver | undefined;
  #turn: Turn | undefined;
  readonly #sends = new SerialQueue();
  #usage: UsageSnapshot;
  #stopReason: StopReason | undefined;
  #lastInteractionId: string | undefined;
  #currentInteractionId: string | undefined;
  #environment: WireObject | string | undefined;
  #nextStepIndex = 0;
  #nextSyntheticIndex = SYNTHETIC_STEP_INDEX_BASE;
  #closed: SdkError | undefined;
  #paused: LoadedPause | undefined;

  constructor(options: HostedConnectionOptions) {
    this.#options = options;
    this.conversationId = options.conversationId;
    this.#lastInteractionId = options.lastInteractionId;
    this.#environment = options.environment;
    const total = emptyUsage();
    this.#usage = { total, byTrajectory: new Map([[this.conversationId, total]]) };
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

  /** The interaction the next turn continues (`previous_interaction_id`); undefined before the first turn. */
  get lastInteractionId(): string | undefined {
    return this.#lastInteractionId;
  }

  /**
   * A conversation restored from a store onto this new connection (`Conversation.restore`, e.g.
   * in another process): its steps' ids name their interactions (`<interaction id>:<index>`), and
   * the last one named is where the conversation goes on (`previous_interaction_id`). Steps
   * numbered again from here cannot collide with them: their ids carry the new interactions' ids,
   * and the prompts' steps (`<conversation id>:input-<n>`) go on after the highest `n` restored.
   */
  retireStepIds(ids: Iterable<string>): void {
    let last: string | undefined;
    for (const id of ids) {
      const input = /:input-(\d+)$/.exec(id);
      if (input !== null) this.#nextStepIndex = Math.max(this.#nextStepIndex, Number(input[1]) + 1);
      const match = /^(.+):\d+$/.exec(id);
      if (match !== null) last = match[1];
    }
    this.#lastInteractionId ??= last;
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
    let text: string;
    try {
      assertPromptNotBlank(prompt);
      text = promptText(prompt);
    } catch (error) {
      return Promise.reject(SdkError.from(error));
    }
    return this.#sends.run(() => this.#send(text, options));
  }

  async #send(text: string, options?: CallOptions): Promise<Turn> {
    const link = linkSignal(options);
    try {
      while (this.#turn !== undefined && !this.#turn.settled) await raceSignal(this.#turn.over(), link.signal);
      if (this.#closed !== undefined) throw this.#closed;
      throwIfAborted(link.signal);
      this.#stopReason = undefined;
      const turn = new Turn({ solicited: true });
      this.#turn = turn;
      this.#observer?.turnStarted(turn);
      turn.push(userInputStep(this.conversationId, this.#nextStepIndex++, text));
      void this.#runTurn(turn, async () => ({ input: text, previous: this.#lastInteractionId }));
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

  async waitForIdle(options?: CallOptions): Promise<void> {
    const link = linkSignal(options);
    try {
      while (this.#turn !== undefined && !this.#turn.settled) {
        if (this.#closed !== undefined) throw this.#closed;
        await raceSignal(this.#turn.over(), link.signal);
      }
      if (this.#closed !== undefined) throw this.#closed;
    } finally {
      link.dispose();
    }
  }

  /** `interactions.cancel` on the running interaction; the turn ends `Canceled`. */
  async halt(options?: CallOptions): Promise<void> {
    const turn = this.#turn;
    if (turn === undefined || turn.settled) return;
    turn.halt();
    const id = this.#currentInteractionId;
    if (id === undefined) return; // not created yet: the turn sees the halt before it creates one
    await this.#options.client.cancel(id, options?.signal).catch((error: unknown) => {
      // An interaction that already ended cannot be cancelled: the turn ends as it ended.
      if (
        SdkError.from(error).code !== ErrorCode.InvalidArgument &&
        SdkError.from(error).code !== ErrorCode.FailedPrecondition
      )
        throw error;
    });
  }

  sendToolResponse(_result: ToolResult): Promise<void> {
    return Promise.reject(unsupported("sendToolResponse", "client tools are answered by the connection's ToolRunner"));
  }

  /**
   * Reads back the interaction a continuation paused on (`interactions.get`: `Interaction.status`
   * and its `steps`, genai.d.ts): its `FunctionCallStep`s as steps `<interaction id>:<index>`
   * (trajectory = the interaction, step index = the step's index in it), WAITING_FOR_USER those it
   * still waits for — every call without a `function_result` while the status is
   * `requires_action`. An interaction the API no longer has gives no steps (`agent.resume` then
   * says `NotFound`). Usage goes on from the continuation's.
   */
  async loadPaused(continuation: Continuation, options?: CallOptions): Promise<readonly Step[]> {
    // Loaded when a continuation is resumed (a dynamic import): an app that never resumes does not download it.
    const { readPause } = await import("./paused-interaction.js");
    const paused = await readPause(this.#options.client, this.conversationId, continuation, options?.signal);
    this.#paused = paused;
    const total = continuation.payload.totalUsage;
    this.#usage = { total, byTrajectory: new Map([[this.conversationId, total]]) };
    return paused.held;
  }

  /**
   * Answers the call a continuation awaits, once {@link loadPaused} read its interaction back:
   * checks that the continuation's calls are exactly the calls the interaction waits for (each
   * `FunctionCallStep`'s id, name and canonical arguments, none left out), then continues the
   * turn as a turn of its own (reported to the observer): the awaited call runs when `accepted`
   * (else it is answered refused, "denied by user"), the calls after it are decided by the agent's
   * policies (a `deferToUser` pauses again), and every answer goes in the next `create` with
   * `previous_interaction_id` = the paused interaction (`input: FunctionResultStep[]`).
   * `FailedPrecondition` (`details.reason` `"call-mismatch"`) before anything is sent when the
   * calls differ; `NotFound` when no paused call was loaded at `trajectoryId:stepIndex`.
   */
  async sendToolConfirmation(
    trajectoryId: string,
    stepIndex: number,
    accepted: boolean,
    options?: CallOptions,
  ): Promise<void> {
    throwIfAborted(options?.signal);
    const paused = this.#paused;
    if (paused === undefined) throw notLoaded(trajectoryId, stepIndex);
    const { checkAnswer } = await import("./paused-interaction.js");
    checkAnswer(paused, trajectoryId, stepIndex);
    this.#paused = undefined; // answered once
    await this.#sends.run(async () => {
      while (this.#turn !== undefined && !this.#turn.settled) await this.#turn.over();
      if (this.#closed !== undefined) throw this.#closed;
      this.#stopReason = undefined;
      const turn = new Turn({ solicited: false });
      this.#turn = turn;
      this.#observer?.turnStarted(turn);
      void this.#runTurn(turn, () => this.#continuePaused(turn, paused, accepted));
    });
  }

  sendQuestionResponse(): Promise<void> {
    return Promise.reject(unsupported("sendQuestionResponse", "the hosted agent asks no questions over this wire"));
  }

  sendTrigger(): Promise<void> {
    return Promise.reject(
      unsupported("sendTrigger", "the Interactions API has no message to inject into a running interaction"),
    );
  }

  async disconnect(): Promise<void> {
    if (this.#closed !== undefined) return;
    const reason = new SdkError(ErrorCode.ConnectionClosed, "the hosted connection was disconnected");
    this.#closed = reason;
    const turn = this.#turn;
    if (turn !== undefined && !turn.settled) {
      const id = this.#currentInteractionId;
      turn.halt();
      // A running interaction would go on (and bill) without a reader: cancel it.
      if (id !== undefined) await this.#options.client.cancel(id).catch(() => {});
    }
    this.#session.abort(reason);
    for (const listener of this.#closedListeners.splice(0)) listener(reason);
  }

  /** Runs a turn: the interactions `first` makes the first of, until one ends it (or a call is deferred: the turn pauses). */
  async #runTurn(turn: Turn, first: () => Promise<NextInteraction | undefined>): Promise<void> {
    const before = this.#usage.total;
    let turnUsage = emptyUsage();
    try {
      let next = await first();
      while (next !== undefined) {
        if (turn.halted) throw new SdkError(ErrorCode.Canceled, "the turn was halted");
        const end = await this.#interaction(turn, this.#body(next.input, next.previous));
        if (end.usage !== undefined) {
          turnUsage = addUsage(turnUsage, end.usage);
          const total = addUsage(before, turnUsage);
          this.#usage = { total, byTrajectory: new Map([[this.conversationId, total]]) };
          turn.pushUsage(total);
        }
        if (this.#options.reuseEnvironment === true && typeof this.#environment !== "string") {
          // Interaction.environment_id is on the resource, not on the stream's lifecycle events
          // (InteractionSseEventInteraction has no such field): read it once.
          // A failed read leaves it for the next turn to try again: this turn is not the worse for it.
          const environmentId =
            end.environmentId ??
            (await this.#options.client.get(end.id, this.#session.signal).catch(() => ({}) as WireObject))[
              "environment_id"
            ];
          if (typeof environmentId === "string" && environmentId !== "") this.#environment = environmentId;
        }
        // The conversation goes on from this interaction whatever its end: a failed or cancelled
        // turn stays in it, as a halted turn stays in a localharness conversation.
        this.#lastInteractionId = end.id;
        if (end.status === "failed" || end.status === "cancelled") {
          throw end.status === "cancelled"
            ? new SdkError(ErrorCode.Canceled, `interaction ${end.id} was cancelled`)
            : new SdkError(ErrorCode.ExecutionError, `interaction ${end.id} failed: ${end.error ?? "no error given"}`, {
                details: { interactionId: end.id },
              });
        }
        if (end.status === REQUIRES_ACTION) {
          if (end.calls.length === 0)
            throw new SdkError(
              ErrorCode.ProtocolError,
              `interaction ${end.id} requires action but called no client function`,
            );
          next = await this.#answerCalls(turn, end.id, end.calls, new Map());
          continue;
        }
        if (end.status === "completed") return turn.end({});
        if (end.status === "budget_exceeded") {
          this.#stopReason = "MAX_TOTAL_TOKENS_EXCEEDED";
          return turn.end({ stopReason: "MAX_TOTAL_TOKENS_EXCEEDED" });
        }
        if (end.status === "incomplete") {
          throw new SdkError(ErrorCode.ExecutionError, `interaction ${end.id} is incomplete`, {
            details: {
              interactionId: end.id,
              ...(end.continuationToken === undefined ? {} : { continuationToken: end.continuationToken }),
            },
          });
        }
        throw new SdkError(
          ErrorCode.ProtocolError,
          `interaction ${end.id} ended with status ${JSON.stringify(end.status)}`,
        );
      }
    } catch (error) {
      // disconnect() ends the turn with its ConnectionClosed; a halt with Canceled whatever the stream did meanwhile.
      const reason = this.#closed ?? SdkError.from(error);
      turn.end({
        error:
          turn.halted && this.#closed === undefined && reason.code !== ErrorCode.Canceled
            ? new SdkError(ErrorCode.Canceled, reason.message, { cause: reason })
            : reason,
      });
    } finally {
      this.#currentInteractionId = undefined;
    }
  }

  #body(input: unknown, previous: string | undefined): WireObject {
    const o = this.#options;
    const tools = o.tools.declarations().map((d) => ({
      type: "function",
      name: d.name,
      description: d.description,
      parameters: JSON.parse(d.parametersJsonSchema ?? "{}") as unknown,
    }));
    return {
      agent: o.agent,
      input,
      ...(previous === undefined ? {} : { previous_interaction_id: previous }),
      ...(o.agentConfig === undefined ? {} : { agent_config: o.agentConfig }),
      ...(this.#environment === undefined ? {} : { environment: this.#environment }),
      ...(o.systemInstruction === undefined ? {} : { system_instruction: o.systemInstruction }),
      ...(tools.length === 0 ? {} : { tools }),
      ...(o.background === true ? { background: true } : {}),
    };
  }

  /** Runs one interaction to its end, resuming its event stream after a drop by `last_event_id`. */
  async #interaction(turn: Turn, body: WireObject): Promise<InteractionEnd> {
    const client = this.#options.client;
    const signal = this.#session.signal;
    const state: InteractionState = { steps: new Map(), calls: [], seen: new Set() };
    let stream: AsyncIterable<InteractionEvent> | undefined;
    if (this.#options.background === true) {
      const created = await client.create(body, signal);
      state.id = String(created["id"]);
      this.#currentInteractionId = state.id;
      if (turn.halted) await client.cancel(state.id, signal).catch(() => {});
    } else {
      stream = await client.createStream(body, signal);
    }
    let failures = 0;
    const maxReconnects = this.#options.maxReconnects ?? 8;
    for (;;) {
      let failure: SdkError | undefined;
      if (stream !== undefined) {
        try {
          for await (const event of stream) {
            if (this.#onEvent(turn, state, event)) failures = 0; // progress: a new event
            if (state.end !== undefined) return state.end;
          }
          failure = new SdkError(ErrorCode.Unavailable, "the event stream ended before interaction.completed");
        } catch (error) {
          failure = SdkError.from(error);
        }
        if (this.#closed !== undefined) throw this.#closed;
        if (failure.code !== ErrorCode.Unavailable) throw failure;
        if (state.id === undefined)
          throw new SdkError(
            ErrorCode.Unavailable,
            `the event stream dropped before it named its interaction: ${failure.message}`,
            { cause: failure },
          );
        failures++;
        if (failures > maxReconnects)
          throw new SdkError(
            ErrorCode.Unavailable,
            `the event stream of interaction ${state.id} dropped ${failures} times in a row: ${failure.message}`,
            { cause: failure },
          );
        await delay(this.#options.reconnectDelayMs?.(failures) ?? Math.min(50 * 2 ** failures, 2000), signal);
      }
      try {
        stream = await client.resume(state.id as string, state.lastEventId, signal);
      } catch (error) {
        const reason = SdkError.from(error);
        if (reason.code !== ErrorCode.Unavailable || this.#closed !== undefined) throw reason;
        stream = (async function* () {
          yield* [];
          throw reason;
        })();
      }
    }
  }

  /** Applies one event; false when it was seen before (a resumed stream that repeats it). */
  #onEvent(turn: Turn, state: InteractionState, event: InteractionEvent): boolean {
    const eventId = event.event_id;
    if (eventId !== undefined) {
      if (state.seen.has(eventId)) return false;
      state.seen.add(eventId);
      state.lastEventId = eventId;
    }
    this.#apply(turn, state, event);
    return true;
  }

  #apply(turn: Turn, state: InteractionState, event: InteractionEvent): void {
    switch (event.event_type) {
      case "interaction.created": {
        // InteractionCreatedEvent.interaction: InteractionSseEventInteraction { id, status, … }.
        const id = (event["interaction"] as WireObject | undefined)?.["id"];
        if (typeof id === "string" && state.id === undefined) {
          state.id = id;
          this.#currentInteractionId = id;
          if (turn.halted) void this.#options.client.cancel(id).catch(() => {});
        }
        return;
      }
      case "step.start":
        return this.#stepStart(turn, state, Number(event["index"]), (event["step"] ?? {}) as WireObject);
      case "step.delta":
        return this.#stepDelta(turn, state, Number(event["index"]), (event["delta"] ?? {}) as WireObject);
      case "step.stop":
        return this.#stepStop(turn, state, Number(event["index"]));
      case "error": {
        // ErrorEvent_2.error: ErrorT { code?, message? }.
        const error = event["error"] as WireObject | undefined;
        state.error = typeof error?.["message"] === "string" ? error["message"] : JSON.stringify(error ?? {});
        return;
      }
      case "interaction.completed": {
        // InteractionCompletedEvent.interaction: { id, status, usage?, continuation_token? }.
        const interaction = (event["interaction"] ?? {}) as WireObject;
        const id = typeof interaction["id"] === "string" ? interaction["id"] : (state.id ?? "");
        const status = String(interaction["status"]);
        for (const open of state.steps.values())
          if (open.step.status === StepStatus.Active) this.#push(turn, open, { status: StepStatus.Done });
        if (status === "completed" && state.lastText !== undefined)
          this.#push(turn, state.lastText, { isCompleteResponse: true });
        state.end = {
          id,
          status,
          calls: state.calls,
          ...(interaction["usage"] === undefined ? {} : { usage: usageOf(interaction["usage"] as WireObject) }),
          ...(state.error === undefined ? {} : { error: state.error }),
          ...(typeof interaction["continuation_token"] === "string"
            ? { continuationToken: interaction["continuation_token"] }
            : {}),
        };
        return;
      }
      default:
        // interaction.status_update (its status and usage come again on interaction.completed) and event types added later.
        return;
    }
  }

  #stepStart(turn: Turn, state: InteractionState, index: number, wire: WireObject): void {
    const type = String(wire["type"]);
    const base = (kind: OpenStep["kind"], stepType: StepType, target: StepTarget): OpenStep => ({
      kind,
      step: newStep({
        id: `${state.id ?? "interaction"}:${index}`,
        stepIndex: this.#nextStepIndex++,
        type: stepType,
        source: StepSource.Model,
        target,
        status: StepStatus.Active,
        cascadeId: this.conversationId,
        trajectoryId: this.conversationId,
      }),
    });
    let open: OpenStep;
    if (type === "thought") {
      // ThoughtStep { summary?: (TextContent | ImageContent)[] }.
      open = base("thought", StepType.TextResponse, StepTarget.User);
      state.steps.set(index, open);
      turn.push({ ...open.step });
      const text = textOf(wire["summary"]);
      if (text !== "") this.#push(turn, open, { thinkingDelta: text });
      return;
    }
    if (type === "model_output") {
      // ModelOutputStep { content?: Content_2[] }.
      open = base("text", StepType.TextResponse, StepTarget.User);
      state.steps.set(index, open);
      state.lastText = open;
      turn.push({ ...open.step });
      const text = textOf(wire["content"]);
      if (text !== "") this.#push(turn, open, { contentDelta: text });
      return;
    }
    if (type.endsWith("_call") && typeof wire["id"] === "string") {
      // FunctionCallStep { id, name, arguments } and the hosted tools' *CallStep { id, arguments, … }.
      const name = typeof wire["name"] === "string" ? wire["name"] : type.slice(0, -"_call".length);
      const call: ToolCall = { id: wire["id"], name, args: (wire["arguments"] ?? {}) as unknown };
      open = base("call", StepType.TextResponse, StepTarget.User);
      open.step.toolCalls = [call];
      state.steps.set(index, open);
      turn.push({ ...open.step, toolCalls: [{ ...call }] });
      return;
    }
    if (type.endsWith("_result") && typeof wire["call_id"] === "string") {
      // FunctionResultStep { call_id, name?, result, is_error? } and the hosted tools' *ResultStep { call_id, … }.
      const callId = wire["call_id"];
      const called = [...state.steps.values()].find((s) => s.kind === "call" && s.step.toolCalls[0]?.id === callId)
        ?.step.toolCalls[0];
      const name = typeof wire["name"] === "string" ? wire["name"] : (called?.name ?? type.slice(0, -"_result".length));
      const result = wire["result"] ?? omit(wire, ["type", "call_id", "name", "is_error", "signature"]);
      const failed = wire["is_error"] === true;
      open = base("result", StepType.ToolCall, StepTarget.Environment);
      open.step.toolCalls = [{ id: callId, name, args: result }];
      open.step.status = failed ? StepStatus.Error : StepStatus.Done;
      open.step.content = typeof result === "string" ? result : JSON.stringify(result);
      if (failed) open.step.error = open.step.content;
      state.steps.set(index, open);
      turn.push({ ...open.step, toolCalls: [{ ...(open.step.toolCalls[0] as ToolCall) }] });
      return;
    }
    open = base("other", StepType.Unknown, StepTarget.Unspecified);
    state.steps.set(index, open);
    turn.push({ ...open.step });
  }

  #stepDelta(turn: Turn, state: { steps: Map<number, OpenStep> }, index: number, delta: WireObject): void {
    const open = state.steps.get(index);
    if (open === undefined) return;
    switch (delta["type"]) {
      case "text": // TextDelta { text }
        if (typeof delta["text"] === "string" && delta["text"] !== "")
          this.#push(
            turn,
            open,
            open.kind === "thought" ? { thinkingDelta: delta["text"] } : { contentDelta: delta["text"] },
          );
        return;
      case "thought_summary": {
        // ThoughtSummaryDelta { content?: Content_2 }
        const text = textOf([delta["content"]]);
        if (text !== "") this.#push(turn, open, { thinkingDelta: text });
        return;
      }
      case "arguments_delta": // ArgumentsDelta { arguments?: string }
        if (typeof delta["arguments"] === "string")
          open.argumentsText = (open.argumentsText ?? "") + delta["arguments"];
        return;
      default:
        return;
    }
  }

  #stepStop(turn: Turn, state: { steps: Map<number, OpenStep>; calls: HeldCall[] }, index: number): void {
    const open = state.steps.get(index);
    if (open === undefined) return;
    if (open.kind === "call") {
      const call = open.step.toolCalls[0] as ToolCall;
      if (open.argumentsText !== undefined) {
        try {
          call.args = JSON.parse(open.argumentsText) as unknown;
        } catch {
          // Arguments that are no JSON reach the tool as the text they are.
          call.args = open.argumentsText;
        }
      }
      if (this.#options.tools.has(call.name) && !state.calls.some((held) => held.call.id === call.id))
        state.calls.push({ call: { ...call }, index });
    }
    if (open.step.status === StepStatus.Active) this.#push(turn, open, { status: StepStatus.Done });
  }

  /** Pushes an update of `open`'s step: deltas once, accumulated into its content and thinking. */
  #push(
    turn: Turn,
    open: OpenStep,
    change: Partial<Pick<Step, "status" | "contentDelta" | "thinkingDelta" | "isCompleteResponse">>,
  ): void {
    const step = open.step;
    if (change.status !== undefined) step.status = change.status;
    if (change.isCompleteResponse !== undefined) step.isCompleteResponse = change.isCompleteResponse;
    step.content += change.contentDelta ?? "";
    step.thinking += change.thinkingDelta ?? "";
    turn.push({
      ...step,
      toolCalls: step.toolCalls.map((c) => ({ ...c })),
      contentDelta: change.contentDelta ?? "",
      thinkingDelta: change.thinkingDelta ?? "",
    });
  }

  /**
   * Answers the client functions interaction `interactionId` waits for, in order, those in
   * `results` already answered: each is decided by the agent's policies (`confirmTool`), then the
   * allowed ones run, each once, with synthetic steps from 50,000; their `FunctionResultStep`s are
   * the next input. A deferred call pauses the turn instead (after the calls before it ran): the
   * turn ends `awaitingConfirmation`, and undefined is returned.
   */
  async #answerCalls(
    turn: Turn,
    interactionId: string,
    calls: readonly HeldCall[],
    results: Map<string, WireObject>,
  ): Promise<NextInteraction | undefined> {
    const allowed: ToolCall[] = [];
    let deferred: HeldCall | undefined;
    for (const held of calls) {
      if (results.has(held.call.id)) continue;
      const decision = await this.#decide(turn, interactionId, held);
      if (decision === "defer") {
        deferred = held;
        break;
      }
      if (decision) allowed.push(held.call);
      else
        results.set(held.call.id, this.#refuse(turn, held.call, `denied by the agent's policies: ${held.call.name}`));
    }
    await Promise.all(allowed.map(async (call) => results.set(call.id, await this.#runCall(turn, call))));
    if (deferred === undefined)
      return { input: calls.map((held) => results.get(held.call.id)), previous: interactionId };
    const pendingToolCalls: PendingToolCall[] = calls.map((held) => ({
      id: held.call.id,
      name: held.call.name,
      args: held.call.args ?? null,
      trajectoryId: interactionId,
      stepIndex: held.index,
    }));
    turn.end({
      awaitingConfirmation: {
        conversationId: this.conversationId,
        toolCall: { ...deferred.call },
        trajectoryId: interactionId,
        stepIndex: deferred.index,
        calls: {
          pendingToolCalls,
          awaitingIndex: calls.indexOf(deferred),
          completedResults: calls.flatMap((held) => {
            const result = results.get(held.call.id);
            return result === undefined ? [] : [toolResultOf(result)];
          }),
        },
      },
    });
    return undefined;
  }

  /** The agent's decision on a client function's call (no `confirmTool`: run it). A decision that fails refuses the call, as on the localharness wire. */
  async #decide(turn: Turn, interactionId: string, held: HeldCall): Promise<boolean | "defer"> {
    const confirm = this.#options.confirmTool;
    if (confirm === undefined) return true;
    try {
      const step = callStep(this.conversationId, interactionId, held.index, held.call, StepStatus.WaitingForUser);
      const decision = await raceSignal(Promise.resolve(confirm(held.call, step)), turn.signal);
      return decision === "manual" ? "defer" : decision;
    } catch (error) {
      if (turn.halted || turn.settled) throw error;
      return false;
    }
  }

  /** Runs a client function once, with synthetic steps from 50,000: its `FunctionResultStep`. */
  async #runCall(turn: Turn, call: ToolCall): Promise<WireObject> {
    const where = this.#syntheticWhere();
    turn.push(activeToolStep(call, where));
    const result = await this.#options.tools.run(call, this.#toolContext(call, turn));
    if (!turn.settled) turn.push(finishedToolStep(call, result, where));
    // FunctionResultStep { type: "function_result", call_id, name, result, is_error? }.
    return result.error !== undefined
      ? { type: "function_result", call_id: call.id, name: call.name, result: result.error, is_error: true }
      : { type: "function_result", call_id: call.id, name: call.name, result: wireResult(result.result) };
  }

  /** A call answered refused without running (`is_error: true`), shown as a finished synthetic step with that error. */
  #refuse(turn: Turn, call: ToolCall, message: string): WireObject {
    turn.push(finishedToolStep(call, { id: call.id, name: call.name, error: message }, this.#syntheticWhere()));
    return { type: "function_result", call_id: call.id, name: call.name, result: message, is_error: true };
  }

  #syntheticWhere(): { stepIndex: number; trajectoryId: string; cascadeId: string } {
    return { stepIndex: this.#nextSyntheticIndex++, trajectoryId: this.conversationId, cascadeId: this.conversationId };
  }

  /** The first interaction of a resumed turn: the awaited call answered as decided, the calls after it decided by the policies. */
  async #continuePaused(turn: Turn, paused: LoadedPause, accepted: boolean): Promise<NextInteraction | undefined> {
    const { payload } = paused.continuation;
    this.#lastInteractionId = paused.interactionId;
    const calls: HeldCall[] = payload.pendingToolCalls.map((call) => ({
      call: { id: call.id, name: call.name, args: call.args },
      index: call.stepIndex,
    }));
    const { wireResultStep } = await import("./paused-interaction.js");
    const results = new Map(payload.completedResults.map((result) => [result.id, wireResultStep(result)]));
    const awaited = calls[payload.awaitingIndex] as HeldCall;
    results.set(
      awaited.call.id,
      accepted ? await this.#runCall(turn, awaited.call) : this.#refuse(turn, awaited.call, "denied by user"),
    );
    return this.#answerCalls(turn, paused.interactionId, calls, results);
  }

  #toolContext(call: ToolCall, turn: Turn): ToolContext {
    return {
      conversationId: this.conversationId,
      callId: call.id,
      signal: turn.signal,
      sendTrigger: () =>
        Promise.reject(
          unsupported("sendTrigger", "the Interactions API has no message to inject into a running interaction"),
        ),
      state: this.#toolState,
    };
  }
}

/** `sendToolConfirmation` before `loadPaused` read a paused interaction back (or after it was answered). */
export function notLoaded(trajectoryId: string, stepIndex: number): SdkError {
  return new SdkError(
    ErrorCode.NotFound,
    `no paused call waits at ${trajectoryId}:${stepIndex} on this connection: agent.resume loads a continuation's interaction (loadPaused) before it answers`,
  );
}

function unsupported(what: string, why: string): SdkError {
  return new SdkError(ErrorCode.Unsupported, `${what}: ${why} (the interactions wire)`, {
    details: { option: what, wire: "interactions" },
  });
}

/** The prompt as text: the Interactions API input the connection sends is a string. */
function promptText(prompt: Prompt): string {
  if (typeof prompt === "string") return prompt;
  return prompt
    .map((part) => {
      if ("text" in part) return part.text;
      throw unsupported(
        "media" in part ? "prompt media" : "slash commands",
        "the hosted connection sends text prompts only",
      );
    })
    .join("\n");
}

/** The text of a `Content_2[]` (its `TextContent` parts). */
function textOf(contents: unknown): string {
  if (!Array.isArray(contents)) return "";
  return contents
    .map((c) =>
      typeof c === "object" &&
      c !== null &&
      (c as WireObject)["type"] === "text" &&
      typeof (c as WireObject)["text"] === "string"
        ? ((c as WireObject)["text"] as string)
        : "",
    )
    .join("");
}

/** `Usage` (`total_input_tokens`, `total_output_tokens`, `total_thought_tokens`, `total_cached_tokens`, `total_tokens`) as the SDK's usage. */
export function usageOf(usage: WireObject): UsageMetadata {
  const n = (key: string): number => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  return {
    promptTokenCount: n("total_input_tokens"),
    candidatesTokenCount: n("total_output_tokens"),
    thoughtsTokenCount: n("total_thought_tokens"),
    cachedContentTokenCount: n("total_cached_tokens"),
    totalTokenCount: n("total_tokens"),
  };
}

/** A client tool's result as `FunctionResultStep.result` (`string | object | Content[]`). */
export function wireResult(value: unknown): unknown {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value;
  return JSON.stringify(value ?? null);
}

function omit(object: WireObject, keys: readonly string[]): WireObject {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
}

/** A `FunctionResultStep` sent as a continuation's `completedResults` entry. */
function toolResultOf(result: WireObject): ToolResult {
  const id = String(result["call_id"]);
  const name = typeof result["name"] === "string" ? result["name"] : "";
  return result["is_error"] === true
    ? { id, name, error: typeof result["result"] === "string" ? result["result"] : JSON.stringify(result["result"]) }
    : { id, name, result: result["result"] };
}
