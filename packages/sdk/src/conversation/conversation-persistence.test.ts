import { describe, expect, it } from "vitest";
import type { Connection } from "../connection/connection.js";
import { ErrorCode, SdkError } from "../errors.js";
import { mockStep } from "../testing/mock-step.js";
import { sampleSnapshot } from "../testing/store-contract.js";
import { createMemoryConversationStore } from "../storage/memory-store.js";
import { emptyUsage, StepSource, StepStatus, StepType } from "../step.js";
import type { Step, UsageMetadata } from "../step.js";
import { restoreSnapshot, SnapshotSaver, takeSnapshot } from "./conversation-persistence.js";
import type { ConversationSnapshot } from "./conversation-snapshot.js";
import { ConversationState } from "./conversation-state.js";
import type { ConversationStore } from "./conversation-store.js";

const ID = "persist-0123456789abcdef0123456789abcdef";
const usage = (n: number): UsageMetadata => ({ ...emptyUsage(), promptTokenCount: n, totalTokenCount: n });

/** The parts of a connection restoring reads: its id, usage total and replayed history. */
function connection(init: { id?: string; total?: UsageMetadata; history?: Step[] } = {}): Connection {
  return {
    conversationId: init.id ?? ID,
    usage: { total: init.total ?? emptyUsage(), byTrajectory: new Map() },
    initialHistory: init.history ?? [],
  } as unknown as Connection;
}

function errorOf(fn: () => unknown): SdkError {
  try {
    fn();
  } catch (error) {
    return error as SdkError;
  }
  throw new Error("expected a throw");
}

describe("takeSnapshot / restoreSnapshot", () => {
  it("retires the restored step ids when the harness replayed no history (it lost the conversation), not when it resumed", () => {
    const snapshot = sampleSnapshot(ID);
    const retired: string[][] = [];
    const lost = {
      ...connection(),
      retireStepIds: (ids: Iterable<string>) => void retired.push([...ids]),
    } as Connection;
    restoreSnapshot(new ConversationState(0), lost, snapshot);
    expect(retired).toEqual([snapshot.steps.map((step) => step.id)]);
    const resumed = {
      ...connection({ history: snapshot.steps }),
      retireStepIds: (ids: Iterable<string>) => void retired.push([...ids]),
    } as Connection;
    restoreSnapshot(new ConversationState(0), resumed, snapshot);
    expect(retired).toHaveLength(1);
  });

  it("round-trips a state through JSON, and the restored state is independent of the snapshot", () => {
    const state = new ConversationState(0);
    state.startTurn();
    state.record(mockStep({ stepIndex: 0, source: StepSource.User, content: "hi" }));
    state.record(mockStep({ stepIndex: 1, content: "hello" }));
    state.endTurn({ usage: usage(12), fromSteps: false });
    const snapshot = JSON.parse(JSON.stringify(takeSnapshot(state, ID, usage(12)))) as ConversationSnapshot;
    const restored = new ConversationState(0);
    restoreSnapshot(restored, connection({ total: usage(12) }), snapshot);
    snapshot.steps[1]!.content = "changed after restore";
    expect(takeSnapshot(restored, ID, usage(12))).toEqual(takeSnapshot(state, ID, usage(12)));
  });

  it("refuses a snapshot of another conversation with FailedPrecondition saying how to connect", () => {
    const error = errorOf(() =>
      restoreSnapshot(
        new ConversationState(0),
        connection({ id: "another-0123456789abcdef0123456789abcde" }),
        sampleSnapshot(ID),
      ),
    );
    expect(error.code).toBe(ErrorCode.FailedPrecondition);
    expect(error.message).toContain(`connect with conversationId ${ID}`);
  });

  it("refuses an invalid snapshot, or one that is not JSON data, with InvalidArgument", () => {
    expect(
      errorOf(() => restoreSnapshot(new ConversationState(0), connection(), { ...sampleSnapshot(ID), version: 7 }))
        .code,
    ).toBe(ErrorCode.InvalidArgument);
    expect(
      errorOf(() => restoreSnapshot(new ConversationState(0), connection(), { ...sampleSnapshot(ID), extra: 1n }))
        .message,
    ).toContain("it is not JSON data");
    expect(errorOf(() => restoreSnapshot(new ConversationState(0), connection(), undefined)).code).toBe(
      ErrorCode.InvalidArgument,
    );
  });

  it("usage: a harness that resumed the session adds what it counted since; a fresh one counts from the snapshot's total", () => {
    const snapshot = { ...sampleSnapshot(ID), usage: { total: usage(30), harnessTotal: usage(130) } };
    const resumed = new ConversationState(0);
    restoreSnapshot(resumed, connection({ total: usage(140) }), snapshot);
    expect(resumed.totalUsage(usage(140)).totalTokenCount).toBe(40);
    const fresh = new ConversationState(0);
    restoreSnapshot(fresh, connection({ total: usage(5) }), snapshot);
    expect(fresh.totalUsage(usage(5)).totalTokenCount).toBe(30);
    expect(fresh.totalUsage(usage(9)).totalTokenCount).toBe(34);
  });

  it("merges the harness's replay over the snapshot, counts the new turn and closes what was left running", () => {
    const snapshot = sampleSnapshot(ID, { turns: 1 }); // steps 0..3, one turn
    const replay = [
      ...snapshot.steps,
      mockStep({ trajectoryId: ID, stepIndex: 4, source: StepSource.User, content: "second question" }),
      mockStep({
        trajectoryId: ID,
        stepIndex: 5,
        type: StepType.ToolCall,
        status: StepStatus.Active,
        toolCalls: [{ id: "c9", name: "run_command", args: {} }],
      }),
    ];
    const state = new ConversationState(0);
    restoreSnapshot(state, connection({ history: replay }), snapshot);
    expect(state.turnCount()).toBe(2);
    expect(state.turnStartIndices()).toEqual([0, 4]);
    expect(state.history().at(-1)).toMatchObject({ status: StepStatus.Error, error: "(cancelled)" });
  });
});

