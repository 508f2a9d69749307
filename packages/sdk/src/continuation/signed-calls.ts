import { ErrorCode, SdkError } from "../errors.js";
import type { Step } from "../step.js";
import { canonicalJson } from "./canonical-json.js";
import { awaitedCall, type Continuation, type PendingToolCall } from "./continuation.js";

/** Which part of the signed call the harness's held step no longer matches. */
export type SignedCallPart = "tool" | "arguments" | "session" | "call";

/**
 * Checks that the steps the harness holds are the calls `continuation` was signed for, failing
 * closed with `FailedPrecondition` (`details.reason` `"call-mismatch"`, `details.part` saying what
 * differs) before any decision is sent:
 *
 * - `tool`: the held step is not a call of the signed tool (or not a tool call at all);
 * - `arguments`: its arguments are not the signed ones (compared as canonical JSON, so key order
 *   and spelling of numbers do not matter, every value does);
 * - `session`: an earlier call of the paused turn is missing from the conversation or is another
 *   tool — the conversation id was re-created (a harness that forgot it, then a new session under
 *   the same id) and reached the same step index by another path.
 *
 * The localharness wire carries no per-session nonce (`ToolConfirmationRequest` is empty, and
 * upstream's conversation id is the main trajectory id), so a re-created conversation that
 * repeats the same calls up to the same command line is the call that was signed, and is let
 * through (docs/continuations.md, threat model).
 */
export function checkSignedCalls(continuation: Continuation, history: readonly Step[]): void {
  const awaited = awaitedCall(continuation);
  const conversation = continuation.payload.conversationId;
  for (const call of continuation.payload.pendingToolCalls) {
    const step = history.find((s) => s.trajectoryId === call.trajectoryId && s.stepIndex === call.stepIndex);
    const held = step?.toolCalls[0];
    const where = `step ${call.trajectoryId}:${call.stepIndex} of conversation ${conversation}`;
    if (call !== awaited) {
      if (held?.name !== call.name)
        throw mismatch(
          "session",
          `${where} was a ${call.name} call when the continuation was signed, and the harness now has ${held === undefined ? "no call there" : `a ${held.name} call`}: the conversation was re-created or altered since`,
          call,
        );
      continue;
    }
    if (held === undefined || held.name !== call.name)
      throw mismatch(
        "tool",
        `${where} is ${held === undefined ? "not a tool call" : `a ${held.name} call`}, but the continuation approves ${call.name}`,
        call,
      );
    const signed = canonicalJson(call.args ?? null);
    const now = canonicalJson(held.args ?? null);
    if (signed !== now)
      throw mismatch(
        "arguments",
        `${where} is a ${call.name} call with the arguments ${clip(now)}, but the continuation approves ${clip(signed)}`,
        call,
      );
  }
}

/**
 * The refusal of a continuation whose call is not the one held (`FailedPrecondition`,
 * `details.reason` `"call-mismatch"`): `call` is a call of another id where the wire names its
 * calls (the Interactions API's `FunctionCallStep.id`), the other parts as for {@link checkSignedCalls}.
 */
export function mismatch(part: SignedCallPart, message: string, call: PendingToolCall): SdkError {
  return new SdkError(
    ErrorCode.FailedPrecondition,
    `${message}. The continuation approves only the call it was signed for; nothing was sent`,
    {
      details: { reason: "call-mismatch", part, trajectoryId: call.trajectoryId, stepIndex: call.stepIndex },
    },
  );
}

/** `text`, cut to 200 characters for an error message. */
export function clip(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 200)}…`;
}
