import type { StartedAgent } from "./agent.js";
import type { ChatStream } from "../conversation/chat-stream.js";
import { ErrorCode, SdkError } from "../errors.js";
import { StepStatus, type Step } from "../step.js";
import type { CallOptions } from "../call-options.js";
import { linkSignal, raceSignal } from "../util/abort.js";
import { signedCallKey, type ResumeGuard } from "../continuation/consumed-confirmations.js";
import { awaitedCall, type Continuation } from "../continuation/continuation.js";
import { checkSignedCalls } from "../continuation/signed-calls.js";
import { verifyContinuation, type ContinuationSecret } from "../continuation/continuation-signing.js";

/** The decision a continuation is resumed with. */
export interface ResumeDecision {
  /** Must be the id of the call the continuation awaits (`awaitingConfirmation.toolCall.id`). */
  toolCallId: string;
  /** `true` runs the call; `false` refuses it (the model sees it denied). */
  approved: boolean;
  /**
   * Why, for the application's records. Not sent: the wire's `toolConfirmation` has no field for
   * it (§8), and the harness tells the model "denied by user".
   */
  reason?: string;
}

/** A resumed turn: the agent connected to the conversation, and the rest of the turn. */
export interface ResumedTurn<Output = unknown> {
  /** Connected to the continuation's conversation; stop it when done. */
  agent: StartedAgent<Output>;
  /** The rest of the paused turn, from the call that awaited the decision (typed by the agent's `responseSchema`). May pause again (`final().awaitingConfirmation`). */
  stream: ChatStream<Output>;
}

/**
 * Where {@link resumeContinuation} starts the agent: the conversation, resumed, with the awaited
 * confirmation (`"<trajectoryId>:<stepIndex>"`) left unanswered for resume to answer.
 */
export interface ResumeTarget {
  conversationId: string;
  heldConfirmation: string;
}

/**
 * A connection whose server keeps a paused turn rather than a harness session holding its step
 * (the hosted connection: an interaction waiting in `requires_action`, docs/hosted.md): `loadPaused`
 * reads afresh where the continuation's calls wait and returns the steps that hold them now (the
 * awaited one WAITING_FOR_USER while it still waits), keeping what the decision needs; resume
 * checks these in place of `initialHistory` and answers with `sendToolConfirmation`, which goes on
 * as a turn the connection starts.
 */
export interface PausedTurnReader {
  loadPaused(continuation: Continuation, options?: CallOptions): Promise<readonly Step[]>;
}

/** `connection` as a {@link PausedTurnReader}, when it is one. */
function readerOf(connection: object): PausedTurnReader | undefined {
  return typeof (connection as Partial<PausedTurnReader>).loadPaused === "function"
    ? (connection as PausedTurnReader)
    : undefined;
}

/** Longest resume waits for the harness to send the held step again, unless `timeoutMs` says otherwise. */
const DEFAULT_RESUME_TIMEOUT_MS = 30_000;

/**
 * `agent.resume`: checks the continuation (version, shape, signature when a secret is set) and
 * that `decision` answers the awaited call, marks it consumed, connects to its conversation
 * (continuation mode RESUME), checks that the harness still holds that step in
 * WAITING_FOR_USER (a {@link PausedTurnReader} reads them back) — `NotFound` otherwise (expired, restarted, already answered) — and sends the
 * decision once the held turn is live again. Fails closed at every step; nothing is sent before
 * every check passed. Never re-runs a completed call: it only answers the awaited one.
 */
export async function resumeContinuation<Output>(
  start: (target: ResumeTarget, options: CallOptions) => Promise<StartedAgent<Output>>,
  value: unknown,
  decision: ResumeDecision,
  secret: ContinuationSecret | undefined,
  guard: ResumeGuard,
  options: CallOptions = {},
): Promise<ResumedTurn<Output>> {
  const continuation = await verifyContinuation(value, secret);
  const awaited = awaitedCall(continuation);
  if (typeof decision !== "object" || decision === null || typeof decision.approved !== "boolean")
    throw new SdkError(ErrorCode.InvalidArgument, "resume needs a decision { toolCallId, approved: true | false }");
  if (decision.toolCallId !== awaited.id) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `the decision is for ${JSON.stringify(decision.toolCallId)}, but the continuation awaits a decision for ${JSON.stringify(awaited.id)} (${awaited.name})`,
      { details: { reason: "wrong-call" } },
    );
  }
  const { conversationId } = continuation.payload;
  await guard.consume(await signedCallKey(conversationId, awaited));
  const key = `${awaited.trajectoryId}:${awaited.stepIndex}`;
  const agent = await start({ conversationId, heldConfirmation: key }, options);
  const link = linkSignal({ timeoutMs: DEFAULT_RESUME_TIMEOUT_MS, ...options });
  try {
    // A wire whose server keeps the paused turn reads it afresh; a harness session replayed it.
    const reader = readerOf(agent.connection);
    const history =
      reader === undefined
        ? agent.connection.initialHistory
        : await raceSignal(reader.loadPaused(continuation, { signal: link.signal }), link.signal);
    const held = history.find(
      (step) => step.trajectoryId === awaited.trajectoryId && step.stepIndex === awaited.stepIndex,
    );
    if (held === undefined || held.status !== StepStatus.WaitingForUser) {
      const now =
        held === undefined ? "has no such step" : `has it ${held.status}${held.error === "" ? "" : ` (${held.error})`}`;
      throw new SdkError(
        ErrorCode.NotFound,
        `the harness no longer holds the confirmation of ${awaited.name} (step ${key}): conversation ${conversationId} ${now}. It expired, the harness restarted, or it was already answered; the conversation goes on without it`,
        { details: { reason: "confirmation-gone" } },
      );
    }
    checkSignedCalls(continuation, history);
    // The held step's turn: started by the harness's re-send of it (§8), which the agent leaves to
    // us ("manual"), or else by its next update after the decision. turns() gives it either way.
    const turns = agent.conversation().turns({ signal: link.signal })[Symbol.asyncIterator]();
    const next = turns.next();
    await agent.connection.sendToolConfirmation(awaited.trajectoryId, awaited.stepIndex, decision.approved, options);
    const turn = await raceSignal(next, link.signal);
    void turns.return?.();
    if (turn.done === true)
      throw new SdkError(ErrorCode.ConnectionClosed, "the connection closed before the held turn came back");
    return { agent, stream: turn.value };
  } catch (error) {
    await agent.stop().catch(() => undefined);
    throw SdkError.from(error);
  } finally {
    link.dispose();
  }
}
