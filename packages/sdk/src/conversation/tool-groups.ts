import type { Step } from "../step.js";
import { SlidingArray } from "./sliding-array.js";

/** How many call ids of trimmed-away groups are remembered, to refuse their late updates. */
const CUT_MEMORY = 1024;

/** The history positions of the steps that share one tool call id. */
interface Group {
  readonly id: string;
  first: number;
  last: number;
  /** True once the group spans two positions and sits in the sorted list. */
  listed: boolean;
}

/**
 * The tool-call groups of a history: every step that carries a call id (the model's call, a
 * built-in tool's step, the SDK's synthetic client-tool step with the result) belongs to that
 * call's group. A window of the history (trimming, `history({ last })`) must never start inside
 * a group — a result whose call was cut off, or a call cut off from its result — so windows start
 * after the last member of any group that began before them (seed 002).
 *
 * Positions are absolute (as in `ConversationState`). Groups spanning two or more positions are
 * kept sorted by their first position, so moving a window start costs amortised O(1) per group.
 */
export class ToolGroups {
  readonly #byId = new Map<string, Group>();
  readonly #sorted = new SlidingArray<Group>();
  /** Call ids whose group was trimmed away, oldest first. */
  readonly #cut = new Set<string>();

  /** True when `step` belongs to a group that was trimmed away: recording it would orphan it. */
  isCut(step: Step): boolean {
    if (this.#cut.size === 0) return false;
    for (const call of step.toolCalls) if (call.id !== "" && this.#cut.has(call.id)) return true;
    return false;
  }

  /** True when a step before absolute position `abs` carries call id `id`, or carried it and was trimmed away. */
  usedBefore(id: string, abs: number): boolean {
    const group = this.#byId.get(id);
    return (group !== undefined && group.first < abs) || this.#cut.has(id);
  }

  /** True when a retained step carries call id `id`, or one that was trimmed away did. */
  has(id: string): boolean {
    return this.#byId.has(id) || this.#cut.has(id);
  }

  /** Notes that `step` is at absolute position `abs`. */
  note(step: Step, abs: number): void {
    for (const call of step.toolCalls) {
      if (call.id === "") continue; // an empty id groups nothing
      const group = this.#byId.get(call.id);
      if (group === undefined) {
        this.#byId.set(call.id, { id: call.id, first: abs, last: abs, listed: false });
        continue;
      }
      if (abs > group.last) group.last = abs;
      if (abs < group.first) {
        group.first = abs;
        if (group.listed) this.#unlist(group);
      }
      if (!group.listed && group.first !== group.last) this.#list(group);
    }
  }

  /**
   * The first window start at or after `start` that no group straddles. With `commit`, the
   * groups that end before it are forgotten: the caller drops everything before it.
   */
  windowStart(start: number, commit: boolean): number {
    let s = start;
    let passed = 0;
    for (; passed < this.#sorted.length; passed++) {
      const group = this.#sorted.at(passed) as Group;
      if (group.first >= s) break;
      if (group.last >= s) s = group.last + 1;
    }
    if (commit) {
      for (let i = 0; i < passed; i++) (this.#sorted.at(i) as Group).listed = false;
      this.#sorted.dropFront(passed);
    }
    return s;
  }

  /** `step` was dropped from the front and the window now starts at `start`: forget its finished groups. */
  dropped(step: Step, start: number): void {
    for (const call of step.toolCalls) {
      const group = this.#byId.get(call.id);
      if (group === undefined || group.last >= start) continue;
      this.#byId.delete(call.id);
      this.#cut.add(call.id);
      if (this.#cut.size > CUT_MEMORY) this.#cut.delete(this.#cut.values().next().value as string);
    }
  }

  /**
   * Forgets positions from `abs` on (the tail of the history was removed). A group that keeps
   * members before `abs` is assumed to reach up to `abs - 1`: windows stay safe, at worst a little shorter.
   */
  truncate(abs: number): void {
    for (const group of [...this.#byId.values()]) {
      if (group.first >= abs) {
        this.#byId.delete(group.id);
        if (group.listed) this.#unlist(group);
      } else if (group.last >= abs) {
        group.last = abs - 1;
        if (group.listed && group.first === group.last) this.#unlist(group);
      }
    }
  }

  clear(): void {
    this.#byId.clear();
    this.#sorted.clear();
    this.#cut.clear();
  }

  /** Inserts `group` by its first position (usually at the back: groups are short-lived). */
  #list(group: Group): void {
    let i = this.#sorted.length;
    while (i > 0 && (this.#sorted.at(i - 1) as Group).first > group.first) i--;
    if (i === this.#sorted.length) this.#sorted.push(group);
    else this.#sorted.insert(i, group);
    group.listed = true;
  }

  #unlist(group: Group): void {
    for (let i = 0; i < this.#sorted.length; i++) {
      if (this.#sorted.at(i) === group) {
        this.#sorted.remove(i);
        break;
      }
    }
    group.listed = false;
  }
}
