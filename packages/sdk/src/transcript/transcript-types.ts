import type { SdkError } from "../errors.js";
import type { StopReason, UsageMetadata } from "../step.js";

/**
 * Where a tool call stands. `awaiting-approval`: the harness waits for the user's yes or no
 * (§8), or the turn paused on a deferred confirmation. `cancelled`: the turn was stopped or the
 * connection lost before the call finished.
 */
export type ToolCardState = "running" | "awaiting-approval" | "done" | "error" | "cancelled";

/** One tool call of a turn: a built-in tool the harness runs or a client tool this process runs. */
export interface ToolCard {
  readonly type: "tool";
  /** The call id ("" when the harness gave none). */
  readonly id: string;
  readonly name: string;
  /** The arguments the model called it with. */
  readonly args: unknown;
  readonly state: ToolCardState;
  /** When `done`: a client tool's return value, or a built-in tool's action record at completion. */
  readonly result?: unknown;
  /** When `error`: why (the tool threw, a policy or the user refused it, ...). */
  readonly error?: string;
  /**
   * True for a client tool, run by the SDK in this process (the SDK's synthetic step reported
   * its outcome); false for a built-in tool, and until the outcome of any call is known.
   */
  readonly client: boolean;
}

/**
 * Streamed answer text: one block per model call (its `stepIndex`), so the text of separate
 * model calls of a turn never runs together, and a new block after any other block.
 */
export interface TextBlock {
  readonly type: "text";
  readonly text: string;
  /** The model call's step (the `stepIndex` of its `text` events). */
  readonly stepIndex: number;
}

/** Streamed thinking: one block per model call (its `stepIndex`), and a new block after any other block. */
export interface ThinkingBlock {
  readonly type: "thinking";
  readonly text: string;
  /** The model call's step (the `stepIndex` of its `thought` events). */
  readonly stepIndex: number;
}

/** What an assistant message is made of, in the order it happened. */
export type TranscriptBlock = TextBlock | ThinkingBlock | ToolCard;

/**
 * How a turn ended, or `running`. `stopped`: the user's own Stop (the turn's `Canceled`), not
 * an error. `disconnected`: the harness or the gateway went away. `error`: anything else.
 */
export type TurnStatus = "running" | "done" | "stopped" | "error" | "disconnected";

/** The prompt of a turn, as the user typed it. */
export interface UserMessage {
  readonly role: "user";
  /** Stable for the life of the transcript, for UI keys. */
  readonly id: string;
  readonly text: string;
}

/** The agent's side of one turn. */
export interface AssistantMessage {
  readonly role: "assistant";
  readonly id: string;
  readonly blocks: readonly TranscriptBlock[];
  readonly status: TurnStatus;
  /** The turn's position in the conversation, from 0, once the turn completed. */
  readonly turnIndex?: number;
  /** Set when `status` is `error`, `disconnected` or `stopped`. */
  readonly error?: SdkError;
  /** Set when the harness stopped the turn for budget or quota (§16). */
  readonly stopReason?: StopReason;
  /** The turn's token usage so far. */
  readonly usage: UsageMetadata;
}

export type TranscriptMessage = UserMessage | AssistantMessage;

/**
 * Everything a UI draws, as one immutable value: every change makes a new state, and within it
 * new objects only for what changed (a message, a block), so UIs can compare by identity.
 */
export interface TranscriptState {
  readonly messages: readonly TranscriptMessage[];
  /** True while a turn runs. */
  readonly running: boolean;
  /** `disconnected` once the connection closed for good, whether or not a turn was running. */
  readonly connection: "connected" | "disconnected";
  /** Why the connection closed, when it did. */
  readonly disconnectReason?: SdkError;
  /** Usage of every turn in the transcript, plus what {@link TranscriptOptions.usage} started from. */
  readonly usage: UsageMetadata;
}
