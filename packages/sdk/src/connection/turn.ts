import { ErrorCode, SdkError } from "../errors.js";
import type { Step, StopReason, ToolCall, ToolResult, UsageMetadata } from "../step.js";
import { TurnEntries, UsageMark, type TurnEntry } from "./turn-entries.js";
import type { RetiredStepIds } from "./retired-step-ids.js";

export { UsageMark, type TurnEntry } from "./turn-entries.js";

/** How a turn ended. */
export interface TurnOutcome {
  /** Why it failed: `Canceled` after a halt, `ExecutionError`, `ConnectionClosed`, ...; unset when it ended normally. */
  readonly error?: SdkError;
  /** Why the harness stopped it early (budget or quota, §16). */
  readonly stopReason?: StopReason;
  /** The turn paused: a confirmation was deferred (docs/continuations.md); the harness holds the call. */
  readonly awaitingConfirmation?: PausedConfirmation;
}

/**
 * A confirmation left unanswered on purpose (§8, a `"defer"` decision): the turn ended here and
 * the harness holds the call. What the agent makes its continuation from.
 */
export interface PausedConfirmation {
  readonly conversationId: string;
  readonly toolCall: ToolCall;
  readonly trajectoryId: string;
  readonly stepIndex: number;
  /**
   * The paused calls as the wire keeps them, for a wire whose server holds the paused turn rather
   * than a step of a harness session (the Interactions API: the interaction waiting in
   * `requires_action` and its function calls): every call it waits for, in order, the one awaiting
   * the decision, and the results of those already decided. Without it the continuation reads them
   * from the turn's steps.
   */
  readonly calls?: {
    /** A continuation's `PendingToolCall`s: each call and where it waits. */
    readonly pendingToolCalls: readonly (Pick<ToolCall, "id" | "name" | "args"> & {
      readonly trajectoryId: string;
      readonly stepIndex: number;
    })[];
    readonly awaitingIndex: number;
    readonly completedResults: readonly ToolResult[];
  };
}

/**
 * Records a turn where it is produced. A {@link Turn} calls its recorder synchronously, before
 * any reader of the turn sees the step or the end, so what the recorder keeps (the
 * conversation's history) is complete whether or not anyone reads.
 */
export interface TurnRecorder {
  /** A step update of the turn, in arrival order. */
  step(step: Step): void;
  /** The turn is ending. Steps pushed from here (e.g. results for calls that never got one) are still part of it. */
  ending(outcome: TurnOutcome): void;
  /** An update, after the end, of a step the turn already had (§6.3: idle may overtake a step's last update). */
  late(step: Step): void;
}

/** Options of {@link Turn}. */
export interface TurnOptions {
  /** True when `send()` started the turn; false when the harness did on its own (a trigger, §13). */
  solicited: boolean;
  /** Ids an earlier harness session used: a step pushed under one of them is renamed (see {@link RetiredStepIds}). */
  retiredIds?: RetiredStepIds | undefined;
}

/**
 * One turn of a session (§6): the single buffer its step updates go into, from the frame that
 * carried them to every reader. A connection creates it, reports it to its
 * {@link TurnObserver}, pushes steps and usage into it, and ends it once. Readers are
 * independent cursors over the buffer (`TurnView`s: `receiveSteps()`, the conversation's
 * views), each from the start; none of them can stop the turn or lose a step for another.
 *
 * @example
 * const turn = new Turn({ solicited: true });
 * turn.push(step); turn.end();
 * for await (const s of new TurnView({ turn }, STEP_MAPPER)) console.log(s.id);
 */
export class Turn {
  readonly solicited: boolean;
  readonly #retiredIds: RetiredStepIds | undefined;
  readonly #entries = new TurnEntries();
  /**
   * Made when {@link signal} is first read: a turn whose signal nobody asked for (no client tool
   * read it) makes no AbortController and no abort reason, an error whose stack capture was the
   * largest single cost of a short turn's bookkeeping.
   */
  #controller: AbortController | undefined;
  #recorder: TurnRecorder | undefined;
  #outcome: TurnOutcome | undefined;
  #ending = false;
  #halted = false;
  #changed: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #over: Promise<TurnOutcome>;
  #resolveOver!: (outcome: TurnOutcome) => void;

  constructor(options: TurnOptions) {
    this.solicited = options.solicited;
    this.#retiredIds = options.retiredIds;
    this.#over = new Promise((resolve) => (this.#resolveOver = resolve));
  }

