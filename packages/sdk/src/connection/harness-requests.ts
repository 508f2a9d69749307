import type { MessageInitShape } from "@bufbuild/protobuf";
import { SdkError } from "../errors.js";
import type { Question } from "../hooks/hook.js";
import { canonicalToolCall, toolCallArguments } from "../mapping/index.js";
import { decidePolicyRequest } from "../policies/policy-config.js";
import { noSuchTool, runnerToolResponse, toToolResponse, type ClientToolResult } from "../tools/tool-runner.js";
import { SYNTHETIC_STEP_INDEX_BASE, type Step, type ToolCall } from "../step.js";
import type {
  CallHookRequest,
  InputEventSchema,
  PolicyDecisionRequest,
  StepUpdate,
  ToolCall as WireToolCall,
  UserQuestionAnswerSchema,
  UserQuestionsResponseSchema,
} from "../wire/index.js";
import type { QuestionAnswer, QuestionResponse } from "../step.js";
import type { HarnessConnectionOptions } from "./harness-connection-options.js";
import { activeToolStep, finishedToolStep } from "./synthetic-steps.js";
import { ToolCallContext } from "./tool-call-context.js";
import type { Turn } from "./turn.js";
import { errorText } from "../error-text.js";

/** What {@link HarnessRequests} needs from its connection. */
export interface HarnessRequestsContext {
  options: HarnessConnectionOptions;
  /** Aborted when the session ends. */
  sessionSignal: AbortSignal;
  conversationId(): string;
  /** Sends one InputEvent; throws `ConnectionClosed` once closed. */
  send(event: MessageInitShape<typeof InputEventSchema>): void;
  /** The turn a request belongs to (the running one, or a new unsolicited one). */
  turnForRequest(): Turn;
  /** The latest turn (running or over), without starting one; `undefined` before the first. */
  currentTurn(): Turn | undefined;
  /** The latest turn's main trajectory id (§6.3), "" while unknown. */
  mainTrajectory(): string;
  warn(message: string): void;
}

/**
 * Answers what the harness asks of the SDK (§7–§12): client tool calls (with their synthetic
 * steps), hook calls, dynamic policy decisions, built-in tool confirmations and questions.
 * Every request runs as its own task, so the frame reader never waits on user code, and is
 * answered exactly once — a failure still sends an answer.
 *
 * Duplicates: a request whose id is being answered right now, or was answered in the current
 * turn, is a re-send and is ignored. Ids are not remembered beyond the turn: harnesses (and
 * models) reuse call ids across turns, and every such call needs its answer (§7).
 */
export class HarnessRequests {
  readonly #context: HarnessRequestsContext;
  /** Request keys (`tool:<id>`, `hook:<id>` ...) being answered now, with the turn they came in. */
  readonly #inFlight = new Map<string, Turn | undefined>();
  /** Request keys answered during {@link #answeredTurn}; cleared when another turn starts. */
  readonly #answered = new Set<string>();
  #answeredTurn: Turn | undefined;
  readonly #toolState = new Map<string, unknown>();
  #nextSyntheticIndex = SYNTHETIC_STEP_INDEX_BASE;

  constructor(context: HarnessRequestsContext) {
    this.#context = context;
  }

