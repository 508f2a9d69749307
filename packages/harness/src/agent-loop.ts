import {
  LifecycleHook,
  StepUpdate_Source,
  StepUpdate_State,
  StepUpdate_Target,
  TrajectoryStateUpdate_State,
  TrajectoryStateUpdate_StopReason as StopReason,
  type UserInput,
} from "@antigravity-ts/sdk/wire";
import { SUMMARY_PREFIX, compactTranscript, estimateTokens } from "./compaction.js";
import { ModelError, type ModelToolCall, type ModelToolResult, type ModelUsage } from "./model/provider.js";
import { toolDeclarations } from "./session-config.js";
import type { SessionState } from "./session-state.js";
import { modelStep, systemErrorStep, type StepHandle } from "./step-builder.js";
import { runToolCall } from "./tool-runner.js";
import type { TurnScope } from "./turn-scope.js";
import { addUsage, toUsageMetadata } from "./usage.js";

/** What starts a turn. */
export interface TurnInput {
  /** The client's `UserInput` (for the PRE_TURN hook). */
  userInput: UserInput;
  /** The text the model sees. */
  text: string;
}

/** What one model call produced. */
interface ModelAnswer {
  text: string;
  thinking: string;
  toolCalls: ModelToolCall[];
}

/** Per-turn counters checked against `BudgetConfig`. */
interface TurnCounters {
  modelCalls: number;
  toolCalls: number;
  usage: ModelUsage;
}

/** Options of {@link runTurn}. */
export interface RunTurnOptions {
  /** Called before the final FULLY_IDLE, so a client that sees the turn end can rely on it being saved. */
  beforeIdle?: () => Promise<void>;
}

/**
 * Runs one turn (§6): PRE_TURN hook → RUNNING → the user's step → model calls and tool calls
 * until the model answers without tools, calls `finish`, or a budget stops it → POST_TURN hook →
 * FULLY_IDLE. Model failures end the turn with a SOURCE_SYSTEM ERROR step and FULLY_IDLE carrying
 * the error (§16). Rejects only when the turn is aborted (halt/disconnect); the caller reports that.
 */
export async function runTurn(state: SessionState, input: TurnInput, scope: TurnScope, options: RunTurnOptions = {}): Promise<void> {
  const trajectoryId = state.cascadeId;
  const setState = (value: TrajectoryStateUpdate_State, extra: { error?: string; stopReason?: StopReason } = {}): void => {
    scope.send({ case: "trajectoryStateUpdate", value: { trajectoryId, state: value, ...extra } });
  };
  const gate = await state.hooks.preTurn(input.userInput, trajectoryId, scope.send, scope.signal);
  if (!gate.allow) {
    setState(TrajectoryStateUpdate_State.CANCELLED, { error: gate.reason });
    return;
  }
  setState(TrajectoryStateUpdate_State.RUNNING);
  // §22 shows the prompt as a SOURCE_USER step (UNCONFIRMED, §23.1); we keep it.
  userStep(scope, input.text);
  let turnStart = state.transcript.length;
  state.transcript.push({ role: "user", text: input.text });
  const counters: TurnCounters = { modelCalls: 0, toolCalls: 0, usage: { promptTokens: 0, candidatesTokens: 0, thoughtsTokens: 0, cachedTokens: 0, totalTokens: 0 } };
  let responseText = "";
  let stopReason: StopReason | undefined;
  try {
    for (;;) {
      for (const trigger of state.takeTriggers()) {
        // §13: a trigger arriving mid-turn joins the conversation before the next model call.
        const text = `[automated trigger] ${trigger}`;
        userStep(scope, text);
        state.transcript.push({ role: "user", text });
      }
      turnStart = await maybeCompact(state, scope, turnStart);
      stopReason = budgetExceeded(state, counters, "model");
      if (stopReason !== undefined) break;
      const answer = await callModel(state, scope, counters);
      counters.modelCalls++;
      state.transcript.push({ role: "model", text: answer.text, ...(answer.thinking ? { thinking: answer.thinking } : {}), toolCalls: answer.toolCalls });
      if (answer.text !== "") responseText = answer.text;
      if (answer.toolCalls.length === 0) break;
      const outcome = await runTools(state, scope, answer.toolCalls, counters);
      if (outcome.finished) break;
      if (outcome.stopReason !== undefined) {
        stopReason = outcome.stopReason;
        break;
      }
    }
  } catch (error) {
    if (scope.signal.aborted) throw scope.signal.reason;
    const httpCode = error instanceof ModelError ? error.httpCode : 0;
    const message = error instanceof ModelError ? `model error: ${error.message}` : `internal harness error: ${error instanceof Error ? error.message : String(error)}`;
    state.log.warn(message);
    scope.openStep(systemErrorStep(message, httpCode));
    await options.beforeIdle?.();
    setState(TrajectoryStateUpdate_State.FULLY_IDLE, { error: message });
    return;
  }
  await state.hooks.call(LifecycleHook.POST_TURN, { case: "postTurnArgs", value: { responseText, trajectoryId } }, scope.send, scope.signal);
  await options.beforeIdle?.();
  setState(TrajectoryStateUpdate_State.FULLY_IDLE, stopReason === undefined ? {} : { stopReason });
}

