import { ErrorCode, SdkError } from "../errors.js";
import { stopReasonFromWire } from "../mapping/index.js";
import { StepStatus, type Step, type StopReason } from "../step.js";
import type { TrajectoryStateUpdate } from "../wire/index.js";
import { TrajectoryStateUpdate_State } from "../wire/wire-enums.gen.js";
import { RetiredStepIds } from "./retired-step-ids.js";
import { Turn, type TurnObserver } from "./turn.js";
import { observerTaken } from "./turn-view.js";
import { definedProperties } from "../defined-properties.js";

/** What a trajectory state update means for the connection's busy flag. */
export type StateEffect = "running" | "idle" | undefined;

/**
 * Where a harness session's turns begin and end (protocol §6.3), for `HarnessConnection`: the
 * latest turn with its main trajectory, the one before it (for late updates), and the observer
 * every new turn is reported to. Pure bookkeeping: it sends nothing.
 */
export class TurnTracker {
  /** Ids of steps an earlier harness session recorded (see {@link RetiredStepIds}); every turn renames them. */
  readonly retiredIds = new RetiredStepIds();
  #observer: TurnObserver | undefined;
  /** The latest turn, running or over. */
  #turn: Turn | undefined;
  /** The turn before `#turn`, kept to route a late update of one of its steps. */
  #previous: Turn | undefined;
  /** Ids of `#turn`'s and `#previous`'s steps whose last update from the harness left them unfinished. */
  #open = new Set<string>();
  #previousOpen = new Set<string>();
  /** Main trajectory of `#turn`: the first step's, or the first state update's (§6.3). */
  #main: string | undefined;
  /** True once the harness showed it works on `#turn` (a step, RUNNING, a tool or hook request). */
  #active = false;
  #lastStopReason: StopReason | undefined;

  /** The latest turn, running or over; `undefined` before the first. */
  get latest(): Turn | undefined {
    return this.#turn;
  }

  /** The running turn, if any. */
  get running(): Turn | undefined {
    return this.#turn?.settled === false ? this.#turn : undefined;
  }

  /** The latest turn's main trajectory id, "" while unknown. */
  get main(): string {
    return this.#main ?? "";
  }

  /** Stop reason of the last turn that ended (§16). */
  get lastStopReason(): StopReason | undefined {
    return this.#lastStopReason;
  }

  /**
   * Sets the observer (once: `FailedPrecondition` after). A turn the harness started before (e.g.
   * the re-sent confirmation of a resumed session, right after the init response) is reported at once.
   */
  observe(observer: TurnObserver): void {
    if (this.#observer !== undefined) throw observerTaken();
    this.#observer = observer;
    const running = this.running;
    if (running !== undefined) observer.turnStarted(running);
  }

  /** A turn for a prompt about to be sent (§6.1); stray activity that never became a turn is superseded. */
  startSolicited(): Turn {
    this.#turn?.end();
    this.#lastStopReason = undefined;
    return this.#start(true);
  }

  /** The running turn, or a new one the harness started on its own: harness activity always belongs to a turn. */
  forActivity(): Turn {
    const turn = this.running ?? this.#start(false);
    this.#active = true;
    return turn;
  }

  /** The harness works on the running turn (e.g. a PRE_TURN hook request), if there is one. */
  markActive(): void {
    if (this.running !== undefined) this.#active = true;
  }

  /**
   * Puts a step update in its turn: an update of a step its turn left unfinished goes to that
   * turn as a late update, never into a newer turn (a harness may report idle just before a
   * step's DONE); anything else goes into the running turn, or a new one. Returns the turn.
   */
  pushStep(step: Step): { turn: Turn; late: boolean } {
    const open = step.status === StepStatus.Active || step.status === StepStatus.WaitingForUser;
    const ended =
      this.#turn?.settled === true && this.#open.has(step.id)
        ? this.#turn
        : this.#previous?.settled === true && this.#previousOpen.has(step.id)
          ? this.#previous
          : undefined;
    if (ended !== undefined) {
      if (!open) (ended === this.#turn ? this.#open : this.#previousOpen).delete(step.id);
      ended.push(step);
      return { turn: ended, late: true };
    }
    const turn = this.forActivity();
    this.#main ??= step.trajectoryId; // §6.3: the first step's trajectory is the main one
    if (open) this.#open.add(step.id);
    else if (this.#open.size > 0) this.#open.delete(step.id);
    turn.push(step);
    return { turn, late: false };
  }

  /** Applies a `trajectoryStateUpdate` (§6.3, §13): may start or end the turn; says what it means for the busy flag. */
  onState(update: TrajectoryStateUpdate): StateEffect {
    const trajectoryId = update.trajectoryId ?? "";
    const state = update.state ?? TrajectoryStateUpdate_State.UNSPECIFIED;
    const terminal =
      state === TrajectoryStateUpdate_State.FULLY_IDLE || state === TrajectoryStateUpdate_State.CANCELLED;
    const turn = this.running;
    if (this.#main !== undefined && trajectoryId !== this.#main && (turn !== undefined || terminal)) return undefined; // a subagent's state: ignored
    if (state === TrajectoryStateUpdate_State.RUNNING) {
      this.forActivity();
      this.#main ??= trajectoryId;
      return "running";
    }
    if (!terminal) return undefined; // WAITING_FOR_TASKS: parked on subagents, not the end
    if (turn === undefined) return "idle"; // repeated idle updates of a finished turn are harmless (0.1.8 changelog)
    // An idle update before the turn showed any activity is a leftover repeat of the previous
    // turn's, unless it carries an error or a cancellation (e.g. a PRE_TURN deny).
    if (!this.#active && !turn.halted && state === TrajectoryStateUpdate_State.FULLY_IDLE && !update.error)
      return undefined;
    this.#main ??= trajectoryId;
    const stopReason = stopReasonFromWire(update.stopReason);
    this.#lastStopReason = stopReason;
    const error = update.error ?? "";
    // §13: after a halt the harness ends the turn with FULLY_IDLE (or CANCELLED from older builds): either is the halt's end.
    let failure: SdkError | undefined;
    if (turn.halted) failure = new SdkError(ErrorCode.Canceled, "the turn was halted");
    else if (state === TrajectoryStateUpdate_State.CANCELLED)
      failure = new SdkError(ErrorCode.ExecutionError, error || "Turn cancelled", { details: { trajectoryId } });
    else if (error !== "") failure = new SdkError(ErrorCode.ExecutionError, error, { details: { trajectoryId } });
    turn.end(definedProperties({ error: failure, stopReason }));
    return "idle";
  }

  /** A new turn, reported to the observer before anything is pushed into it. */
  #start(solicited: boolean): Turn {
    const turn = new Turn({ solicited, retiredIds: this.retiredIds });
    this.#previous = this.#turn;
    this.#turn = turn;
    this.#previousOpen = this.#open;
    this.#open = new Set();
    this.#main = undefined;
    this.#active = false;
    this.#observer?.turnStarted(turn);
    return turn;
  }
}