  /** §7: runs a client tool call and answers it with `toolResponse`. */
  onToolCall(wire: WireToolCall): void {
    const id = wire.id ?? "";
    // An empty id cannot tell a re-send from another call: every such call is answered.
    const key = id === "" ? undefined : `tool:${id}`;
    if (key !== undefined && this.#inFlight.has(key)) return; // its answer is on the way
    const turn = this.#context.turnForRequest();
    if (key !== undefined && !this.#begin(key)) return;
    const name = wire.name ?? "";
    const args = toolCallArguments(wire);
    // §18: synthetic steps from 50,000, one index per call, shared by its ACTIVE and final step.
    // The call's own trajectory when the harness names it (ToolCall.trajectory_id, localharness.proto @257f843a; a subagent's), else the main one.
    const where = {
      stepIndex: this.#nextSyntheticIndex++,
      trajectoryId: wire.trajectoryId || this.#context.mainTrajectory(),
      cascadeId: this.#context.conversationId(),
    };
    // Steps show the canonical spelling (paths normalised, as the harness's own customTool step
    // shows them) of the arguments as they came; the tool gets them as the model wrote them
    // (upstream `handle_tool_call`) and may change them. Made off the round trip, when the steps are.
    let call: ToolCall | undefined;
    const stepCall = (): ToolCall =>
      (call ??= canonicalToolCall({ id, name, args: toolCallArguments(wire) }, "arguments"));
    const answer = (result: ClientToolResult): void => {
      // The harness waits for the answer; the steps are for local readers, so they go second.
      let responseJson: string | undefined;
      try {
        const response = runnerToolResponse(result);
        responseJson = response.responseJson;
        this.#context.send({ event: { case: "toolResponse", value: response } });
      } finally {
        // A result after the turn is over reached no one: the turn closed the call as "(cancelled)".
        if (!turn.settled) turn.push(finishedToolStep(stepCall(), result, where, responseJson));
      }
    };
    this.#spawn(`tool ${name}`, key, async () => {
      // The call's ACTIVE step while readers wait for the result, then the answer, then its final step.
      turn.push(activeToolStep(stepCall(), where));
      answer(await this.#runTool({ id, name, args }, turn, where.trajectoryId));
    });
  }

  /** §10: answers a `callHookRequest` (emptyResult when there are no hooks). */
  onHookRequest(request: CallHookRequest): void {
    const requestId = request.requestId ?? "";
    const key = `hook:${requestId}`;
    if (!this.#begin(key)) return;
    this.#spawn("hook", key, async () => {
      const hooks = this.#context.options.hooks;
      const response =
        hooks === undefined
          ? { requestId, result: { case: "emptyResult" as const, value: {} } }
          : await hooks.handle(request);
      this.#context.send({ event: { case: "callHookResponse", value: response } });
    });
  }

  /** §12: answers a `policyDecisionRequest` for a dynamic rule. */
  onPolicyRequest(request: PolicyDecisionRequest): void {
    const requestId = request.requestId ?? "";
    const key = `policy:${requestId}`;
    if (!this.#begin(key)) return;
    this.#spawn("policy decision", key, async () => {
      const answer = await decidePolicyRequest(this.#context.options.policies ?? [], request);
      this.#context.send({ event: { case: "policyDecisionResponse", value: { requestId, ...answer } } });
    });
  }

