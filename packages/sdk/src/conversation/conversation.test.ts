import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { createMockConnection } from "../testing/index.js";
import type { MockTurn } from "../testing/index.js";
import { emptyUsage, StepStatus, StepTarget, StepType, SYNTHETIC_STEP_INDEX_BASE } from "../step.js";
import type { StreamChunk, ToolCall, UsageMetadata } from "../step.js";
import { Conversation, DEFAULT_MAX_HISTORY_SIZE } from "./conversation.js";
import { addUsage, sumUsage } from "../usage.js";

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of iterable) out.push(v);
  return out;
}

const call = (id: string, name = "run_command"): ToolCall => ({ id, name, args: { command: "ls" } });
const usage = (total: number, prompt = 0): UsageMetadata => ({
  ...emptyUsage(),
  totalTokenCount: total,
  promptTokenCount: prompt,
});

function conversationOf(turns: MockTurn[], maxHistorySize?: number) {
  const connection = createMockConnection({ turns });
  const conversation = new Conversation(connection, maxHistorySize === undefined ? {} : { maxHistorySize });
  return { connection, conversation };
}

describe("Conversation.chat", () => {
  it("streams chunks by the seed rules: thought, text, de-duplicated tool calls, no ENVIRONMENT steps", async () => {
    const { conversation } = conversationOf([
      {
        steps: [
          { stepIndex: 1, thinkingDelta: "Let me think", status: StepStatus.Active },
          { stepIndex: 1, thinkingDelta: "." },
          { stepIndex: 2, contentDelta: "Hel", status: StepStatus.Active },
          { stepIndex: 2, contentDelta: "lo" },
          { stepIndex: 3, toolCalls: [call("c1")], status: StepStatus.Active },
          { stepIndex: 3, toolCalls: [call("c1")], status: StepStatus.Done },
          { stepIndex: 4, toolCalls: [call(""), call("")] },
          {
            stepIndex: SYNTHETIC_STEP_INDEX_BASE,
            target: StepTarget.Environment,
            contentDelta: "lookup",
            toolCalls: [call("c2")],
          },
          { stepIndex: 5, source: "USER", contentDelta: "user echo" },
        ],
      },
    ]);
    const chunks = await collect(conversation.chat("Say hello"));
    expect(chunks).toEqual<StreamChunk[]>([
      { type: "thought", stepIndex: 1, text: "Let me think" },
      { type: "thought", stepIndex: 1, text: "." },
      { type: "text", stepIndex: 2, text: "Hel" },
      { type: "text", stepIndex: 2, text: "lo" },
      { type: "toolCall", toolCall: call("c1") },
      { type: "toolCall", toolCall: call("") },
      { type: "toolCall", toolCall: call("") },
    ]);
  });

  it("de-duplicates tool calls per stream, not across turns", async () => {
    const { conversation } = conversationOf([
      { steps: [{ toolCalls: [call("same")] }] },
      { steps: [{ toolCalls: [call("same")] }] },
    ]);
    expect((await collect(conversation.chat("one"))).length).toBe(1);
    expect((await collect(conversation.chat("two"))).length).toBe(1);
  });

  it("sends at once, read or not; a blank prompt fails every view with InvalidArgument and sends nothing", async () => {
    const { connection, conversation } = conversationOf([
      { steps: [{ content: "unread" }] },
      { steps: [{ content: "next" }] },
    ]);
    conversation.chat("hello"); // never read
    expect((await conversation.chatToCompletion("again")).text).toBe("next");
    expect(connection.sent.prompts).toEqual(["hello", "again"]);
    expect((await conversation.history()).map((s) => s.content)).toEqual(["unread", "next"]);
    const blank = conversation.chat("   ");
    await expect(collect(blank)).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    await expect(blank.final()).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    await expect(collect(blank.events())).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    await expect(conversation.send("")).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    expect(connection.sent.prompts).toEqual(["hello", "again"]);
    expect(await conversation.turnCount()).toBe(2);
  });
});