describe("SnapshotSaver", () => {
  /** A store whose saves each wait for a `release()`, recording the turnCount of each snapshot saved. */
  function slowStore(): ConversationStore & { saved: number[]; release(): Promise<void>; fail?: SdkError | undefined } {
    const inner = createMemoryConversationStore();
    const waiting: (() => void)[] = [];
    const store = {
      saved: [] as number[],
      fail: undefined as SdkError | undefined,
      /** Lets the next save (waiting now, or the next to arrive, within 5 s) go on. */
      async release() {
        for (let i = 0; i < 500 && waiting.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
        waiting.shift()?.();
      },
      load: (id: string) => inner.load(id),
      async save(snapshot: ConversationSnapshot) {
        await new Promise<void>((resolve) => waiting.push(resolve));
        if (store.fail !== undefined) throw store.fail;
        store.saved.push(snapshot.turnCount);
        await inner.save(snapshot);
      },
    };
    return store;
  }

  it("coalesces a burst into the running save plus one with the newest state, in order", async () => {
    const store = slowStore();
    let turns = 1;
    const saver = new SnapshotSaver({ store }, async () => ({ ...sampleSnapshot(ID, { turns: 1 }), turnCount: turns }));
    saver.schedule(); // takes turnCount 1 and waits in the store
    await store.release();
    for (turns = 2; turns <= 5; turns++) saver.schedule();
    turns = 5;
    const settled = saver.settled();
    await store.release();
    await settled;
    expect(store.saved).toEqual([1, 5]);
    expect((await store.load(ID))?.turnCount).toBe(5);
  });

  it("reports a failed automatic save to onSaveError; save() rejects with the store's error and later saves work", async () => {
    const store = slowStore();
    const reported: SdkError[] = [];
    const saver = new SnapshotSaver({ store, onSaveError: (e) => reported.push(e) }, async () => sampleSnapshot(ID));
    store.fail = new SdkError(ErrorCode.FailedPrecondition, "disk full");
    saver.schedule();
    await store.release();
    await saver.settled();
    expect(reported.map((e) => e.message)).toEqual(["disk full"]);
    const explicit = saver.save();
    await store.release();
    await expect(explicit).rejects.toThrow("disk full");
    store.fail = undefined;
    const ok = saver.save();
    await store.release();
    await ok;
    expect(store.saved).toEqual([2]);
  });
});