  /** §8/§9: answers a step that just entered WAITING_FOR_USER (already debounced). */
  onWaitingStep(step: Step, update: StepUpdate): void {
    const trajectoryId = update.trajectoryId ?? "";
    const stepIndex = update.stepIndex ?? 0;
    if (update.questionsRequest !== undefined) {
      const questions: Question[] = update.questionsRequest.questions.map((q) => ({
        question: q.questionType.case === "multipleChoice" ? (q.questionType.value.question ?? "") : "",
        choices: q.questionType.case === "multipleChoice" ? [...q.questionType.value.choices] : [],
        isMultiSelect: q.questionType.case === "multipleChoice" ? (q.questionType.value.isMultiSelect ?? false) : false,
      }));
      this.#spawn("questions", undefined, async () => {
        let response: QuestionResponse | undefined;
        try {
          response = await this.#context.options.hooks?.onInteraction(questions, { trajectoryId, stepIndex });
        } catch (error) {
          const text = `SDK error processing question: ${errorText(error)}`;
          response = { answers: questions.map(() => ({ selectedChoiceIndices: [], freeformResponse: text })) };
        }
        this.sendQuestionResponse(trajectoryId, stepIndex, response ?? { answers: [] }, questions.length);
      });
      return;
    }
    if (update.toolConfirmationRequest !== undefined) {
      const call = step.toolCalls[0] ?? { id: step.id, name: "", args: {} };
      const turn = this.#context.currentTurn();
      this.#spawn("tool confirmation", undefined, async () => {
        let accepted = true; // upstream ≥0.1.6 accepts; gating lives in the harness (§8)
        const confirm = this.#context.options.confirmTool;
        if (confirm !== undefined) {
          try {
            const decision = await confirm(call, step);
            if (decision === "manual") return; // the caller answers it (sendToolConfirmation)
            if (decision === "defer") {
              // Unanswered on purpose: the turn ends here, the harness holds the call (docs/continuations.md).
              turn?.end({
                awaitingConfirmation: {
                  conversationId: this.#context.conversationId(),
                  toolCall: call,
                  trajectoryId,
                  stepIndex,
                },
              });
              return;
            }
            accepted = decision === true;
          } catch (error) {
            accepted = false;
            this.#context.warn(`confirmTool failed, refusing ${call.name}: ${SdkError.from(error).message}`);
          }
        }
        this.#context.send({ event: { case: "toolConfirmation", value: { trajectoryId, stepIndex, accepted } } });
      });
    }
  }

  /** Sends a tool result as `toolResponse` (§7). */
  sendToolResult(result: ClientToolResult): void {
    this.#context.send({ event: { case: "toolResponse", value: toToolResponse(result) } });
  }

  /**
   * Sends a `questionResponse` (§9): one answer per question, in order — missing answers are
   * sent as `unanswered`, extra ones dropped when `count` is known.
   */
  sendQuestionResponse(trajectoryId: string, stepIndex: number, response: QuestionResponse, count?: number): void {
    let value: MessageInitShape<typeof UserQuestionsResponseSchema>;
    if ("cancelled" in response) {
      value = { trajectoryId, stepIndex, result: { case: "cancelled", value: true } };
    } else {
      const answers =
        count === undefined
          ? response.answers
          : Array.from({ length: count }, (_, i) => response.answers[i] ?? { unanswered: true as const });
      value = { trajectoryId, stepIndex, result: { case: "response", value: { answers: answers.map(wireAnswer) } } };
    }
    this.#context.send({ event: { case: "questionResponse", value } });
  }

  /** Runs a client tool call; the result comes back at once when the tool answers at once (no telemetry). */
  async #runTool(call: ToolCall, turn: Turn, trajectoryId: string): Promise<ClientToolResult> {
    const tools = this.#context.options.tools;
    if (tools === undefined) return noSuchTool(call);
    const context = new ToolCallContext({
      conversationId: this.#context.conversationId(),
      callId: call.id,
      trajectoryId,
      state: this.#toolState,
      sendTrigger: this.#sendTrigger,
      sessionSignal: this.#context.sessionSignal,
      turn,
    });
    try {
      const telemetry = this.#context.options.telemetry;
      return await (telemetry === undefined
        ? tools.run(call, context)
        : telemetry.executeTool(call, turn, () => tools.run(call, context)));
    } catch (error) {
      return { id: call.id, name: call.name, error: `Internal SDK error: ${errorText(error)}` };
    } finally {
      context.finish();
    }
  }

  /** `ToolContext.sendTrigger` of every call: one function for the session, not one per call. */
  readonly #sendTrigger = async (text: string): Promise<void> =>
    this.#context.send({ event: { case: "automatedTrigger", value: text } });

  /** Claims `key` for answering; false when it is in flight or was answered in this turn (a re-send). */
  #begin(key: string): boolean {
    this.#syncTurn();
    if (this.#inFlight.has(key) || this.#answered.has(key)) return false;
    this.#inFlight.set(key, this.#answeredTurn);
    return true;
  }

  /**
   * `key` was answered (or failed trying): later re-sends in its turn are ignored. An answer that
   * comes after its turn (a tool still running when the next turn started) claims nothing there.
   */
  #end(key: string): void {
    const turn = this.#inFlight.get(key);
    this.#inFlight.delete(key);
    this.#syncTurn();
    if (turn === this.#answeredTurn) this.#answered.add(key);
  }

  /** Forgets the answered ids of earlier turns. */
  #syncTurn(): void {
    const turn = this.#context.currentTurn();
    if (turn === this.#answeredTurn) return;
    this.#answeredTurn = turn;
    this.#answered.clear();
  }

  /**
   * Runs `task` detached from the reader; a failure (e.g. the connection closed) is reported, not
   * thrown. Releases `key` (from {@link #begin}) when the task is over.
   */
  #spawn(what: string, key: string | undefined, task: () => void | Promise<void>): void {
    void this.#detached(what, key, task);
  }

  /** {@link #spawn}'s task: one async frame instead of a then/catch/finally chain of promises; a task done at once costs no further turn. */
  async #detached(what: string, key: string | undefined, task: () => void | Promise<void>): Promise<void> {
    try {
      await undefined; // the task starts after the reader's current frame, never inside it
      const running = task();
      if (running !== undefined) await running;
    } catch (error) {
      if (!this.#context.sessionSignal.aborted)
        this.#context.warn(`could not answer a ${what} request: ${SdkError.from(error).message}`);
    } finally {
      if (key !== undefined) this.#end(key);
    }
  }
}

function wireAnswer(answer: QuestionAnswer): MessageInitShape<typeof UserQuestionAnswerSchema> {
  if ("unanswered" in answer) return { answer: { case: "unanswered", value: true } };
  const value =
    answer.freeformResponse === undefined
      ? { selectedChoiceIndices: answer.selectedChoiceIndices }
      : { selectedChoiceIndices: answer.selectedChoiceIndices, freeformResponse: answer.freeformResponse };
  return { answer: { case: "multipleChoiceAnswer", value } };
}