  /** Aborted when the turn is halted or over: the signal client tools of this turn get. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      this.#abort(); // a turn already halted or over gives an aborted signal
    }
    return this.#controller.signal;
  }

  /** True once a halt was requested for this turn. */
  get halted(): boolean {
    return this.#halted;
  }

  /** True once the turn is over. */
  get settled(): boolean {
    return this.#outcome !== undefined;
  }

  /** How the turn ended; `undefined` while it runs. */
  get outcome(): TurnOutcome | undefined {
    return this.#outcome;
  }

  /** Number of entries (step updates and usage marks) in the buffer. */
  get size(): number {
    return this.#entries.length;
  }

  /** The entry at `index` as it arrived. */
  entry(index: number): TurnEntry | undefined {
    return this.#entries.at(index);
  }

  /** True when a step with this id is part of the turn. */
  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** The newest update of each of the turn's steps, in the order the steps first arrived. */
  latestSteps(): Step[] {
    return this.#entries.latestSteps();
  }

  /** Resolves with the outcome when the turn is over; never rejects. */
  over(): Promise<TurnOutcome> {
    return this.#over;
  }

  /** Resolves at the next push or at the end, whichever comes first. */
  changed(): Promise<void> {
    if (this.#outcome !== undefined) return Promise.resolve();
    if (this.#changed === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#changed = { promise, resolve };
    }
    return this.#changed.promise;
  }

  /**
   * Attaches the recorder (a {@link TurnObserver} does it when the turn starts). A turn that
   * started before anyone observed the connection hands the steps it already has to the recorder
   * first, in order. One per turn, while it runs: `FailedPrecondition` otherwise.
   */
  record(recorder: TurnRecorder): void {
    if (this.#recorder !== undefined || this.#outcome !== undefined) {
      throw new SdkError(ErrorCode.FailedPrecondition, "a turn takes one recorder, attached while it runs");
    }
    this.#recorder = recorder;
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#entries.at(i);
      if (entry !== undefined && !(entry instanceof UsageMark)) recorder.step(entry);
    }
  }

  /**
   * Adds a step update. After the end, an update of one of the turn's own steps goes to the
   * recorder's `late` (the buffer is closed) and `true` is returned; any other step is refused
   * with `false` (it belongs to no turn the caller knows of).
   */
  push(pushed: Step): boolean {
    const step = this.#retiredIds === undefined ? pushed : this.#retiredIds.live(pushed);
    if (this.#outcome !== undefined) {
      if (!this.#entries.has(step.id)) return false;
      this.#recorder?.late(step);
      return true;
    }
    this.#recorder?.step(step);
    this.#entries.pushStep(step);
    this.#wake();
    return true;
  }

  /** Adds a usage report (§14) while the turn runs; ignored after the end. */
  pushUsage(total: UsageMetadata): void {
    if (this.#outcome !== undefined || this.#ending) return;
    this.#entries.pushUsage(new UsageMark(total));
    this.#wake();
  }

  /** Marks the turn halted (§13) and aborts its tools' signal; the connection ends it when the harness confirms. */
  halt(): void {
    if (this.#outcome !== undefined) return;
    this.#halted = true;
    this.#abort();
  }

  /** Ends the turn once; later calls are ignored. Readers see the end after the recorder's `ending`. */
  end(outcome: TurnOutcome = {}): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#recorder?.ending(outcome);
    this.#outcome = outcome;
    this.#abort();
    this.#wake();
    this.#resolveOver(outcome);
  }

  /** Aborts the signal, if one was made, once the turn is halted (first) or over; the first reason stays. */
  #abort(): void {
    const controller = this.#controller;
    if (controller === undefined || controller.signal.aborted) return;
    if (this.#halted) controller.abort(new SdkError(ErrorCode.Canceled, "the turn was halted"));
    else if (this.#outcome !== undefined)
      controller.abort(this.#outcome.error ?? new SdkError(ErrorCode.Canceled, "the turn is over"));
  }

  /** Wakes the readers waiting in {@link changed} (e.g. to see an interrupt). */
  wake(): void {
    this.#wake();
  }

  #wake(): void {
    const changed = this.#changed;
    if (changed === undefined) return;
    this.#changed = undefined;
    changed.resolve();
  }
}

/**
 * Told by a connection about every turn as it starts — by `send()` or by the harness on its own
 * (a trigger, §13) — synchronously, before its first step. The conversation is the observer:
 * it attaches its recorder to each turn here.
 */
export interface TurnObserver {
  turnStarted(turn: Turn): void;
}