function userStep(scope: TurnScope, text: string): void {
  scope.openStep({ state: StepUpdate_State.DONE, source: StepUpdate_Source.USER, target: StepUpdate_Target.MODEL, text });
}

/** §15: compacts the transcript before a model call once it exceeds the threshold. Returns the new turn start. */
async function maybeCompact(state: SessionState, scope: TurnScope, turnStart: number): Promise<number> {
  if (estimateTokens(state.transcript) <= state.settings.compactionThreshold) return turnStart;
  // Nothing but an earlier summary before this turn: compacting again would only shrink the summary.
  const first = state.transcript[0];
  if (turnStart <= 2 && first?.role === "user" && first.text.startsWith(SUMMARY_PREFIX)) return turnStart;
  const compaction = compactTranscript(state.transcript, turnStart);
  if (compaction === undefined) return turnStart;
  state.transcript = compaction.transcript;
  // Source/target of the COMPACTION step are UNCONFIRMED; the harness rewrites the model's context.
  const step = scope.openStep({ state: StepUpdate_State.DONE, source: StepUpdate_Source.SYSTEM, target: StepUpdate_Target.MODEL, compaction: {} });
  state.log.info(`compacted ${compaction.compactedMessages} messages of session ${state.cascadeId}`);
  await state.hooks.call(
    LifecycleHook.ON_COMPACTION,
    { case: "onCompactionArgs", value: { trajectoryId: state.cascadeId, stepIndex: step.index, summary: compaction.summary } },
    scope.send,
    scope.signal,
  );
  // The summary and its acknowledgement now precede the current turn.
  return 2;
}

/**
 * Streams one model call into a text/thinking step: ACTIVE updates with cumulative `text` /
 * `thinking` and the per-update `textDelta` / `thinkingDelta` (§6.2), the last delta riding on
 * the DONE update (as in §22). Then a `usageUpdate` (§14).
 */
