import type { UserInput } from "@antigravity-ts/sdk/wire";
import {
  LifecycleHook,
  StepUpdate_Source,
  StepUpdate_State,
  StepUpdate_Target,
  TrajectoryStateUpdate_State,
  TrajectoryStateUpdate_StopReason as StopReason,
  errorText,
  definedProperties,
} from "@antigravity-ts/sdk/internal";
import { compactTranscript, shouldCompact } from "./compaction.js";
import type { ModelMedia } from "../model/media.js";
import { ModelError, type ModelRequest, type ModelToolCall, type ModelUsage } from "../model/provider.js";
import type { OutputEventInit } from "./output-channel.js";
import { modelCallStop, toolCallStop } from "./budget.js";
import { toolDeclarations } from "./settings.js";
import type { SessionState } from "./state.js";
import { modelStep, systemErrorStep, type StepHandle } from "../step-ledger.js";
import { askStopHook } from "./stop-hook.js";
import { runToolCall } from "./run-tool-call.js";
import { TRIGGER_PREFIX, type ModelAnswer } from "./model-transcript.js";
import type { TurnScope } from "./turn-scope.js";
import { addUsage, estimatePromptTokens, estimatedUsage, toUsageMetadata } from "../model/usage.js";

/** What starts a turn. */
export interface TurnInput {
  /** The client's `UserInput` (for the PRE_TURN hook). */
  userInput: UserInput;
  /** The text the model sees. */
  text: string;
  /** The prompt's media, given to the model inline. */
  media?: readonly ModelMedia[];
}

/** Options of {@link runTurn}. */
export interface RunTurnOptions {
  /** Called before the final FULLY_IDLE, so a client that sees the turn end can rely on it being saved. */
  beforeIdle?: () => Promise<void>;
}

/**
 * Runs one turn (§6): PRE_TURN hook → RUNNING → the user's step → model calls and tool calls
 * until the model answers without tools, calls `finish`, or a budget stops it, and the STOP hook
 * (when enabled) lets it stop → POST_TURN hook → FULLY_IDLE. Model failures end the turn with a SOURCE_SYSTEM ERROR step and FULLY_IDLE carrying
 * the error (§16). Rejects only when the turn is aborted (halt/disconnect); the caller reports that.
 *
 * The transcript keeps seed 002's shape whatever happens: a halt keeps what the model streamed and
 * closes open tool calls with `(cancelled)`; an error exit also drops the unanswered prompt.
 */
export async function runTurn(
  state: SessionState,
  input: TurnInput,
  scope: TurnScope,
  options: RunTurnOptions = {},
): Promise<void> {
  const trajectoryId = state.cascadeId;
  const transcript = state.transcript;
  const setState = (
    value: TrajectoryStateUpdate_State,
    extra: { error?: string; stopReason?: StopReason } = {},
  ): void => {
    scope.send({ case: "trajectoryStateUpdate", value: { trajectoryId, state: value, ...extra } });
  };
  const gate = await state.hooks.preTurn(input.userInput, trajectoryId, scope.send, scope.signal);
  if (!gate.allow) {
    // §13: CANCELLED is what a PRE_TURN deny ends with (a halt ends with FULLY_IDLE).
    setState(TrajectoryStateUpdate_State.CANCELLED, { error: gate.reason });
    return;
  }
  setState(TrajectoryStateUpdate_State.RUNNING);
  // §22 shows the prompt as a SOURCE_USER step (UNCONFIRMED, §23.1); we keep it.
  userStep(scope, input.text);
  transcript.startTurn(input.text, input.media);
  let responseText = "";
  let stopReason: StopReason | undefined;
  let continuationCount = 0;
  try {
    for (;;) {
      // A halt that landed while the last step was settling: nothing more is dispatched.
      scope.signal.throwIfAborted();
      for (const trigger of state.takeTriggers()) {
        // §13: a trigger arriving mid-turn joins the conversation before the next model call.
        const text = `${TRIGGER_PREFIX} ${trigger}`;
        userStep(scope, text);
        transcript.addUser(text);
      }
      await maybeCompact(state, scope);
      const request: ModelRequest = {
        model: state.modelName,
        systemInstruction: state.settings.systemInstruction,
        messages: transcript.forProvider(),
        tools: toolDeclarations(state.settings),
      };
      // protocol.md BudgetConfig: every limit before every model call, the input limit before dispatch.
      const spent = state.budgetSpent();
      stopReason = modelCallStop(state.settings.budget, spent.calls, spent.usage, estimatePromptTokens(request));
      if (stopReason === undefined) {
        state.calls.modelCalls++;
        const answer = await callModel(state, scope, request);
        if (answer.text !== "") responseText = answer.text;
        if (answer.toolCalls.length > 0) {
          const outcome = await runTools(state, scope, answer.toolCalls);
          stopReason = outcome.stopReason;
          if (!outcome.finished && stopReason === undefined) continue;
        }
      }
      // The turn is about to end (answer without tools, `finish`, a budget): the STOP hook may
      // continue it with a system message, and the loop makes another model call.
      const system = await askStopHook(state, scope, {
        responseText,
        continuationCount,
        ...definedProperties({ stopReason }),
      });
      if (system === undefined) break;
      continuationCount++;
      transcript.addUser(system);
    }
  } catch (error) {
    if (scope.signal.aborted) {
      transcript.cancelTurn();
      throw scope.signal.reason;
    }
    transcript.cancelTurnIncludingUser();
    const httpCode = error instanceof ModelError ? error.httpCode : 0;
    const message =
      error instanceof ModelError ? `model error: ${error.message}` : `internal harness error: ${errorText(error)}`;
    state.log.warn(message);
    scope.openStep(systemErrorStep(message, httpCode));
    // The STOP hook is told of the error; the turn cannot continue (see askStopHook).
    await askStopHook(state, scope, { responseText, continuationCount, errorMessage: message }).catch(
      (hookError: unknown) => {
        if (scope.signal.aborted) throw scope.signal.reason;
        state.log.warn(`the STOP hook failed: ${errorText(hookError)}`);
      },
    );
    await options.beforeIdle?.();
    setState(TrajectoryStateUpdate_State.FULLY_IDLE, { error: message });
    return;
  }
  await state.hooks.call(
    LifecycleHook.POST_TURN,
    { case: "postTurnArgs", value: { responseText, trajectoryId } },
    scope.send,
    scope.signal,
  );
  await options.beforeIdle?.();
  setState(TrajectoryStateUpdate_State.FULLY_IDLE, definedProperties({ stopReason }));
}

