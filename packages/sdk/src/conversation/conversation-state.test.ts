import { describe, expect, it } from "vitest";
import { mockStep } from "../testing/mock-step.js";
import { seededRandom } from "../testing/seeded-random.js";
import { emptyUsage, StepStatus, StepType } from "../step.js";
import type { Step } from "../step.js";
import { ConversationState } from "./conversation-state.js";
import { SlidingArray } from "./sliding-array.js";

const int = (rand: () => number, n: number): number => Math.floor(rand() * n);

/** The obvious O(n) model of the state: every entry ever appended, plus absolute indices. */
class ReferenceModel {
  all: Step[] = [];
  first = 0;
  turnStarts: number[] = [];
  compactions: number[] = [];
  turns = 0;
  constructor(readonly max: number) {}
  live(): Step[] {
    return this.all.slice(this.first);
  }
  record(step: Step): void {
    const at = this.all.findIndex((s, i) => i >= this.first && s.id === step.id);
    if (at >= 0) {
      const was = this.all[at] as Step;
      this.all[at] = step;
      const isC = step.type === StepType.Compaction;
      if (isC && was.type !== StepType.Compaction) {
        this.compactions.push(at);
        this.compactions.sort((x, y) => x - y);
      }
      if (!isC && was.type === StepType.Compaction) this.compactions = this.compactions.filter((x) => x !== at);
      return;
    }
    this.all.push(step);
    if (step.type === StepType.Compaction) this.compactions.push(this.all.length - 1);
    if (this.max > 0 && this.all.length - this.first > this.max) this.first = this.all.length - this.max;
  }
  startTurn(): void {
    this.turnStarts.push(this.all.length);
    this.turns++;
  }
  clear(): void {
    this.all = [];
    this.first = 0;
    this.turnStarts = [];
    this.compactions = [];
    this.turns = 0;
  }
  rel(list: number[]): number[] {
    return list.filter((abs) => abs >= this.first).map((abs) => abs - this.first);
  }
}

function idsAt(history: Step[], indices: number[]): (string | undefined)[] {
  return indices.map((i) => history[i]?.id);
}

describe("SlidingArray", () => {
  it("matches a plain array under random push / set / dropFront", () => {
    const rand = seededRandom(7);
    for (let run = 0; run < 200; run++) {
      const sliding = new SlidingArray<number>();
      let plain: number[] = [];
      for (let op = 0; op < 400; op++) {
        const r = rand();
        if (r < 0.55) {
          sliding.push(op);
          plain.push(op);
        } else if (r < 0.7 && plain.length > 0) {
          const i = int(rand, plain.length);
          sliding.set(i, -op);
          plain[i] = -op;
        } else if (r < 0.72) {
          const i = int(rand, plain.length + 1);
          sliding.insert(i, op * 1000);
          plain.splice(i, 0, op * 1000);
        } else {
          const n = int(rand, 6);
          const dropped: number[] = [];
          sliding.dropFront(n, (v) => dropped.push(v));
          check(dropped, plain.slice(0, n), "dropped");
          plain = plain.slice(n);
        }
        if (sliding.length !== plain.length || sliding.at(plain.length - 1) !== plain.at(-1)) {
          expect([sliding.length, sliding.at(plain.length - 1)]).toEqual([plain.length, plain.at(-1)]);
        }
      }
      expect(sliding.toArray()).toEqual(plain);
      expect(sliding.at(-1)).toBeUndefined();
      expect(sliding.at(plain.length)).toBeUndefined();
    }
  });

  it("throws RangeError on out-of-range set and insert", () => {
    const s = new SlidingArray<number>();
    expect(() => s.set(0, 1)).toThrow(RangeError);
    expect(() => s.insert(1, 1)).toThrow(RangeError);
  });
});

