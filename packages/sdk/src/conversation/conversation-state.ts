import { emptyUsage, StepSource, StepStatus, StepType } from "../step.js";
import type { Step, UsageMetadata } from "../step.js";
import type { ConversationSnapshot } from "./conversation-snapshot.js";
import { SlidingArray } from "./sliding-array.js";
import { ToolGroups } from "./tool-groups.js";
import { addUsage, copyUsage, subtractUsage } from "../usage.js";
import type { TurnUsage } from "../usage.js";

/** The error of a step that can no longer finish because its turn is over (seed 002). */
export const CANCELLED_STEP_ERROR = "(cancelled)";

/** `step` closed because it can no longer finish (seed 002): ERROR, its error kept or `(cancelled)`, no delta. */
export function closedAsCancelled(step: Step): Step {
  return {
    ...step,
    status: StepStatus.Error,
    error: step.error || CANCELLED_STEP_ERROR,
    contentDelta: "",
    thinkingDelta: "",
  };
}

/** The part of a {@link ConversationSnapshot} the state owns (all of it but the header and id). */
export type ConversationStateData = Omit<ConversationSnapshot, "format" | "version" | "conversationId">;

/**
 * The mutable state of a `Conversation` (seed 000 `ConversationState`): step history, turn and
 * compaction indices, usage. Synchronous and lock-free by itself; `Conversation` guards it with
 * an `async-mutex` lock.
 *
 * History keeps one entry per step id: a step is re-sent while it evolves (§6.2: ACTIVE updates,
 * then DONE), and each update replaces the previous one in place. Positions are tracked as
 * absolute numbers (steps recorded since the last clear) so trimming the front never rewrites
 * stored indices; the public indices are `absolute - firstAbsolute`.
 */
