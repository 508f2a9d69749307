import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { mockStep } from "../testing/mock-step.js";
import { seededRandom } from "../testing/seeded-random.js";
import { sampleSnapshot } from "../testing/store-contract.js";
import { emptyUsage, StepSource, StepStatus, StepTarget, StepType } from "../step.js";
import type { Step, UsageMetadata } from "../step.js";
import {
  CONVERSATION_SNAPSHOT_FORMAT,
  CONVERSATION_SNAPSHOT_VERSION,
  parseConversationSnapshot,
} from "./conversation-snapshot.js";
import type { ConversationSnapshot } from "./conversation-snapshot.js";
import { CANCELLED_STEP_ERROR, ConversationState } from "./conversation-state.js";

const usage = (total: number): UsageMetadata => ({ ...emptyUsage(), promptTokenCount: total, totalTokenCount: total });

/** `fn` throws SdkError InvalidArgument whose message contains `text`. */
function expectInvalid(fn: () => unknown, text: string): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.InvalidArgument);
    expect((error as SdkError).message).toContain(text);
    return;
  }
  expect.fail(`expected InvalidArgument containing ${JSON.stringify(text)}`);
}

function snapshotOf(state: ConversationState, connectionTotal: UsageMetadata, id = "conv-1"): ConversationSnapshot {
  return {
    format: CONVERSATION_SNAPSHOT_FORMAT,
    version: CONVERSATION_SNAPSHOT_VERSION,
    conversationId: id,
    ...state.toData(connectionTotal),
  };
}

describe("parseConversationSnapshot", () => {
  it("accepts a snapshot and returns it as is", () => {
    const snapshot = sampleSnapshot("conv-1");
    expect(parseConversationSnapshot(snapshot)).toBe(snapshot);
  });

  it.each([
    ["not an object", () => "hello", 'snapshot: expected an object, got "hello"'],
    [
      "another format",
      (s: Record<string, unknown>) => ({ ...s, format: "other" }),
      'format: expected "antigravity-ts.conversation"',
    ],
    [
      "a newer version",
      (s: Record<string, unknown>) => ({ ...s, version: 2 }),
      "written by a newer SDK, upgrade to read it",
    ],
    [
      "a version as a string",
      (s: Record<string, unknown>) => ({ ...s, version: "1" }),
      'version: this SDK reads version 1, got "1"',
    ],
    [
      "an empty id",
      (s: Record<string, unknown>) => ({ ...s, conversationId: "" }),
      "conversationId: expected a non-empty string",
    ],
    [
      "steps not an array",
      (s: Record<string, unknown>) => ({ ...s, steps: {} }),
      "steps: expected an array, got an object",
    ],
    [
      "a step without status",
      (s: ConversationSnapshot) => ({
        ...s,
        steps: s.steps.map((st, i) => (i === 1 ? { ...st, status: undefined } : st)),
      }),
      "steps[1].status: expected one of",
    ],
    [
      "an unknown step type",
      (s: ConversationSnapshot) => ({ ...s, steps: s.steps.map((st, i) => (i === 2 ? { ...st, type: "MAGIC" } : st)) }),
      "steps[2].type: expected one of TEXT_RESPONSE",
    ],
    [
      "a fractional step index",
      (s: ConversationSnapshot) => ({
        ...s,
        steps: s.steps.map((st, i) => (i === 0 ? { ...st, stepIndex: 1.5 } : st)),
      }),
      "steps[0].stepIndex",
    ],
    [
      "a tool call without a name",
      (s: ConversationSnapshot) => ({
        ...s,
        steps: s.steps.map((st) => ({ ...st, toolCalls: st.toolCalls.map((c) => ({ ...c, name: 3 })) })),
      }),
      "steps[2].toolCalls[0].name",
    ],
    ["a duplicate step id", (s: ConversationSnapshot) => ({ ...s, steps: [...s.steps, s.steps[0]] }), "appears twice"],
    [
      "turn starts out of order",
      (s: ConversationSnapshot) => ({ ...s, turnStartIndices: [4, 0] }),
      "turnStartIndices[1]: the list must be in ascending order",
    ],
    [
      "a turn start past the end",
      (s: ConversationSnapshot) => ({ ...s, turnStartIndices: [0, 9] }),
      "turnStartIndices[1]: expected an integer in [0, 8]",
    ],
    [
      "fewer turns than turn starts",
      (s: ConversationSnapshot) => ({ ...s, turnCount: 1 }),
      "turnCount: expected an integer >= 2",
    ],
    [
      "compaction indices that miss a COMPACTION step",
      (s: ConversationSnapshot) => ({
        ...s,
        steps: s.steps.map((st, i) => (i === 3 ? { ...st, type: StepType.Compaction } : st)),
      }),
      "compactionIndices: expected [3]",
    ],
    [
      "negative usage",
      (s: ConversationSnapshot) => ({ ...s, usage: { ...s.usage, total: { ...s.usage.total, totalTokenCount: -1 } } }),
      "usage.total.totalTokenCount: expected a number >= 0, got -1",
    ],
    [
      "no harness total",
      (s: ConversationSnapshot) => ({ ...s, usage: { total: s.usage.total } }),
      "usage.harnessTotal: expected an object, got nothing",
    ],
  ] as const)("refuses %s with InvalidArgument naming the field", (_, mutate, text) => {
    expectInvalid(
      () => parseConversationSnapshot((mutate as (s: ConversationSnapshot) => unknown)(sampleSnapshot("conv-1"))),
      text,
    );
  });

  it("keeps fields a step has beyond the known ones", () => {
    const snapshot = sampleSnapshot("conv-1");
    (snapshot.steps[0] as Step & { extra?: unknown }).extra = { kept: true };
    expect(
      (parseConversationSnapshot(JSON.parse(JSON.stringify(snapshot))) as ConversationSnapshot).steps[0],
    ).toMatchObject({ extra: { kept: true } });
  });
});

