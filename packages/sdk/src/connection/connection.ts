import type { CallOptions, Prompt, Step, StopReason, ToolResult, UsageMetadata } from "../types.js";

/** An answer to one question of an `ask_question` step (protocol §9). */
export type QuestionAnswer =
  | { unanswered: true }
  | { selectedChoiceIndices: number[]; freeformResponse?: string };

/** The answer to a whole `questionsRequest`: one answer per question, or cancelled. */
export type QuestionResponse = { cancelled: true } | { answers: QuestionAnswer[] };

/** Usage as the harness reports it (protocol §14): the session total and per trajectory. */
export interface UsageSnapshot {
  total: UsageMetadata;
  byTrajectory: ReadonlyMap<string, UsageMetadata>;
}

/**
 * A live session with a harness, one turn at a time (seed 001). `send` starts a turn;
 * `receiveSteps` yields the turn's step updates and ends when the harness reports the
 * main trajectory idle. Implemented by `HarnessConnection` over any transport, and by
 * `createMockConnection` for tests.
 */
export interface Connection {
  /** The conversation (cascade) id the harness uses. */
  readonly conversationId: string;
  /** True when no turn is running. */
  readonly isIdle: boolean;
  /** Steps replayed by the harness when the session was resumed (protocol §5). */
  readonly initialHistory: readonly Step[];
  /** Usage reported so far, seeded from the init response on resume. */
  readonly usage: UsageSnapshot;
  /** Stop reason of the last turn, if the harness stopped it for budget or quota. */
  readonly lastStopReason: StopReason | undefined;
  /** Starts a turn with a user prompt. Rejects an empty prompt with `InvalidArgument`. */
  send(prompt: Prompt, options?: CallOptions): Promise<void>;
  /**
   * Step updates of the current turn, in arrival order, ending when the turn is over.
   * Throws `SdkError` (`ExecutionError`, `Canceled`, `ConnectionClosed`, `PermissionDenied` ...)
   * when the turn fails. Breaking out of the loop releases the stream but not the turn.
   */
  receiveSteps(options?: CallOptions): AsyncIterable<Step>;
  /** Answers a client-side tool call (normally done by the connection's ToolRunner). */
  sendToolResponse(result: ToolResult, options?: CallOptions): Promise<void>;
  /** Accepts or refuses a built-in tool waiting for confirmation (protocol §8). */
  sendToolConfirmation(trajectoryId: string, stepIndex: number, accepted: boolean, options?: CallOptions): Promise<void>;
  /** Answers an `ask_question` step (protocol §9). */
  sendQuestionResponse(trajectoryId: string, stepIndex: number, response: QuestionResponse, options?: CallOptions): Promise<void>;
  /** Asks the harness to stop the current turn (protocol §13). */
  halt(options?: CallOptions): Promise<void>;
  /** Injects a background message into the conversation (protocol §13, `automatedTrigger`). */
  sendTrigger(message: string, options?: CallOptions): Promise<void>;
  /** Ends the session and releases the transport. Idempotent. */
  disconnect(options?: CallOptions): Promise<void>;
}
