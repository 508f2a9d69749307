import type { ChatEvent } from "../conversation/chat-events.js";
import type { SdkError } from "../errors.js";
import type { StopReason, UsageMetadata } from "../step.js";

/**
 * What a {@link StreamingSession} does with a user message sent while a turn runs (peer-systems
 * §1b, zag's `streaming_input.semantics`). See docs/streaming-session.md for the exact rules.
 *
 * - `queue`: the message waits for the turn boundary; the running turn completes, then the
 *   message starts the next turn.
 * - `interrupt`: the running turn is halted (its partial output stays in history, seed 002) and
 *   the message starts the next turn.
 * - `between-turns-only`: the send is refused with `FailedPrecondition`; wait for `turnComplete`.
 */
export type MidTurnSemantics = "queue" | "interrupt" | "between-turns-only";

/** Every {@link MidTurnSemantics}, for validating input (CLI flags, NDJSON). */
export const MID_TURN_SEMANTICS: readonly MidTurnSemantics[] = ["queue", "interrupt", "between-turns-only"];

/** What a session declares it supports; read it before offering mid-turn input. */
export interface StreamingSessionCapabilities {
  readonly streamingInput: {
    readonly supported: true;
    readonly semantics: MidTurnSemantics;
  };
}

/** The first event of a session. */
export interface SessionInitEvent {
  type: "init";
  conversationId: string;
  capabilities: StreamingSessionCapabilities;
}

/**
 * Follows every `turnComplete` at once: how the turn went. `success` is false for a turn that
 * was interrupted (`interrupted: true`, `error.code` `Canceled`) or failed (`error` says why).
 */
export interface TurnResultEvent {
  type: "result";
  turnIndex: number;
  success: boolean;
  interrupted: boolean;
  usage: UsageMetadata;
  stopReason?: StopReason;
  error?: SdkError;
}

/** Something went wrong outside a turn: a message that could not be sent (`messageIndex` says which). */
export interface SessionErrorEvent {
  type: "error";
  error: SdkError;
  messageIndex?: number;
}

/**
 * What a {@link StreamingSession} yields: `init`, then for every turn (sent by the session, by
 * `chat()`, or by a trigger) the {@link ChatEvent}s of `ChatStream.events()` ending with
 * `turnComplete`, then `result`; `error` for a message that never went out. Ignore types you do
 * not know: more may be added.
 */
export type SessionEvent = SessionInitEvent | ChatEvent | TurnResultEvent | SessionErrorEvent;

/** Proof that the harness took a message: the turn it started. */
export interface MessageReceipt {
  /** The message's position among this session's accepted messages, from 0. */
  messageIndex: number;
  /** The index of the turn the message started (`turnComplete.turnIndex` of that turn). */
  turnIndex: number;
}

/**
 * `event` as a plain JSON value (the NDJSON output of the CLI, docs/ndjson.md): an `SdkError`
 * becomes `{ code, message }`, a `bigint` a decimal string; everything else is JSON already.
 */
export function sessionEventToJson(event: SessionEvent): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(event, (_key, value: unknown) => {
      if (typeof value === "bigint") return value.toString();
      if (value instanceof Error) {
        const code = (value as { code?: unknown }).code;
        return { code: typeof code === "string" ? code : "Internal", message: value.message };
      }
      return value;
    }),
  ) as Record<string, unknown>;
}
