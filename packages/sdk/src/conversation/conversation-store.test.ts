import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { createMemoryConversationStore } from "../storage/memory-store.js";
import { createMockConnection } from "../testing/mock-connection.js";
import type { MockTurn } from "../testing/mock-connection.js";
import { StepSource, StepStatus, StepTarget, StepType, SYNTHETIC_STEP_INDEX_BASE } from "../step.js";
import type { Step } from "../step.js";
import type { ConversationSnapshot } from "./conversation-snapshot.js";
import type { ConversationStore } from "./conversation-store.js";
import { Conversation } from "./conversation.js";

// A Conversation with a store (seed 002): load, automatic saves at every turn end (a cancelled
// turn too), restore over a resumed session's replay, and the errors that say what to do.

const ID = "store-test-0123456789abcdef0123456789abcd";
const prompt = (text: string, stepIndex: number): Partial<Step> => ({
  stepIndex,
  source: StepSource.User,
  target: StepTarget.Unknown,
  content: text,
});

/** A turn as the harness plays it: the prompt step, then the answer. */
function turn(text: string, first: number, extra: Partial<MockTurn> = {}): MockTurn {
  return {
    steps: [prompt(text, first), { stepIndex: first + 1, content: `answer to ${text}` }],
    usage: { promptTokenCount: 10, totalTokenCount: 12 },
    ...extra,
  };
}

/** The steps a resumed harness replays: what the previous connection's turns produced. */
function replayOf(history: Step[]): Partial<Step>[] {
  return history.filter((s) => s.stepIndex < SYNTHETIC_STEP_INDEX_BASE).map((s) => ({ ...s }));
}