function userStep(scope: TurnScope, text: string): void {
  scope.openStep({
    state: StepUpdate_State.DONE,
    source: StepUpdate_Source.USER,
    target: StepUpdate_Target.MODEL,
    text,
  });
}

/** §15: compacts the turns before the current one when what a model call would send exceeds the threshold. */
async function maybeCompact(state: SessionState, scope: TurnScope): Promise<void> {
  const transcript = state.transcript;
  if (!shouldCompact(transcript, state.settings)) return;
  const compaction = compactTranscript(transcript, transcript.turnStart);
  if (compaction === undefined) return;
  // Source/target of the COMPACTION step are UNCONFIRMED; the harness rewrites the model's context.
  const step = scope.openStep({
    state: StepUpdate_State.DONE,
    source: StepUpdate_Source.SYSTEM,
    target: StepUpdate_Target.MODEL,
    compaction: {},
  });
  state.log.info(`compacted ${compaction.compactedMessages} messages of session ${state.cascadeId}`);
  await state.hooks.call(
    LifecycleHook.ON_COMPACTION,
    {
      case: "onCompactionArgs",
      value: { trajectoryId: state.cascadeId, stepIndex: step.index, summary: compaction.summary },
    },
    scope.send,
    scope.signal,
  );
}

/**
 * Streams one model call into a text/thinking step: ACTIVE updates with cumulative `text` /
 * `thinking` and the per-update `textDelta` / `thinkingDelta` (§6.2), the last delta riding on
 * the DONE update (as in §22). Then a `usageUpdate` (§14). The answer goes into the transcript —
 * on a halt or disconnect, the part streamed so far, with the usage counted so far (issue 8 item 9).
 */