describe("ConversationState snapshot data", () => {
  it("toData is a JSON-safe deep copy: later changes to the state do not reach it", () => {
    const state = new ConversationState(0);
    state.startTurn();
    state.record(mockStep({ stepIndex: 0, content: "a", structuredOutput: { at: new Date(0) } as unknown }));
    const data = state.toData(emptyUsage());
    state.record(mockStep({ stepIndex: 0, content: "changed" }));
    expect(data.steps[0]?.content).toBe("a");
    expect(data.steps[0]?.structuredOutput).toEqual({ at: "1970-01-01T00:00:00.000Z" });
    expect(JSON.parse(JSON.stringify(data))).toEqual(data);
  });

  it("property: random histories survive snapshot → JSON → restore → snapshot unchanged", () => {
    const sizes = [0, 3, 8, 50];
    for (let run = 0; run < 300; run++) {
      const rand = seededRandom(run + 11);
      const max = sizes[run % sizes.length] as number;
      const state = new ConversationState(max);
      let next = 0;
      let total = 0;
      for (let op = 0; op < 60; op++) {
        const r = rand();
        if (r < 0.5)
          state.record(
            mockStep({
              stepIndex: next++,
              content: `s${op}`,
              status: rand() < 0.3 ? StepStatus.Active : StepStatus.Done,
              ...(rand() < 0.2
                ? { toolCalls: [{ id: `c${op}`, name: "t", args: { n: op, nested: [1, "x", null] } }] }
                : {}),
            }),
          );
        else if (r < 0.65 && next > 0)
          state.record(
            mockStep({
              stepIndex: Math.floor(rand() * next),
              content: `u${op}`,
              ...(rand() < 0.2 ? { type: StepType.Compaction } : {}),
            }),
          );
        else if (r < 0.75) state.record(mockStep({ stepIndex: next++, type: StepType.Compaction }));
        else if (r < 0.9) state.startTurn();
        else {
          const turn = Math.floor(rand() * 50);
          total += turn;
          state.endTurn({ usage: usage(turn), fromSteps: rand() < 0.3 });
        }
      }
      const harness = usage(total);
      const snapshot = snapshotOf(state, harness);
      const text = JSON.stringify(snapshot);
      const restored = new ConversationState(max);
      restored.restore(parseConversationSnapshot(JSON.parse(text)), harness, true);
      const again = snapshotOf(restored, harness);
      if (JSON.stringify(again) !== text) expect(again, `run ${run}`).toEqual(snapshot);
      expect(restored.history()).toEqual(state.history());
      expect([restored.turnCount(), restored.turnStartIndices(), restored.compactionIndices()]).toEqual([
        state.turnCount(),
        state.turnStartIndices(),
        state.compactionIndices(),
      ]);
      expect([restored.totalUsage(harness), restored.lastTurnUsage(), restored.lastResponse()]).toEqual([
        state.totalUsage(harness),
        state.lastTurnUsage(),
        state.lastResponse(),
      ]);
    }
  });

  it("restore into a smaller history keeps the newest steps and the turns that start among them", () => {
    const state = new ConversationState(0);
    for (let t = 0; t < 3; t++) {
      state.startTurn();
      state.record(mockStep({ stepIndex: t * 2, source: StepSource.User, content: `q${t}` }));
      state.record(mockStep({ stepIndex: t * 2 + 1, content: `a${t}` }));
    }
    const small = new ConversationState(3);
    small.restore(state.toData(emptyUsage()), emptyUsage(), true);
    expect(small.history().map((s) => s.content)).toEqual(["a1", "q2", "a2"]);
    expect(small.turnStartIndices()).toEqual([1]);
    expect(small.turnCount()).toBe(3);
  });

  it("usage goes on from the snapshot: plus the harness's growth on the same session, from zero on a fresh one", () => {
    const state = new ConversationState(0);
    state.clear(usage(100)); // usage counted from 100 on
    state.startTurn();
    state.endTurn({ usage: usage(30), fromSteps: false });
    const data = state.toData(usage(130));
    expect(data.usage).toEqual({ total: usage(30), harnessTotal: usage(130), lastTurn: usage(30) });

    const resumed = new ConversationState(0);
    resumed.restore(data, usage(150), true); // the harness counted 20 more after the snapshot
    expect(resumed.totalUsage(usage(150)).totalTokenCount).toBe(50);
    expect(resumed.totalUsage(usage(160)).totalTokenCount).toBe(60);

    const fresh = new ConversationState(0);
    fresh.restore(data, emptyUsage(), false); // a new harness session counts from 0
    expect(fresh.totalUsage(emptyUsage()).totalTokenCount).toBe(30);
    expect(fresh.totalUsage(usage(7)).totalTokenCount).toBe(37);
    expect(fresh.lastTurnUsage()).toEqual(usage(30));
  });
});