describe("Conversation with a store", () => {
  it("Conversation.load: nothing stored → a new conversation, saved after its turn ends", async () => {
    const store = createMemoryConversationStore();
    const conversation = await Conversation.load(
      createMockConnection({ conversationId: ID, turns: [turn("one", 0)] }),
      { store },
    );
    expect(await conversation.turnCount()).toBe(0);
    await conversation.chatToCompletion("one");
    await conversation.disconnect(); // resolves after the last automatic save
    const saved = await store.load(ID);
    expect(saved).toMatchObject({
      conversationId: ID,
      turnCount: 1,
      turnStartIndices: [0],
      usage: { total: { totalTokenCount: 12 } },
    });
    expect(saved?.steps.map((s) => s.content)).toEqual(["one", "answer to one"]);
  });

  it("a new connection to the resumed session continues: history, turns and usage restored, replay merged, next turn saved", async () => {
    const store = createMemoryConversationStore();
    const first = await Conversation.load(
      createMockConnection({ conversationId: ID, turns: [turn("one", 0), turn("two", 2)] }),
      { store },
    );
    await first.chatToCompletion("one");
    await first.chatToCompletion("two");
    const history = await first.history();
    await first.disconnect();

    // The harness resumed the session: it replays the steps and reports its cumulative usage (§5, §14).
    const connection = createMockConnection({
      conversationId: ID,
      initialHistory: replayOf(history),
      initialUsage: { promptTokenCount: 20, totalTokenCount: 24 },
      turns: [turn("three", 4)],
    });
    const second = await Conversation.load(connection, { store });
    expect(await second.history()).toEqual(history);
    expect([
      await second.turnCount(),
      await second.turnStartIndices(),
      (await second.totalUsage()).totalTokenCount,
    ]).toEqual([2, [0, 2], 24]);
    await second.chatToCompletion("three");
    expect([
      await second.turnCount(),
      (await second.totalUsage()).totalTokenCount,
      (await second.lastTurnUsage())?.totalTokenCount,
    ]).toEqual([3, 36, 12]);
    await second.disconnect();
    expect((await store.load(ID))?.turnCount).toBe(3);
  });

  it("a cancelled turn is saved with what arrived, its unfinished steps closed as (cancelled)", async () => {
    const store = createMemoryConversationStore();
    const running: MockTurn = {
      steps: [
        prompt("go", 0),
        {
          stepIndex: 1,
          type: StepType.ToolCall,
          status: StepStatus.Active,
          toolCalls: [{ id: "c1", name: "run_command", args: {} }],
        },
      ],
      untilHalted: true,
    };
    const conversation = await Conversation.load(createMockConnection({ conversationId: ID, turns: [running] }), {
      store,
    });
    const stream = conversation.chat("go");
    for await (const step of stream.steps()) if (step.stepIndex === 1) break;
    await conversation.cancel();
    await conversation.disconnect();
    const saved = (await store.load(ID)) as ConversationSnapshot;
    expect(saved.turnCount).toBe(1);
    expect(saved.steps.map((s) => [s.content || s.type, s.status, s.error])).toEqual([
      ["go", StepStatus.Done, ""],
      [StepType.ToolCall, StepStatus.Error, "(cancelled)"],
    ]);
  });

  it("a step left running in the snapshot or the replay is closed on restore: every tool call has a result", async () => {
    const replay: Partial<Step>[] = [
      prompt("go", 0),
      {
        stepIndex: 1,
        type: StepType.ToolCall,
        status: StepStatus.Active,
        toolCalls: [{ id: "c1", name: "run_command", args: {} }],
      },
    ];
    const conversation = new Conversation(createMockConnection({ conversationId: ID, initialHistory: replay }));
    expect((await conversation.history()).map((s) => [s.status, s.error])).toEqual([
      [StepStatus.Done, ""],
      [StepStatus.Error, "(cancelled)"],
    ]);
    expect(await conversation.turnCount()).toBe(1);
  });

  it("Conversation.restore refuses a snapshot of another conversation (FailedPrecondition) or an invalid one (InvalidArgument)", async () => {
    const source = await Conversation.load(createMockConnection({ conversationId: ID, turns: [turn("one", 0)] }), {
      store: createMemoryConversationStore(),
    });
    await source.chatToCompletion("one");
    const snapshot = await source.snapshot();
    expect(() =>
      Conversation.restore(
        createMockConnection({ conversationId: "elsewhere-0123456789abcdef0123456789ab" }),
        snapshot,
      ),
    ).toThrow(
      expect.objectContaining({
        code: ErrorCode.FailedPrecondition,
        message: expect.stringContaining(`connect with conversationId ${ID}`),
      }),
    );
    expect(() =>
      Conversation.restore(createMockConnection({ conversationId: ID }), { ...snapshot, turnStartIndices: [5] }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
    const resumed = createMockConnection({ conversationId: ID, initialUsage: snapshot.usage.harnessTotal });
    const restored = Conversation.restore(resumed, JSON.parse(JSON.stringify(snapshot)) as ConversationSnapshot);
    expect(await restored.snapshot()).toEqual(snapshot);
  });

  it("save() without a store is FailedPrecondition; a failing store goes to onSaveError and the next turn still works", async () => {
    const plain = new Conversation(createMockConnection({ conversationId: ID }));
    await expect(plain.save()).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });

    const errors: SdkError[] = [];
    const failing: ConversationStore = {
      load: async () => undefined,
      save: async () => Promise.reject(new SdkError(ErrorCode.FailedPrecondition, "the disk is full")),
    };
    const conversation = await Conversation.load(
      createMockConnection({ conversationId: ID, turns: [turn("one", 0), turn("two", 2)] }),
      { store: failing, onSaveError: (e) => errors.push(e) },
    );
    await conversation.chatToCompletion("one");
    expect((await conversation.chatToCompletion("two")).text).toBe("answer to two");
    await expect(conversation.save()).rejects.toThrow("the disk is full");
    await conversation.disconnect();
    expect(errors.map((e) => e.message)).toEqual(["the disk is full", "the disk is full"]);
  });
});