describe("ConversationState history", () => {
  it("keeps one entry per step id, newest update in place", () => {
    const state = new ConversationState(0);
    state.record(mockStep({ stepIndex: 0, contentDelta: "He", status: StepStatus.Active }));
    state.record(mockStep({ stepIndex: 1, thinking: "t" }));
    state.record(mockStep({ stepIndex: 0, content: "Hello", contentDelta: "llo" }));
    const h = state.history();
    expect(h.map((s) => s.id)).toEqual(["mock-trajectory:0", "mock-trajectory:1"]);
    expect(h[0]?.content).toBe("Hello");
    expect(h[0]?.status).toBe(StepStatus.Done);
  });

  it("trims from the front and adjusts turn and compaction indices", () => {
    const state = new ConversationState(3);
    state.startTurn(); // at 0
    state.record(mockStep({ stepIndex: 0 }));
    state.record(mockStep({ stepIndex: 1, type: StepType.Compaction })); // compaction at 1
    state.startTurn(); // at 2
    state.record(mockStep({ stepIndex: 2 }));
    state.record(mockStep({ stepIndex: 3 })); // drops step 0 and turn start 0
    expect(state.history().map((s) => s.stepIndex)).toEqual([1, 2, 3]);
    expect(state.turnStartIndices()).toEqual([1]);
    expect(state.compactionIndices()).toEqual([0]);
    expect(state.turnCount()).toBe(2); // trimming does not lower the count
    state.record(mockStep({ stepIndex: 4 })); // drops the compaction step
    expect(state.compactionIndices()).toEqual([]);
    expect(state.turnStartIndices()).toEqual([0]);
  });

  it("treats an update of a trimmed step as a new entry", () => {
    const state = new ConversationState(2);
    state.record(mockStep({ stepIndex: 0, content: "a" }));
    state.record(mockStep({ stepIndex: 1 }));
    state.record(mockStep({ stepIndex: 2 }));
    state.record(mockStep({ stepIndex: 0, content: "a2" }));
    expect(state.history().map((s) => s.content)).toEqual(["", "a2"]);
  });

  it("keeps compaction indices right when an update changes a step's type", () => {
    const state = new ConversationState(0);
    state.record(mockStep({ stepIndex: 0 }));
    state.record(mockStep({ stepIndex: 1, type: StepType.Compaction }));
    state.record(mockStep({ stepIndex: 0, type: StepType.Compaction }));
    state.record(mockStep({ stepIndex: 0, type: StepType.Compaction }));
    expect(state.compactionIndices()).toEqual([0, 1]);
    state.record(mockStep({ stepIndex: 1, type: StepType.TextResponse }));
    expect(state.compactionIndices()).toEqual([0]);
  });

  it("lastResponse is the content of the newest complete response", () => {
    const state = new ConversationState(0);
    expect(state.lastResponse()).toBe("");
    state.record(mockStep({ stepIndex: 0, content: "first" }));
    state.record(mockStep({ stepIndex: 1, content: "working", status: StepStatus.Active }));
    expect(state.lastResponse()).toBe("first");
    state.record(mockStep({ stepIndex: 1, content: "second" }));
    expect(state.lastResponse()).toBe("second");
  });

  it("clear forgets everything and restarts usage from the given total", () => {
    const state = new ConversationState(0);
    state.startTurn();
    state.record(mockStep({ type: StepType.Compaction }));
    state.endTurn({ usage: { ...emptyUsage(), totalTokenCount: 5 }, fromSteps: true });
    const total = { ...emptyUsage(), totalTokenCount: 40 };
    state.clear(total);
    expect([state.history(), state.turnStartIndices(), state.compactionIndices(), state.turnCount()]).toEqual([
      [],
      [],
      [],
      0,
    ]);
    expect(state.lastTurnUsage()).toBeUndefined();
    expect(state.totalUsage({ ...emptyUsage(), totalTokenCount: 52 }).totalTokenCount).toBe(12);
  });

  it("property: random sequences keep every index on the same step and history within max", () => {
    const sizes = [0, 1, 2, 3, 5, 8, 13, 64];
    let trimmedRuns = 0;
    for (let run = 0; run < 600; run++) {
      const rand = seededRandom(run + 1);
      const max = sizes[run % sizes.length] as number;
      const state = new ConversationState(max);
      const model = new ReferenceModel(max);
      let next = 0;
      let trimmed = false;
      for (let op = 0; op < 250; op++) {
        const beforeHistory = state.history();
        const beforeTurns = idsAt(beforeHistory, state.turnStartIndices());
        const beforeCompactions = idsAt(beforeHistory, state.compactionIndices());
        const r = rand();
        let step: Step | undefined;
        if (r < 0.45) {
          step = mockStep({
            stepIndex: next++,
            content: `s${op}`,
            status: rand() < 0.5 ? StepStatus.Active : StepStatus.Done,
          });
        } else if (r < 0.7 && next > 0) {
          // Update of a recent step (it may have been trimmed away already).
          const index = Math.max(0, next - 1 - int(rand, Math.min(next, max > 0 ? max * 2 : 20)));
          step = mockStep({
            stepIndex: index,
            content: `u${op}`,
            ...(rand() < 0.1 ? { type: StepType.Compaction } : {}),
          });
        } else if (r < 0.78) {
          step = mockStep({ stepIndex: next++, type: StepType.Compaction });
        } else if (r < 0.995) {
          state.startTurn();
          model.startTurn();
        } else {
          state.clear(emptyUsage());
          model.clear();
        }
        if (step !== undefined) {
          state.record(step);
          model.record(step);
        }
        const history = state.history();
        if (max > 0 && history.length > max) expect(history.length).toBeLessThanOrEqual(max);
        if (history.length > 0 && beforeHistory.length > 0 && history[0]?.id !== beforeHistory[0]?.id) trimmed = true;
        check(history, model.live(), `run ${run} op ${op}: history`);
        check(state.turnStartIndices(), model.rel(model.turnStarts), `run ${run} op ${op}: turn starts`);
        check(state.compactionIndices(), model.rel(model.compactions), `run ${run} op ${op}: compactions`);
        if (state.turnCount() !== model.turns) expect(state.turnCount()).toBe(model.turns);
        for (const i of state.compactionIndices())
          if (history[i]?.type !== StepType.Compaction) expect(history[i]?.type).toBe(StepType.Compaction);
        // Surviving indices point at the step (by id) they pointed at before this operation.
        const afterTurns = idsAt(history, state.turnStartIndices());
        const afterCompactions = idsAt(history, state.compactionIndices());
        expectSuffixMatch(beforeTurns, afterTurns);
        if (step === undefined || (step.type !== StepType.Compaction && !beforeHistory.some((s) => s.id === step.id))) {
          expectSuffixMatch(beforeCompactions, afterCompactions);
        }
        let lastComplete = "";
        for (const s of history) if (s.isCompleteResponse) lastComplete = s.content;
        if (state.lastResponse() !== lastComplete) expect(state.lastResponse()).toBe(lastComplete);
      }
      if (trimmed) trimmedRuns++;
    }
    expect(trimmedRuns).toBeGreaterThan(300); // the sequences really exercised trimming
  });
});

/**
 * `after` must start with a suffix of `before` (entries that fell off the front are gone), each
 * surviving entry naming the same step id. Entries that pointed past the end (no step yet, a
 * turn that had not received its first step) are allowed to have gained one.
 */
function expectSuffixMatch(before: (string | undefined)[], after: (string | undefined)[]): void {
  if (after.length === 0 || before.length === 0) return;
  const dropped = Math.max(0, before.length - after.length);
  for (let i = dropped; i < before.length && i - dropped < after.length; i++) {
    const was = before[i];
    if (was !== undefined && after[i - dropped] !== was) expect(after[i - dropped]).toBe(was);
  }
}

/** Element-wise `===`; falls back to `expect` (with its diff) only on a mismatch, for speed. */
function check<T>(actual: T[], expected: T[], label: string): void {
  if (actual.length === expected.length && actual.every((v, i) => v === expected[i])) return;
  expect(actual, label).toEqual(expected);
}