async function callModel(state: SessionState, scope: TurnScope, request: ModelRequest): Promise<ModelAnswer> {
  const answer: ModelAnswer = { text: "", thinking: "", toolCalls: [] };
  let sent = { text: "", thinking: "" };
  let held: { textDelta?: string; thinkingDelta?: string } | undefined;
  let step: StepHandle | undefined;
  let usage: ModelUsage | undefined;
  const fields = (s: { text: string; thinking: string }, stepState: StepUpdate_State) =>
    modelStep({
      state: stepState,
      ...(s.text ? { text: s.text } : {}),
      ...(s.thinking ? { thinking: s.thinking } : {}),
    });
  const flush = (final: boolean): void => {
    if (held === undefined && !final) return;
    sent = { text: sent.text + (held?.textDelta ?? ""), thinking: sent.thinking + (held?.thinkingDelta ?? "") };
    const update = fields(sent, final ? StepUpdate_State.DONE : StepUpdate_State.ACTIVE);
    if (step === undefined) step = scope.openStep(update, held);
    else step.update(update, held);
    held = undefined;
  };
  // Runs synchronously inside the halt, before its FULLY_IDLE: the delta held back goes out (the
  // step's ERROR update then carries all the model said), seed 002 keeps the partial answer, and
  // the call's usage is sent. Providers report usage only at the end of their stream (Gemini's
  // final usageMetadata, OpenAI's include_usage chunk, the scripted model's last event), so a halted
  // call counts the estimate: its prompt's input tokens plus the text, thinking and calls streamed.
  const unregister = scope.onStop((send) => {
    flush(false);
    state.transcript.addModel(answer);
    account(state, usage ?? estimatedUsage(request, answer), send);
  });
  try {
    for await (const event of state.provider.generate(request, scope.signal)) {
      if (event.type === "text" || event.type === "thinking") {
        if (event.delta === "") continue;
        flush(false);
        held = event.type === "text" ? { textDelta: event.delta } : { thinkingDelta: event.delta };
        if (event.type === "text") answer.text += event.delta;
        else answer.thinking += event.delta;
      } else if (event.type === "toolCall") addCall(state, answer.toolCalls, event.call);
      else usage = event.usage;
      // Backpressure: a client that stops reading holds the model stream back (see OutputChannel).
      if (scope.congested) await scope.writable();
    }
  } catch (error) {
    if (!scope.signal.aborted && (held !== undefined || step !== undefined)) {
      flush(false);
      step?.fail(`the model stream failed: ${errorText(error)}`);
    }
    throw error;
  } finally {
    unregister();
  }
  // The stream ended just as a halt came in: the stop handler has recorded the answer already.
  scope.signal.throwIfAborted();
  if (held !== undefined || step !== undefined) flush(true);
  state.transcript.addModel(answer);
  // Providers that report no usage get the same estimate the scripted model uses.
  account(state, usage ?? estimatedUsage(request, answer), scope.send);
  return answer;
}

/** Adds `call` unless one with its id is already there (each call must get exactly one result). */
function addCall(state: SessionState, calls: ModelToolCall[], call: ModelToolCall): void {
  if (calls.some((c) => c.id === call.id))
    state.log.warn(`the model repeated tool call id ${JSON.stringify(call.id)}; the repeat is ignored`);
  else calls.push(call);
}

/** Adds a model call's usage to the session's and sends the new totals (§14). */
function account(state: SessionState, spent: ModelUsage, send: (event: OutputEventInit) => boolean): void {
  state.usage = addUsage(state.usage, spent);
  const total = toUsageMetadata(state.usage);
  send({ case: "usageUpdate", value: { agents: [{ trajectoryId: state.cascadeId, usage: total }], total } });
}

/**
 * Runs the tool calls of one model answer, each result going into the transcript as it comes;
 * `finish` ends the turn (§11.1). Calls left when `finish` or the tool budget stops the answer
 * get a "not run" result; on a halt the caller closes them with `(cancelled)`.
 */
async function runTools(
  state: SessionState,
  scope: TurnScope,
  calls: readonly ModelToolCall[],
): Promise<{ finished: boolean; stopReason?: StopReason }> {
  const transcript = state.transcript;
  let finished = false;
  let stopReason: StopReason | undefined;
  let skipped: string | undefined;
  for (const call of calls) {
    if (call.name === "finish" && state.settings.finish !== undefined) {
      let outputString: string;
      try {
        outputString = state.settings.finish.outputString(call.args);
      } catch (error) {
        // The model sees why and may call finish again with valid arguments.
        const message = (error as Error).message;
        scope.openStep(
          modelStep({
            state: StepUpdate_State.ERROR,
            finish: {},
            errorMessage: message,
            error: { errorMessage: message },
          }),
        );
        transcript.addToolResult({ id: call.id, name: call.name, response: { error: message } });
        continue;
      }
      scope.openStep(modelStep({ state: StepUpdate_State.DONE, finish: { outputString } }));
      transcript.addToolResult({ id: call.id, name: call.name, response: { result: "finished" } });
      finished = true;
      skipped = "not run: finish ended the turn";
      break;
    }
    stopReason = toolCallStop(state.settings.budget, state.budgetSpent().calls);
    if (stopReason !== undefined) {
      skipped = "not run: the tool-call budget of the session is spent";
      break;
    }
    state.calls.toolCalls++;
    transcript.addToolResult(await runToolCall(state, scope, call));
  }
  // Every call gets a result, so the transcript stays valid for the next model call.
  if (skipped !== undefined) transcript.closeOpenCalls(skipped);
  return stopReason === undefined ? { finished } : { finished, stopReason };
}