export class ConversationState {
  readonly #maxSize: number;
  readonly #steps = new SlidingArray<Step>();
  /** Absolute position of the oldest retained step. */
  #firstAbs = 0;
  readonly #positionById = new Map<string, number>();
  readonly #turnStarts = new SlidingArray<number>();
  readonly #compactions = new SlidingArray<number>();
  #turnCount = 0;
  #baseline: UsageMetadata = emptyUsage();
  #fallback: UsageMetadata = emptyUsage();
  #lastTurn: UsageMetadata | undefined;
  /** The part of `#fallback` the last turn added (replaced when that turn's usage is revised). */
  #lastFallback: UsageMetadata = emptyUsage();
  /** Tool-call groups, so that no window separates a call from its result (seed 002). */
  readonly #groups = new ToolGroups();
  /** Drops a trimmed step's id (one function for the state's life, not one per trim). */
  readonly #forget = (step: Step): void => {
    this.#positionById.delete(step.id);
    this.#groups.dropped(step, this.#firstAbs);
  };

  /** `maxSize` 0 keeps every step; otherwise the oldest steps are dropped beyond it. */
  constructor(maxSize: number) {
    this.#maxSize = maxSize;
  }

  /** Number of retained steps. */
  get length(): number {
    return this.#steps.length;
  }

  /** Adds a step, or replaces the entry with the same id in place. */
  record(step: Step): void {
    const abs = this.#positionById.get(step.id);
    // A tool step whose call or result was trimmed away would stand alone in the window: not recorded.
    if (this.#groups.isCut(step)) return;
    if (abs !== undefined) {
      const index = abs - this.#firstAbs;
      const previous = this.#steps.at(index);
      this.#steps.set(index, step);
      const was = previous?.type === StepType.Compaction;
      const is = step.type === StepType.Compaction;
      if (is !== was) this.#updateCompaction(abs, is);
      this.#groups.note(step, abs);
      return;
    }
    const position = this.#firstAbs + this.#steps.length;
    this.#steps.push(step);
    this.#positionById.set(step.id, position);
    this.#groups.note(step, position);
    // §15: a COMPACTION step marks where the harness compacted its context.
    if (step.type === StepType.Compaction) this.#compactions.push(position);
    this.#trim();
  }

  /**
   * The id a tool call of the turn that starts at absolute position `turnStart` is recorded
   * under: its own, unless a step of an earlier turn carries it (a harness may number calls from
   * `call_1` again in a resumed session, §7), then the first `<id>~<n>` no step carries. So a
   * later call never replaces an earlier turn's record of another call.
   */
  ownCallId(id: string, turnStart: number): string {
    if (!this.#groups.usedBefore(id, turnStart)) return id;
    let n = 1;
    while (this.#groups.has(`${id}~${n}`) || this.#positionById.has(`${id}~${n}`)) n++;
    return `${id}~${n}`;
  }

  /** Marks the start of a turn at the next history position, and returns that (absolute) position. */
  startTurn(): number {
    const position = this.#firstAbs + this.#steps.length;
    this.#turnStarts.push(position);
    this.#turnCount++;
    return position;
  }

  /**
   * Records the usage of a finished turn. With `revise`, the figure replaces the last turn's
   * (usage the harness reported after that turn ended, §14).
   */
  endTurn(turn: TurnUsage, revise = false): void {
    if (revise) this.#fallback = subtractUsage(this.#fallback, this.#lastFallback);
    this.#lastTurn = copyUsage(turn.usage);
    this.#lastFallback = turn.fromSteps ? copyUsage(turn.usage) : emptyUsage();
    this.#fallback = addUsage(this.#fallback, this.#lastFallback);
  }

  /**
   * Removes the turn that starts at absolute position `start` and every step from there on
   * (`cancelIncludingUser`, seed 002): history is as if the turn was never sent.
   */
  removeTurn(start: number): void {
    const from = Math.max(start, this.#firstAbs);
    const keep = from - this.#firstAbs;
    for (let i = keep; i < this.#steps.length; i++) this.#positionById.delete((this.#steps.at(i) as Step).id);
    this.#steps.truncate(keep);
    dropFrom(this.#turnStarts, start);
    dropFrom(this.#compactions, from);
    this.#groups.truncate(from);
    this.#turnCount = Math.max(0, this.#turnCount - 1);
  }

  /** Forgets every step, index and usage figure; usage restarts from `connectionTotal`. */
  clear(connectionTotal: UsageMetadata): void {
    this.#steps.clear();
    this.#positionById.clear();
    this.#turnStarts.clear();
    this.#compactions.clear();
    this.#firstAbs = 0;
    this.#turnCount = 0;
    this.#baseline = copyUsage(connectionTotal);
    this.#fallback = emptyUsage();
    this.#lastFallback = emptyUsage();
    this.#lastTurn = undefined;
    this.#groups.clear();
  }

  /**
   * A copy of the retained steps, oldest first; with `last`, at most the newest `last` of them,
   * starting where no tool call is separated from its result (so possibly fewer).
   */
  history(last?: number): Step[] {
    if (last === undefined || last >= this.#steps.length) return this.#steps.toArray();
    const from = this.#firstAbs + this.#steps.length - last;
    return this.#steps.toArray(this.#groups.windowStart(from, false) - this.#firstAbs);
  }

  /** Turns started since the last clear (not reduced by trimming). */
  turnCount(): number {
    return this.#turnCount;
  }

  /** History positions where retained turns start. */
  turnStartIndices(): number[] {
    return this.#turnStarts.toArray().map((abs) => abs - this.#firstAbs);
  }

  /** History positions of retained COMPACTION steps. */
  compactionIndices(): number[] {
    return this.#compactions.toArray().map((abs) => abs - this.#firstAbs);
  }

  /** Content of the newest retained step with `isCompleteResponse`, or `""`. */
  lastResponse(): string {
    for (let i = this.#steps.length - 1; i >= 0; i--) {
      const step = this.#steps.at(i);
      if (step?.isCompleteResponse === true) return step.content;
    }
    return "";
  }

  /** Session usage since the last clear, given the connection's current total (§14). */
  totalUsage(connectionTotal: UsageMetadata): UsageMetadata {
    return addUsage(subtractUsage(connectionTotal, this.#baseline), this.#fallback);
  }

  /** Usage of the last finished turn, or `undefined` before one finished. */
  lastTurnUsage(): UsageMetadata | undefined {
    return this.#lastTurn === undefined ? undefined : copyUsage(this.#lastTurn);
  }

  /**
   * The state as snapshot data: a deep, JSON-safe copy (it went through JSON), so later changes
   * to the state never reach it. `connectionTotal` is the connection's `usage.total` now.
   */
  toData(connectionTotal: UsageMetadata): ConversationStateData {
    const usage: ConversationStateData["usage"] = {
      total: this.totalUsage(connectionTotal),
      harnessTotal: copyUsage(connectionTotal),
    };
    if (this.#lastTurn !== undefined) usage.lastTurn = copyUsage(this.#lastTurn);
    return {
      steps: JSON.parse(JSON.stringify(this.#steps.toArray())) as Step[],
      turnStartIndices: this.turnStartIndices(),
      turnCount: this.#turnCount,
      compactionIndices: this.compactionIndices(),
      usage,
    };
  }

  /**
   * Replaces the whole state with validated snapshot data (copied). Usage goes on from the
   * snapshot's total: plus what the harness counted since the snapshot when `sameSession` (the
   * harness resumed the session and its total did not go back), else plus what it counts from
   * `connectionTotal` on. A history longer than this state's limit keeps its newest steps.
   */
  restore(data: ConversationStateData, connectionTotal: UsageMetadata, sameSession: boolean): void {
    this.clear(connectionTotal);
    const steps = JSON.parse(JSON.stringify(data.steps)) as Step[];
    // Recorded like live steps, so every index (and any trimming) follows the one rule of record().
    let nextStart = 0;
    const startTurnsAt = (index: number): void => {
      for (; nextStart < data.turnStartIndices.length && data.turnStartIndices[nextStart] === index; nextStart++)
        this.startTurn();
    };
    steps.forEach((step, index) => {
      startTurnsAt(index);
      this.record(step);
    });
    startTurnsAt(steps.length);
    this.#turnCount = data.turnCount;
    if (sameSession) this.#baseline = copyUsage(data.usage.harnessTotal);
    this.#fallback = copyUsage(data.usage.total);
    this.#lastTurn = data.usage.lastTurn === undefined ? undefined : copyUsage(data.usage.lastTurn);
  }

  /**
   * Records the steps a resumed session replays (protocol §5 `initializeConversationResponse.history`)
   * over what the state holds: a known step id takes the replayed state in place, a new one is
   * appended, and each new SOURCE_USER step (the prompt that starts a turn, §22) counts as a turn
   * start. Then every step still ACTIVE or WAITING_FOR_USER is closed as ERROR `(cancelled)`: no
   * turn runs on a fresh connection, so they can never finish, and a tool call without a result
   * would make the history malformed (seed 002).
   */
  replay(steps: readonly Step[]): void {
    for (const step of steps) {
      const isNew = !this.#positionById.has(step.id);
      const position = this.#firstAbs + this.#steps.length;
      // A turn already started at this position (sent, its prompt step not recorded yet) is that turn.
      if (isNew && step.source === StepSource.User && this.#turnStarts.at(this.#turnStarts.length - 1) !== position)
        this.startTurn();
      this.record(step);
    }
    this.closeUnfinished();
  }

  /** Closes every retained step still ACTIVE or WAITING_FOR_USER as ERROR, keeping its content and error (default `(cancelled)`). */
  closeUnfinished(): void {
    for (let i = 0; i < this.#steps.length; i++) {
      const step = this.#steps.at(i) as Step;
      if (step.status !== StepStatus.Active && step.status !== StepStatus.WaitingForUser) continue;
      this.#steps.set(i, closedAsCancelled(step));
    }
  }

  /** Keeps the sorted compaction list in step with a step whose type changed (rare; O(n)). */
  #updateCompaction(abs: number, isCompaction: boolean): void {
    let i = this.#compactions.length;
    while (i > 0 && (this.#compactions.at(i - 1) as number) > abs) i--;
    const present = this.#compactions.at(i - 1) === abs;
    if (isCompaction && !present) this.#compactions.insert(i, abs);
    if (!isCompaction && present) this.#compactions.remove(i - 1);
  }

  #trim(): void {
    const excess = this.#maxSize > 0 ? this.#steps.length - this.#maxSize : 0;
    if (excess <= 0) return;
    // Seed 002: the window never starts inside a tool call's group; drop up to where none straddles.
    const end = this.#firstAbs + this.#steps.length;
    const start = Math.min(this.#groups.windowStart(this.#firstAbs + excess, true), end);
    const count = start - this.#firstAbs;
    this.#firstAbs = start; // read by #forget
    this.#steps.dropFront(count, this.#forget);
    dropBelow(this.#turnStarts, this.#firstAbs);
    dropBelow(this.#compactions, this.#firstAbs);
  }
}

/** Drops the leading entries of a sorted list that are below `min`. */
function dropBelow(sorted: SlidingArray<number>, min: number): void {
  let n = 0;
  while (n < sorted.length && (sorted.at(n) as number) < min) n++;
  sorted.dropFront(n);
}

/** Drops the trailing entries of a sorted list that are at or above `min`. */
function dropFrom(sorted: SlidingArray<number>, min: number): void {
  let keep = sorted.length;
  while (keep > 0 && (sorted.at(keep - 1) as number) >= min) keep--;
  sorted.truncate(keep);
}
