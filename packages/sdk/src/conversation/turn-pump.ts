import { isSyntheticToolStep } from "../connection/synthetic-steps.js";
import type { Turn, TurnOutcome, TurnRecorder } from "../connection/turn.js";
import { Interrupt } from "../connection/turn-view.js";
import type { SdkError } from "../errors.js";
import { StepStatus } from "../step.js";
import type { Step, ToolCall, UsageMetadata } from "../step.js";
import { closedAsCancelled, type ConversationState } from "./conversation-state.js";
import { computeTurnUsage, copyUsage, subtractUsage, type TurnUsage } from "../usage.js";

/** What a {@link TurnPump} needs from its conversation. */
export interface PumpHost {
  readonly state: ConversationState;
  /** The connection's session total now (§14). */
  usageTotal(): UsageMetadata;
  /** Asks the harness to stop `pump`'s turn (§13), if it still runs. */
  halt(pump: TurnPump): void;
  /** The turn ended, or an ended turn got a late update: the conversation changed (persistence saves it). */
  changed?(): void;
  /** Told how the turn ended, as it ends. */
  readonly ended?: ((outcome: TurnOutcome) => void) | undefined;
}

/**
 * Records one turn into the conversation, whoever started it and whether or not anyone reads it:
 * the connection pushes each step into the turn, and the turn hands it here first. At the end it
 * closes what can no longer finish — every client tool call without a result, and on a failed
 * turn every step still running, gets an ERROR update `(cancelled)` (seed 002) — and accounts the
 * turn's usage. Readers are views of the turn; {@link cancel} is the turn's one cancellation.
 */
export class TurnPump implements TurnRecorder {
  readonly turn: Turn;
  /** The turn's position in the conversation, from 0 (turns since the last clear). */
  readonly index: number;
  /** Fired by {@link cancel}: ends every view of the turn at once. */
  readonly interrupt: Interrupt;
  readonly #host: PumpHost;
  /** Absolute history position where the turn starts. */
  readonly #start: number;
  readonly #totalAtStart: UsageMetadata;
  /** Legacy per-step usage (§14, pre-0.1.10): the latest of each step id. */
  readonly #stepUsages = new Map<string, UsageMetadata>();
  /** The turn's steps still ACTIVE or WAITING_FOR_USER, by id. */
  readonly #open = new Map<string, Step>();
  /** The turn's call ids, as the history records them ({@link ConversationState.ownCallId}). */
  readonly #callIds = new Map<string, string>();
  #remove = false;
  #removed = false;

  constructor(turn: Turn, host: PumpHost) {
    this.turn = turn;
    this.#host = host;
    this.index = host.state.turnCount();
    this.#start = host.state.startTurn();
    this.#totalAtStart = copyUsage(host.usageTotal());
    this.interrupt = new Interrupt(turn);
    turn.record(this);
  }

  /** True once the turn asked for removal from history ({@link cancel} with `remove`) is gone. */
  get removed(): boolean {
    return this.#removed;
  }

  step(step: Step): void {
    this.#host.state.record(this.#recorded(step));
    if (step.usageMetadata !== undefined) this.#stepUsages.set(step.id, step.usageMetadata);
    if (step.status === StepStatus.Active || step.status === StepStatus.WaitingForUser) this.#open.set(step.id, step);
    else if (this.#open.size > 0) this.#open.delete(step.id);
  }

  ending(outcome: TurnOutcome): void {
    for (const step of [...this.#open.values()]) {
      // A client tool call can only get its result in its turn; on a failed turn nothing else finishes either.
      if (outcome.error !== undefined || isSyntheticToolStep(step)) this.turn.push(closedAsCancelled(step));
    }
    this.#host.state.endTurn(this.usage());
    if (this.#remove) {
      this.#host.state.removeTurn(this.#start);
      this.#removed = true;
    }
    this.#host.changed?.();
    this.#host.ended?.(outcome);
  }

  late(step: Step): void {
    if (this.#removed) return;
    this.#host.state.record(this.#recorded(step));
    if (step.usageMetadata !== undefined) this.#stepUsages.set(step.id, step.usageMetadata);
    this.#host.changed?.();
  }

  /**
   * `step` as the history records it: a call whose id an earlier turn used gets this turn's own
   * id, on every step that carries it (the SDK's synthetic step, whose id is the call's, included).
   */
  #recorded(step: Step): Step {
    let recorded: Step | undefined;
    for (let i = 0; i < step.toolCalls.length; i++) {
      const call = step.toolCalls[i] as ToolCall;
      if (call.id === "") continue;
      let id = this.#callIds.get(call.id);
      if (id === undefined) {
        id = this.#host.state.ownCallId(call.id, this.#start);
        this.#callIds.set(call.id, id);
      }
      if (id === call.id) continue;
      recorded ??= { ...step, toolCalls: [...step.toolCalls] };
      recorded.toolCalls[i] = { ...call, id };
      if (step.id === call.id) recorded.id = id;
    }
    return recorded ?? step;
  }

  /** The turn's usage so far: the session total's growth since it started (§14), else its steps' usage. */
  usage(): TurnUsage {
    return computeTurnUsage({
      totalAtStart: this.#totalAtStart,
      totalAtEnd: this.#host.usageTotal(),
      stepUsages: this.#stepUsages.values(),
    });
  }

  /** The growth of the session total from the turn's start to `total`. */
  usageUpTo(total: UsageMetadata): UsageMetadata {
    return subtractUsage(total, this.#totalAtStart);
  }

  /**
   * Cancels the turn: every view ends now with `reason`, the harness is asked to halt it, and the
   * turn keeps recording until the harness reports it over. With `remove`, the turn then leaves
   * the history (seed 002's exit path for errors). A turn already over is left alone: a cancel
   * racing the natural end is harmless.
   */
  cancel(reason: SdkError, remove = false): void {
    if (this.turn.settled) return;
    if (remove) this.#remove = true;
    this.interrupt.fire(reason);
    this.#host.halt(this);
  }
}
