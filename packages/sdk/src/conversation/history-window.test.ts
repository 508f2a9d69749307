import { describe, expect, it } from "vitest";
import { mockStep } from "../testing/mock-step.js";
import { seededRandom } from "../testing/seeded-random.js";
import { StepTarget } from "../step.js";
import type { Step } from "../step.js";
import { ConversationState } from "./conversation-state.js";

// Windows of the history — `maxHistorySize` trimming and `history({ last })` — never separate a
// tool call's steps from its result steps (seed 002). Checked against an obvious O(n²) model.

const int = (rand: () => number, n: number): number => Math.floor(rand() * n);

/** Every step ever accepted, by absolute position, with the call ids it carried. */
class WindowModel {
  readonly entries: { id: string; calls: Set<string> }[] = [];
  start = 0;
  constructor(readonly max: number) {}

  positionOf(id: string): number | undefined {
    for (let p = this.entries.length - 1; p >= this.start; p--) if (this.entries[p]?.id === id) return p;
    return undefined;
  }

  /** Positions of the accepted steps that carried call `c`. */
  group(c: string): number[] {
    const out: number[] = [];
    this.entries.forEach((e, p) => e.calls.has(c) && out.push(p));
    return out;
  }

  /** A group entirely before the window: a step carrying its call would stand alone. */
  isCut(calls: string[]): boolean {
    return calls.some((c) => {
      const g = this.group(c);
      return g.length > 0 && (g.at(-1) as number) < this.start;
    });
  }

  /** The first start ≥ `from` that no group straddles (one member before it, one at or after it). */
  validStart(from: number): number {
    let s = from;
    for (let moved = true; moved; ) {
      moved = false;
      for (const c of new Set(this.entries.flatMap((e) => [...e.calls]))) {
        const g = this.group(c);
        if ((g[0] as number) < s && (g.at(-1) as number) >= s) {
          s = (g.at(-1) as number) + 1;
          moved = true;
        }
      }
    }
    return s;
  }

  record(step: Step): void {
    const calls = step.toolCalls.map((c) => c.id).filter((id) => id !== "");
    if (this.isCut(calls)) return;
    const at = this.positionOf(step.id);
    if (at !== undefined) {
      for (const c of calls) this.entries[at]?.calls.add(c);
      return;
    }
    this.entries.push({ id: step.id, calls: new Set(calls) });
    const excess = this.max > 0 ? this.entries.length - this.start - this.max : 0;
    if (excess > 0) this.start = Math.min(this.validStart(this.start + excess), this.entries.length);
  }

  retained(): string[] {
    return this.entries.slice(this.start).map((e) => e.id);
  }

  last(n: number): string[] {
    const from = Math.max(this.start, this.entries.length - n);
    return this.entries.slice(this.validStart(from)).map((e) => e.id);
  }
}

/** Random steps of a conversation with tools: text, model calls, client-tool results, built-in tool steps, updates. */
function randomStep(rand: () => number, n: number, recorded: Step[], openCalls: string[]): Step {
  const r = rand();
  if (r < 0.25 && recorded.length > 0) {
    const previous = recorded[int(rand, recorded.length)] as Step;
    return { ...previous, content: `${previous.content}+` }; // an update (possibly of a trimmed step)
  }
  if (r < 0.45) {
    const call = { id: `call-${n}`, name: "lookup", args: {} };
    openCalls.push(call.id);
    return mockStep({ content: "", toolCalls: [call] }, { trajectoryId: "t", stepIndex: n }); // the model's call (§7.1)
  }
  if (r < 0.65 && openCalls.length > 0) {
    const id = openCalls.splice(int(rand, openCalls.length), 1)[0] as string;
    return mockStep(
      { id, target: StepTarget.Environment, toolCalls: [{ id, name: "lookup", args: { result: n } }] },
      { trajectoryId: "t", stepIndex: 50_000 + n },
    ); // its result
  }
  if (r < 0.75)
    return mockStep(
      { toolCalls: [{ id: `t:${n}`, name: "list_directory", args: {} }] },
      { trajectoryId: "t", stepIndex: n },
    ); // call and result in one step
  return mockStep({ content: `text ${n}` }, { trajectoryId: "t", stepIndex: n });
}

describe("history windows and tool calls (seed 002)", () => {
  it("property: trimming keeps every tool call with its results, drops no more than it must, and matches the model", () => {
    const rand = seededRandom(2024);
    for (let run = 0; run < 120; run++) {
      const max = 1 + int(rand, 14);
      const state = new ConversationState(max);
      const model = new WindowModel(max);
      const recorded: Step[] = [];
      const openCalls: string[] = [];
      for (let n = 0; n < 80; n++) {
        const step = randomStep(rand, n, recorded, openCalls);
        recorded.push(step);
        state.record(step);
        model.record(step);
        const history = state.history();
        expect(history.map((s) => s.id)).toEqual(model.retained());
        expect(history.length).toBeLessThanOrEqual(max);
        // No call id has one step inside the window and another accepted step outside it.
        const inside = new Set(history.map((s) => s.id));
        for (const s of history) {
          for (const c of s.toolCalls) {
            for (const p of model.group(c.id)) expect(inside.has(model.entries[p]?.id as string)).toBe(true);
          }
        }
      }
    }
  });

  it("property: history({ last }) is the newest steps from the first start that separates no call from its result", () => {
    const rand = seededRandom(77);
    for (let run = 0; run < 100; run++) {
      const state = new ConversationState(0);
      const model = new WindowModel(0);
      const recorded: Step[] = [];
      const openCalls: string[] = [];
      for (let n = 0; n < 60; n++) {
        const step = randomStep(rand, n, recorded, openCalls);
        recorded.push(step);
        state.record(step);
        model.record(step);
        const last = int(rand, 20);
        const window = state.history(last);
        expect(window.map((s) => s.id)).toEqual(model.last(last));
        expect(window.length).toBeLessThanOrEqual(last);
        const first = window[0];
        if (first !== undefined && window.length < state.length) {
          // The window starts at a step that is no result of a call before it.
          const before = new Set(
            state
              .history()
              .slice(0, state.length - window.length)
              .flatMap((s) => s.toolCalls.map((c) => c.id)),
          );
          expect(window.flatMap((s) => s.toolCalls.map((c) => c.id)).filter((c) => c !== "" && before.has(c))).toEqual(
            [],
          );
        }
      }
    }
  });

  it("removeTurn() forgets the turn's steps, turn start and compactions; later turns record as usual", () => {
    const state = new ConversationState(0);
    state.startTurn();
    state.record(mockStep({ content: "kept" }, { trajectoryId: "t", stepIndex: 0 }));
    const start = state.startTurn();
    state.record(mockStep({ content: "prompt" }, { trajectoryId: "t", stepIndex: 1 }));
    state.record(mockStep({ type: "COMPACTION" }, { trajectoryId: "t", stepIndex: 2 }));
    state.removeTurn(start);
    expect(state.history().map((s) => s.content)).toEqual(["kept"]);
    expect([state.turnCount(), state.turnStartIndices(), state.compactionIndices()]).toEqual([1, [0], []]);
    state.startTurn();
    state.record(mockStep({ content: "prompt" }, { trajectoryId: "t", stepIndex: 1 }));
    expect(state.history().map((s) => s.content)).toEqual(["kept", "prompt"]);
    expect(state.turnStartIndices()).toEqual([0, 1]);
  });
});
