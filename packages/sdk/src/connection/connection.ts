import type { SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import type { Prompt } from "../prompt.js";
import type { QuestionResponse, Step, StopReason, ToolResult, UsageMetadata } from "../step.js";
import type { Turn, TurnObserver } from "./turn.js";

/** Usage as the harness reports it (protocol §14): the session total and per trajectory. */
export interface UsageSnapshot {
  total: UsageMetadata;
  byTrajectory: ReadonlyMap<string, UsageMetadata>;
}

/**
 * Whether the harness can enforce run_command's OS sandbox (`RunCommandToolConfig.enable_sandbox`):
 * `InitializeConversationResponse.sandbox_status` (upstream localharness.proto @257f843a, ≈0.1.18).
 */
export interface SandboxStatus {
  available: boolean;
  /** Why not, when `available` is false. */
  unavailableReason: string;
}

/**
 * A live session with a harness, one turn at a time (seed 001). `send` starts a turn; the harness
 * may also start one on its own (a trigger, §13). Each turn is a {@link Turn}: the one buffer its
 * steps go into, reported to the {@link TurnObserver} as it starts. `receiveSteps` reads it.
 * Implemented by `HarnessConnection` over any transport, and by `createMockConnection` for tests.
 */
export interface Connection {
  /** The conversation (cascade) id the harness uses. */
  readonly conversationId: string;
  /** True when no turn is running. */
  readonly isIdle: boolean;
  /** Steps replayed by the harness when the session was resumed (protocol §5). */
  readonly initialHistory: readonly Step[];
  /** What the harness said of run_command's sandbox when the session started; undefined when it said nothing (an older harness). */
  readonly sandboxStatus?: SandboxStatus | undefined;
  /** The era of its wire this connection writes (localharness: `"0.1.19"` or `"0.1.14"`, docs/upstream-differences.md); undefined for a wire without eras. */
  readonly wireEra?: string | undefined;
  /** Usage reported so far, seeded from the init response on resume. */
  readonly usage: UsageSnapshot;
  /** Stop reason of the last turn, if the harness stopped it for budget or quota. */
  readonly lastStopReason: StopReason | undefined;
  /**
   * Reports every turn to `observer` as it starts, whoever started it, before its first step
   * (a `Conversation` records them all this way). One observer per connection: a second call
   * throws `FailedPrecondition`.
   */
  observeTurns(observer: TurnObserver): void;
  /**
   * Optional: `listener` gets the history the harness replays each time the connection resumed
   * the session after a drop (transport `reconnect`); merge it by step id.
   */
  onResumed?(listener: (history: readonly Step[]) => void): void;
  /**
   * Optional: `listener` gets the reason once the connection is closed for good — the harness or
   * the gateway went away (`ConnectionClosed`, `HarnessCrashed` ...), reconnecting gave up, or
   * `disconnect()` — whether or not a turn was running. Registered after the close, it is called
   * at once. A UI shows "disconnected" from it while idle (a `Transcript` does).
   */
  onClosed?(listener: (reason: SdkError) => void): void;
  /**
   * Optional: `ids` are steps an earlier harness session recorded that this harness does not
   * know (a conversation restored onto a harness without its storage: it numbers steps from 0
   * again). A step it sends later under one of them is a new step and gets the id `<id>~<n>`,
   * so that it never overwrites the restored one (seed 002). `Conversation.restore` calls it.
   */
  retireStepIds?(ids: Iterable<string>): void;
  /**
   * Starts a turn with a user prompt, after the running turn (if any) is over, and resolves with
   * that {@link Turn} once the prompt went out (reported to the observer before). Prompts go out
   * in call order: this queue is the one gate a prompt passes. Rejects a blank prompt with
   * `InvalidArgument`; sends nothing when `signal` is already aborted, or aborts while waiting.
   */
  send(prompt: Prompt, options?: CallOptions): Promise<Turn>;
  /**
   * Step updates of the current turn (the running one, else the last one), from its first step,
   * ending when the turn is over; nothing before the first turn. Throws the turn's `SdkError`
   * (`ExecutionError`, `Canceled`, `ConnectionClosed`, `PermissionDenied` ...) after its last
   * step. Any number can read at once. Aborting `signal` (or its `timeoutMs`) stops **this
   * reader** with that error; breaking out releases it too. Neither stops the turn: `halt()` does.
   */
  receiveSteps(options?: CallOptions): AsyncIterable<Step>;
  /** Answers a client-side tool call (normally done by the connection's ToolRunner). */
  sendToolResponse(result: ToolResult, options?: CallOptions): Promise<void>;
  /** Accepts or refuses a built-in tool waiting for confirmation (protocol §8). */
  sendToolConfirmation(
    trajectoryId: string,
    stepIndex: number,
    accepted: boolean,
    options?: CallOptions,
  ): Promise<void>;
  /** Answers an `ask_question` step (protocol §9). */
  sendQuestionResponse(
    trajectoryId: string,
    stepIndex: number,
    response: QuestionResponse,
    options?: CallOptions,
  ): Promise<void>;
  /** Resolves when no turn runs (bounded by `signal`/`timeoutMs`); rejects with `ConnectionClosed` once closed. */
  waitForIdle(options?: CallOptions): Promise<void>;
  /** Asks the harness to stop the current turn (protocol §13). */
  halt(options?: CallOptions): Promise<void>;
  /** Injects a background message into the conversation (protocol §13, `automatedTrigger`). */
  sendTrigger(message: string, options?: CallOptions): Promise<void>;
  /** Ends the session and releases the transport. Idempotent. */
  disconnect(options?: CallOptions): Promise<void>;
}