describe("ConversationState.replay (a resumed session's history, protocol §5)", () => {
  const user = (i: number, text: string): Step =>
    mockStep({ stepIndex: i, source: StepSource.User, target: StepTarget.Unknown, content: text });

  it("counts each SOURCE_USER step as a turn start", () => {
    const state = new ConversationState(0);
    state.replay([
      user(0, "one"),
      mockStep({ stepIndex: 1, content: "a" }),
      user(2, "two"),
      mockStep({ stepIndex: 3, content: "b" }),
    ]);
    expect(state.turnCount()).toBe(2);
    expect(state.turnStartIndices()).toEqual([0, 2]);
  });

  it("merges over a restored snapshot: known ids update in place, new steps and turns append", () => {
    const state = new ConversationState(0);
    state.startTurn();
    state.record(user(0, "one"));
    state.record(mockStep({ stepIndex: 1, content: "partial", status: StepStatus.Active }));
    state.startTurn(); // sent, but killed before the prompt step arrived
    const restored = new ConversationState(0);
    restored.restore(state.toData(emptyUsage()), emptyUsage(), true);
    restored.replay([
      user(0, "one"),
      mockStep({ stepIndex: 1, content: "partial answer" }),
      user(2, "two"),
      mockStep({ stepIndex: 3, content: "b" }),
      user(4, "three"),
    ]);
    expect(restored.history().map((s) => s.content)).toEqual(["one", "partial answer", "two", "b", "three"]);
    expect(restored.turnStartIndices()).toEqual([0, 2, 4]);
    expect(restored.turnCount()).toBe(3);
  });

  it("closes every step still running as ERROR (cancelled), keeping its content and any error it had", () => {
    const state = new ConversationState(0);
    state.replay([
      user(0, "go"),
      mockStep({
        stepIndex: 1,
        type: StepType.ToolCall,
        status: StepStatus.Active,
        toolCalls: [{ id: "c1", name: "run_command", args: {} }],
      }),
      mockStep({ stepIndex: 2, content: "half", status: StepStatus.Active }),
      mockStep({
        stepIndex: 3,
        type: StepType.ToolCall,
        status: StepStatus.WaitingForUser,
        error: "confirmation lost",
        toolCalls: [{ id: "c3", name: "run_command", args: {} }],
      }),
      mockStep({ stepIndex: 4, content: "done" }),
    ]);
    expect(state.history().map((s) => [s.status, s.error, s.content])).toEqual([
      [StepStatus.Done, "", "go"],
      [StepStatus.Error, CANCELLED_STEP_ERROR, ""],
      [StepStatus.Error, CANCELLED_STEP_ERROR, "half"],
      [StepStatus.Error, "confirmation lost", ""],
      [StepStatus.Done, "", "done"],
    ]);
  });
});