describe("Conversation.chatToCompletion", () => {
  it("returns text, thinking, one step per id (latest state), structured output and stop reason", async () => {
    const { conversation } = conversationOf([
      {
        steps: [
          { stepIndex: 1, thinkingDelta: "Two plus two", status: StepStatus.Active },
          { stepIndex: 2, contentDelta: "It is ", status: StepStatus.Active },
          { stepIndex: 1, thinkingDelta: " is four." },
          { stepIndex: 2, contentDelta: "4." },
          { stepIndex: SYNTHETIC_STEP_INDEX_BASE, target: StepTarget.Environment, contentDelta: "ignored" },
          { stepIndex: 3, type: StepType.Finish, structuredOutput: { answer: 4 } },
        ],
        usage: usage(30, 10),
        stopReason: "MAX_MODEL_CALLS_EXCEEDED",
      },
    ]);
    const response = await conversation.chatToCompletion("What is 2 + 2?");
    expect(response.text).toBe("It is 4.");
    expect(response.thinking).toBe("Two plus two is four.");
    expect(response.steps.map((s) => [s.stepIndex, s.status])).toEqual([
      [1, StepStatus.Done],
      [2, StepStatus.Done],
      [SYNTHETIC_STEP_INDEX_BASE, StepStatus.Done],
      [3, StepStatus.Done],
    ]);
    expect(response.steps[1]?.content).toBe("It is 4.");
    expect(response.structuredOutput).toEqual({ answer: 4 });
    expect(response.stopReason).toBe("MAX_MODEL_CALLS_EXCEEDED");
    expect(response.usageMetadata).toEqual(usage(30, 10));
  });

  it("leaves structuredOutput and stopReason out when there are none", async () => {
    const { conversation } = conversationOf([{ steps: [{ content: "hi" }] }]);
    const response = await conversation.chatToCompletion("hi");
    expect("structuredOutput" in response).toBe(false);
    expect("stopReason" in response).toBe(false);
  });
});