async function callModel(state: SessionState, scope: TurnScope, counters: TurnCounters): Promise<ModelAnswer> {
  const request = { model: state.modelName, systemInstruction: state.settings.systemInstruction, messages: [...state.transcript], tools: toolDeclarations(state.settings) };
  const answer: ModelAnswer = { text: "", thinking: "", toolCalls: [] };
  let sent = { text: "", thinking: "" };
  let held: { textDelta?: string; thinkingDelta?: string } | undefined;
  let step: StepHandle | undefined;
  let usage: ModelUsage | undefined;
  const fields = (s: { text: string; thinking: string }, stepState: StepUpdate_State) =>
    modelStep({ state: stepState, ...(s.text ? { text: s.text } : {}), ...(s.thinking ? { thinking: s.thinking } : {}) });
  const flush = (final: boolean): void => {
    if (held === undefined && !final) return;
    sent = { text: sent.text + (held?.textDelta ?? ""), thinking: sent.thinking + (held?.thinkingDelta ?? "") };
    const update = fields(sent, final ? StepUpdate_State.DONE : StepUpdate_State.ACTIVE);
    if (step === undefined) step = scope.openStep(update, held);
    else step.update(update, held);
    held = undefined;
  };
  try {
    for await (const event of state.provider.generate(request, scope.signal)) {
      if (event.type === "text" || event.type === "thinking") {
        if (event.delta === "") continue;
        flush(false);
        held = event.type === "text" ? { textDelta: event.delta } : { thinkingDelta: event.delta };
        if (event.type === "text") answer.text += event.delta;
        else answer.thinking += event.delta;
      } else if (event.type === "toolCall") answer.toolCalls.push(event.call);
      else usage = event.usage;
      // Backpressure: a client that stops reading holds the model stream back (see OutputChannel).
      if (scope.congested) await scope.writable();
    }
  } catch (error) {
    if (!scope.signal.aborted && (held !== undefined || step !== undefined)) {
      flush(false);
      step?.fail(`the model stream failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    throw error;
  }
  if (held !== undefined || step !== undefined) flush(true);
  // Providers that report no usage get the same estimate the scripted model uses.
  const spent = usage ?? estimatedUsage(request.messages, answer);
  counters.usage = addUsage(counters.usage, spent);
  state.usage = addUsage(state.usage, spent);
  const total = toUsageMetadata(state.usage);
  scope.send({ case: "usageUpdate", value: { agents: [{ trajectoryId: state.cascadeId, usage: total }], total } });
  return answer;
}

/** Runs the tool calls of one model answer; `finish` ends the turn (§11.1). */
async function runTools(state: SessionState, scope: TurnScope, calls: readonly ModelToolCall[], counters: TurnCounters): Promise<{ finished: boolean; stopReason?: StopReason }> {
  const results: ModelToolResult[] = [];
  let finished = false;
  let stopReason: StopReason | undefined;
  let skipped = "not run: the turn was cancelled";
  try {
    for (const call of calls) {
      if (call.name === "finish" && state.settings.finish !== undefined) {
        let outputString: string;
        try {
          outputString = state.settings.finish.outputString(call.args);
        } catch (error) {
          // The model sees why and may call finish again with valid arguments.
          const message = (error as Error).message;
          scope.openStep(modelStep({ state: StepUpdate_State.ERROR, finish: {}, errorMessage: message, error: { errorMessage: message } }));
          results.push({ id: call.id, name: call.name, response: { error: message } });
          continue;
        }
        scope.openStep(modelStep({ state: StepUpdate_State.DONE, finish: { outputString } }));
        results.push({ id: call.id, name: call.name, response: { result: "finished" } });
        finished = true;
        skipped = "not run: finish ended the turn";
        break;
      }
      stopReason = budgetExceeded(state, counters, "tool");
      if (stopReason !== undefined) {
        skipped = "not run: the tool-call budget of the turn is spent";
        break;
      }
      results.push(await runToolCall(state, scope, call));
      counters.toolCalls++;
    }
  } finally {
    // Every call gets a result, so the transcript stays valid for the next model call.
    for (const call of calls.slice(results.length)) results.push({ id: call.id, name: call.name, response: { error: skipped } });
    state.transcript.push({ role: "tool", results });
  }
  return stopReason === undefined ? { finished } : { finished, stopReason };
}

function budgetExceeded(state: SessionState, counters: TurnCounters, before: "model" | "tool"): StopReason | undefined {
  const budget = state.settings.budget;
  if (before === "tool") return budget.maxToolCalls > 0 && counters.toolCalls >= budget.maxToolCalls ? StopReason.MAX_TOOL_CALLS_EXCEEDED : undefined;
  if (budget.maxModelCalls > 0 && counters.modelCalls >= budget.maxModelCalls) return StopReason.MAX_MODEL_CALLS_EXCEEDED;
  if (budget.maxInputTokens > 0 && counters.usage.promptTokens >= budget.maxInputTokens) return StopReason.MAX_INPUT_TOKENS_EXCEEDED;
  if (budget.maxOutputTokens > 0 && counters.usage.candidatesTokens + counters.usage.thoughtsTokens >= budget.maxOutputTokens) return StopReason.MAX_OUTPUT_TOKENS_EXCEEDED;
  if (budget.maxTotalTokens > 0 && counters.usage.totalTokens >= budget.maxTotalTokens) return StopReason.MAX_TOTAL_TOKENS_EXCEEDED;
  return undefined;
}

function estimatedUsage(messages: readonly unknown[], answer: ModelAnswer): ModelUsage {
  const promptTokens = Math.ceil(JSON.stringify(messages).length / 4);
  const candidatesTokens = Math.ceil((answer.text + JSON.stringify(answer.toolCalls)).length / 4);
  const thoughtsTokens = Math.ceil(answer.thinking.length / 4);
  return { promptTokens, candidatesTokens, thoughtsTokens, cachedTokens: 0, totalTokens: promptTokens + candidatesTokens + thoughtsTokens };
}
