import { emptyUsage, StepType } from "../types.js";
import type { Step, UsageMetadata } from "../types.js";
import { SlidingArray } from "./sliding-array.js";
import { addUsage, copyUsage, subtractUsage } from "./usage.js";
import type { TurnUsage } from "./usage.js";

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
  /** Drops a trimmed step's id (one function for the state's life, not one per trim). */
  readonly #forget = (step: Step): void => void this.#positionById.delete(step.id);

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
    if (abs !== undefined) {
      const index = abs - this.#firstAbs;
      const previous = this.#steps.at(index);
      this.#steps.set(index, step);
      const was = previous?.type === StepType.Compaction;
      const is = step.type === StepType.Compaction;
      if (is !== was) this.#updateCompaction(abs, is);
      return;
    }
    const position = this.#firstAbs + this.#steps.length;
    this.#steps.push(step);
    this.#positionById.set(step.id, position);
    // §15: a COMPACTION step marks where the harness compacted its context.
    if (step.type === StepType.Compaction) this.#compactions.push(position);
    this.#trim();
  }

  /** Marks the start of a user turn at the next history position. */
  startTurn(): void {
    this.#turnStarts.push(this.#firstAbs + this.#steps.length);
    this.#turnCount++;
  }

  /** Records the usage of a finished turn. */
  endTurn(turn: TurnUsage): void {
    this.#lastTurn = copyUsage(turn.usage);
    if (turn.fromSteps) this.#fallback = addUsage(this.#fallback, turn.usage);
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
    this.#lastTurn = undefined;
  }

  /** A copy of the retained steps, oldest first. */
  history(): Step[] {
    return this.#steps.toArray();
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
    this.#steps.dropFront(excess, this.#forget);
    this.#firstAbs += excess;
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