describe("Conversation state", () => {
  it("records history one entry per step id, client-tool steps included, across turns", async () => {
    const { conversation } = conversationOf([
      {
        steps: [
          { stepIndex: 1, contentDelta: "a", status: StepStatus.Active },
          {
            id: "tool-1",
            stepIndex: SYNTHETIC_STEP_INDEX_BASE,
            target: StepTarget.Environment,
            toolCalls: [call("tool-1", "lookup")],
            status: StepStatus.Active,
          },
          { id: "tool-1", status: StepStatus.Done },
          { stepIndex: 1, contentDelta: "b" },
        ],
      },
      { steps: [{ content: "second" }] },
    ]);
    await conversation.chatToCompletion("one");
    await conversation.chatToCompletion("two");
    const history = await conversation.history();
    expect(history.map((s) => [s.id, s.status, s.content])).toEqual([
      ["mock-conversation:1", StepStatus.Done, "ab"],
      ["tool-1", StepStatus.Done, ""],
      ["mock-conversation:2", StepStatus.Done, "second"],
    ]);
    expect(await conversation.turnCount()).toBe(2);
    expect(await conversation.turnStartIndices()).toEqual([0, 2]);
    expect(await conversation.lastResponse()).toBe("second");
    // history() is a copy.
    history.length = 0;
    expect((await conversation.history()).length).toBe(3);
  });

  it("records compaction indices (§15)", async () => {
    const { conversation } = conversationOf([
      { steps: [{ content: "a" }, { type: StepType.Compaction }, { content: "b" }] },
      { steps: [{ type: StepType.Compaction }] },
    ]);
    await conversation.chatToCompletion("one");
    await conversation.chatToCompletion("two");
    expect(await conversation.compactionIndices()).toEqual([1, 3]);
  });

  it("lastResponse is the last complete response, '' before any", async () => {
    const { conversation } = conversationOf([
      { steps: [{ content: "first" }, { content: "draft", status: StepStatus.Active }, { thinking: "t" }] },
    ]);
    expect(await conversation.lastResponse()).toBe("");
    await conversation.chatToCompletion("go");
    expect(await conversation.lastResponse()).toBe("first");
  });

  it("starts from the connection's initial history on resume (not counted as turns)", async () => {
    const connection = createMockConnection({ initialHistory: [{ content: "before" }, { type: StepType.Compaction }] });
    const conversation = new Conversation(connection);
    expect((await conversation.history()).map((s) => s.content)).toEqual(["before", ""]);
    expect(await conversation.compactionIndices()).toEqual([1]);
    expect(await conversation.turnCount()).toBe(0);
  });

  it("clearHistory resets steps, turns, compactions and usage", async () => {
    const { connection, conversation } = conversationOf([
      { steps: [{ content: "a" }, { type: StepType.Compaction }], usage: usage(10) },
      { steps: [{ content: "b" }], usage: usage(7) },
    ]);
    await conversation.chatToCompletion("one");
    await conversation.clearHistory();
    expect(await conversation.history()).toEqual([]);
    expect(await conversation.turnCount()).toBe(0);
    expect(await conversation.turnStartIndices()).toEqual([]);
    expect(await conversation.compactionIndices()).toEqual([]);
    expect(await conversation.lastResponse()).toBe("");
    expect(await conversation.totalUsage()).toEqual(emptyUsage());
    expect(await conversation.lastTurnUsage()).toBeUndefined();
    expect(connection.usage.total.totalTokenCount).toBe(10);
    const r = await conversation.chatToCompletion("two");
    expect(r.usageMetadata.totalTokenCount).toBe(7);
    expect(await conversation.turnStartIndices()).toEqual([0]);
    expect(await conversation.turnCount()).toBe(1);
  });

  it("delegates conversationId, isIdle and connection", async () => {
    const connection = createMockConnection({
      conversationId: "c-9",
      turns: [{ steps: [{ content: "x" }], delayMs: 5 }],
    });
    const conversation = new Conversation(connection);
    expect(conversation.conversationId).toBe("c-9");
    expect(conversation.connection).toBe(connection);
    expect(conversation.isIdle).toBe(true);
    await conversation.send("go");
    expect(conversation.isIdle).toBe(false);
    await collect(conversation.receiveSteps());
    expect(conversation.isIdle).toBe(true);
  });

  it("send + receiveSteps / receiveChunks work as the raw API", async () => {
    const { conversation } = conversationOf([
      { steps: [{ content: "one" }] },
      { steps: [{ thinking: "t", content: "two" }] },
    ]);
    await conversation.send("a");
    const steps = await collect(conversation.receiveSteps());
    expect(steps.map((s) => s.content)).toEqual(["one"]);
    await conversation.send("b");
    expect(await collect(conversation.receiveChunks())).toEqual([
      { type: "thought", stepIndex: 1, text: "t" },
      { type: "text", stepIndex: 1, text: "two" },
    ]);
    expect(await conversation.turnCount()).toBe(2);
    // Reading when idle reads the last turn again, from its start; it is not a new turn.
    expect((await collect(conversation.receiveSteps())).map((s) => s.content)).toEqual(["two"]);
    expect(await conversation.turnCount()).toBe(2);
    expect(await conversation.lastTurnUsage()).toEqual(emptyUsage());
  });
});

describe("Conversation usage", () => {
  it("totalUsage follows the harness total; lastTurnUsage is the turn's difference", async () => {
    const connection = createMockConnection({
      initialUsage: usage(100, 50),
      turns: [
        { steps: [{ content: "a" }], usage: usage(30, 10) },
        { steps: [{ content: "b", usageMetadata: usage(999) }], usage: usage(5, 1) },
      ],
    });
    const conversation = new Conversation(connection);
    expect(await conversation.lastTurnUsage()).toBeUndefined();
    expect(await conversation.totalUsage()).toEqual(usage(100, 50)); // a resumed session's usage counts
    const one = await conversation.chatToCompletion("one");
    expect(await conversation.lastTurnUsage()).toEqual(usage(30, 10));
    const two = await conversation.chatToCompletion("two");
    expect(await conversation.lastTurnUsage()).toEqual(usage(5, 1)); // step usage ignored: the total moved
    expect(await conversation.totalUsage()).toEqual(usage(135, 61));
    // Per turn (upstream ChatResponse.usage_metadata) and per session after it (issue 25 item 3).
    expect([one.turnUsage, two.turnUsage]).toEqual([usage(30, 10), usage(5, 1)]);
    expect([one.usageMetadata, two.usageMetadata]).toEqual([usage(130, 60), usage(135, 61)]);
    expect(addUsage(usage(100, 50), sumUsage([one.turnUsage, two.turnUsage]))).toEqual(two.usageMetadata);
  });

  it("falls back to per-step usage (latest per step id) when the total does not move", async () => {
    const { conversation } = conversationOf([
      {
        steps: [
          { stepIndex: 1, usageMetadata: usage(3, 1), status: StepStatus.Active },
          { stepIndex: 1, usageMetadata: usage(4, 2) },
          { stepIndex: 2, usageMetadata: usage(10, 5) },
          { stepIndex: 3, content: "no usage" },
        ],
      },
      { steps: [{ usageMetadata: usage(6, 6) }] },
      { steps: [{ content: "nothing" }] },
    ]);
    await conversation.chatToCompletion("one");
    expect(await conversation.lastTurnUsage()).toEqual(usage(14, 7));
    await conversation.chatToCompletion("two");
    expect(await conversation.lastTurnUsage()).toEqual(usage(6, 6));
    expect(await conversation.totalUsage()).toEqual(usage(20, 13));
    await conversation.chatToCompletion("three");
    expect(await conversation.lastTurnUsage()).toEqual(emptyUsage());
  });
});

