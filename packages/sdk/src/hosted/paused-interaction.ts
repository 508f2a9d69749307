/**
 * The resume half of the hosted connection's pause (docs/hosted.md "Pause and resume"), loaded when
 * a continuation is resumed: reads the paused interaction back (`interactions.get`: `Interaction`
 * `{ status, steps }`, genai.d.ts) and checks that a continuation answers exactly the calls it
 * waits for (`FunctionCallStep { id, name, arguments }`, `FunctionResultStep { call_id }`).
 */
import { canonicalJson } from "../continuation/canonical-json.js";
import { awaitedCall, type Continuation } from "../continuation/continuation.js";
import { clip, mismatch } from "../continuation/signed-calls.js";
import { ErrorCode, SdkError } from "../errors.js";
import { StepStatus, type Step, type ToolCall, type ToolResult } from "../step.js";
import { callStep } from "./hosted-steps.js";
import { notLoaded, wireResult } from "./hosted-connection.js";
import type { InteractionsClient, WireObject } from "./interactions-client.js";

/** A paused turn read back by {@link HostedConnection.loadPaused}. */
export interface LoadedPause {
  continuation: Continuation;
  interactionId: string;
  /** The interaction's `FunctionCallStep`s as steps (`<interaction id>:<index>`), WAITING_FOR_USER those it still waits for. */
  held: readonly Step[];
}

/**
 * The interaction `continuation` paused on, read back: its `FunctionCallStep`s as steps
 * `<interaction id>:<index>` (trajectory = the interaction, step index = the step's index in
 * `Interaction.steps`), WAITING_FOR_USER those it still waits for — every call without a
 * `function_result` while the status is `requires_action`. An interaction the API no longer has
 * (404) holds no steps: `agent.resume` then says `NotFound`.
 */
export async function readPause(
  client: InteractionsClient,
  conversationId: string,
  continuation: Continuation,
  signal: AbortSignal | undefined,
): Promise<LoadedPause> {
  const interactionId = awaitedCall(continuation).trajectoryId;
  let resource: WireObject;
  try {
    resource = await client.get(interactionId, signal);
  } catch (error) {
    if (SdkError.from(error).code === ErrorCode.NotFound) return { continuation, interactionId, held: [] };
    throw error;
  }
  const steps = Array.isArray(resource["steps"]) ? (resource["steps"] as WireObject[]) : [];
  // FunctionResultStep.call_id answers FunctionCallStep.id; the hosted tools' results are in the same interaction.
  const answered = new Set(steps.filter((wire) => wire["type"] === "function_result").map((wire) => wire["call_id"]));
  const waits = resource["status"] === "requires_action";
  const held: Step[] = [];
  steps.forEach((wire, index) => {
    if (wire["type"] !== "function_call" || typeof wire["id"] !== "string" || typeof wire["name"] !== "string") return;
    const call: ToolCall = { id: wire["id"], name: wire["name"], args: (wire["arguments"] ?? {}) as unknown };
    const status = waits && !answered.has(call.id) ? StepStatus.WaitingForUser : StepStatus.Done;
    held.push(callStep(conversationId, interactionId, index, call, status));
  });
  return { continuation, interactionId, held };
}

/** Refuses an answer for another call than the one `paused` awaits (`NotFound`), then {@link checkHeldCalls}. */
export function checkAnswer(paused: LoadedPause, trajectoryId: string, stepIndex: number): void {
  const awaited = awaitedCall(paused.continuation);
  if (awaited.trajectoryId !== trajectoryId || awaited.stepIndex !== stepIndex)
    throw notLoaded(trajectoryId, stepIndex);
  checkHeldCalls(paused);
}

/**
 * Refuses a loaded pause whose continuation does not answer exactly the calls its interaction
 * waits for (`FailedPrecondition`, `details.reason` `"call-mismatch"`): every pending call must
 * be a `FunctionCallStep` of that interaction at its index with the same id (`call`), name
 * (`tool`) and canonical arguments (`arguments`), and every call the interaction waits for must be
 * one of them (`session`): the next `create` has to answer them all.
 */
export function checkHeldCalls(paused: LoadedPause): void {
  const { continuation, interactionId, held } = paused;
  const pending = continuation.payload.pendingToolCalls;
  for (const call of pending) {
    const where = `step ${call.stepIndex} of interaction ${interactionId}`;
    if (call.trajectoryId !== interactionId)
      throw mismatch(
        "session",
        `call ${call.id} is signed as waiting in interaction ${call.trajectoryId}, not in ${interactionId} with the awaited call`,
        call,
      );
    const now = held.find((step) => step.stepIndex === call.stepIndex)?.toolCalls[0];
    if (now === undefined || now.id !== call.id)
      throw mismatch(
        "call",
        `${where} is ${now === undefined ? "no function call" : `function call ${now.id}`}, but the continuation answers call ${call.id}`,
        call,
      );
    if (now.name !== call.name)
      throw mismatch("tool", `${where} is a ${now.name} call, but the continuation answers ${call.name}`, call);
    const signed = canonicalJson(call.args ?? null);
    const actual = canonicalJson(now.args ?? null);
    if (signed !== actual)
      throw mismatch(
        "arguments",
        `${where} is a ${call.name} call with the arguments ${clip(actual)}, but the continuation answers ${clip(signed)}`,
        call,
      );
  }
  const missing = held.filter(
    (step) => step.status === StepStatus.WaitingForUser && !pending.some((call) => call.stepIndex === step.stepIndex),
  );
  if (missing.length > 0)
    throw mismatch(
      "session",
      `interaction ${interactionId} also waits for ${missing.map((step) => `${step.toolCalls[0]?.name} (${step.toolCalls[0]?.id})`).join(", ")}, which the continuation does not answer`,
      awaitedCall(continuation),
    );
}

/** A continuation's `completedResults` entry as the `FunctionResultStep` it was. */
export function wireResultStep(result: ToolResult): WireObject {
  return result.error !== undefined
    ? { type: "function_result", call_id: result.id, name: result.name, result: result.error, is_error: true }
    : { type: "function_result", call_id: result.id, name: result.name, result: wireResult(result.result) };
}