describe("Conversation maxHistorySize", () => {
  async function fill(max: number | undefined, steps: number): Promise<Conversation> {
    const { conversation } = conversationOf([{ steps: Array.from({ length: steps }, () => ({ content: "x" })) }], max);
    await conversation.chatToCompletion("go");
    return conversation;
  }

  it("defaults to 10,000", async () => {
    expect(DEFAULT_MAX_HISTORY_SIZE).toBe(10_000);
    const history = await (await fill(undefined, 10_005)).history();
    expect(history.length).toBe(10_000);
    expect(history[0]?.stepIndex).toBe(5);
  });

  it("0 means unlimited", async () => {
    expect((await (await fill(0, 10_050)).history()).length).toBe(10_050);
  });

  it("trims from the front, dropping turn starts that fall off", async () => {
    const { conversation } = conversationOf(
      [
        { steps: [{ content: "a" }, { content: "b" }] },
        { steps: [{ content: "c" }, { type: StepType.Compaction }] },
        { steps: [{ content: "e" }] },
      ],
      3,
    );
    for (const p of ["1", "2", "3"]) await conversation.chatToCompletion(p);
    const history = await conversation.history();
    expect(history.map((s) => s.stepIndex)).toEqual([2, 3, 4]);
    expect(await conversation.turnStartIndices()).toEqual([0, 2]);
    expect(await conversation.compactionIndices()).toEqual([1]);
    expect(await conversation.turnCount()).toBe(3);
  });

  it("rejects a negative or fractional size", () => {
    const connection = createMockConnection();
    expect(() => new Conversation(connection, { maxHistorySize: -1 })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    expect(() => new Conversation(connection, { maxHistorySize: 1.5 })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
  });

  it("property: over random turns, turn starts keep pointing at each turn's first step", async () => {
    let seed = 12345;
    const rand = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 4294967296;
    };
    for (let run = 0; run < 60; run++) {
      const max = 1 + Math.floor(rand() * 12);
      const turns: MockTurn[] = [];
      for (let t = 0; t < 8; t++) {
        const count = Math.floor(rand() * 6);
        turns.push({
          steps: Array.from({ length: count }, () => (rand() < 0.2 ? { type: StepType.Compaction } : { content: "s" })),
        });
      }
      const { conversation } = conversationOf(turns, max);
      const firstIds: (string | undefined)[] = [];
      for (const [t] of turns.entries()) {
        const r = await conversation.chatToCompletion(`turn ${t}`);
        firstIds.push(r.steps[0]?.id);
      }
      const history = await conversation.history();
      expect(history.length).toBeLessThanOrEqual(max);
      const starts = await conversation.turnStartIndices();
      const retained = firstIds.slice(firstIds.length - starts.length);
      starts.forEach((index, i) => {
        if (retained[i] !== undefined) expect(history[index]?.id).toBe(retained[i]);
      });
      for (const i of await conversation.compactionIndices()) expect(history[i]?.type).toBe(StepType.Compaction);
      expect(await conversation.turnCount()).toBe(8);
    }
  });
});
