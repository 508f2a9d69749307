import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { emptyUsage, StepSource, StepStatus, StepTarget, StepType } from "../step.js";
import type { Step } from "../step.js";
import type { Turn } from "../connection/turn.js";
import { createMockConnection, mockStep } from "./index.js";

async function readAll(steps: AsyncIterable<Step>): Promise<Step[]> {
  const out: Step[] = [];
  for await (const s of steps) out.push(s);
  return out;
}

async function readUntilError(steps: AsyncIterable<Step>): Promise<{ steps: Step[]; error: unknown }> {
  const out: Step[] = [];
  try {
    for await (const s of steps) out.push(s);
  } catch (error) {
    return { steps: out, error };
  }
  return { steps: out, error: undefined };
}

const LONG = 60_000;

describe("mockStep", () => {
  it("fills sane defaults", () => {
    const s = mockStep({ content: "Hello" });
    expect(s).toMatchObject({
      id: "mock-trajectory:0",
      stepIndex: 0,
      type: StepType.TextResponse,
      source: StepSource.Model,
      target: StepTarget.User,
      status: StepStatus.Done,
      content: "Hello",
      contentDelta: "Hello",
      thinking: "",
      thinkingDelta: "",
      toolCalls: [],
      error: "",
      isCompleteResponse: true,
      cascadeId: "mock-trajectory",
      trajectoryId: "mock-trajectory",
      parentTrajectoryId: "",
      httpCode: 0,
    });
    expect("structuredOutput" in s).toBe(false);
  });

  it("infers the type and isCompleteResponse like §6.4", () => {
    expect(mockStep({ toolCalls: [{ id: "a", name: "x", args: {} }] }).type).toBe(StepType.ToolCall);
    expect(mockStep({ thinking: "t" }).type).toBe(StepType.Thinking);
    expect(mockStep({}).type).toBe(StepType.Unknown);
    expect(mockStep({ content: "x", status: StepStatus.Active }).isCompleteResponse).toBe(false);
    expect(mockStep({ content: "x", target: StepTarget.Environment }).isCompleteResponse).toBe(false);
    expect(mockStep({ content: "x", source: StepSource.System }).isCompleteResponse).toBe(false);
  });

  it("accumulates text over the previous update", () => {
    const first = mockStep({ contentDelta: "Hel", thinkingDelta: "a", status: StepStatus.Active }, { stepIndex: 3 });
    const second = mockStep({ contentDelta: "lo" }, { previous: first });
    expect([second.id, second.content, second.contentDelta, second.thinking, second.thinkingDelta]).toEqual([
      "mock-trajectory:3",
      "Hello",
      "lo",
      "a",
      "",
    ]);
    const third = mockStep({ content: "Hello world" }, { previous: second });
    expect(third.contentDelta).toBe(" world");
  });
});

describe("createMockConnection", () => {
  it("plays a turn: steps, then idle, usage added, stop reason set", async () => {
    const c = createMockConnection({
      conversationId: "conv-1",
      initialUsage: { totalTokenCount: 5 },
      turns: [
        {
          steps: [{ thinking: "hmm" }, { content: "Hi" }],
          usage: { promptTokenCount: 3, totalTokenCount: 10 },
          stopReason: "QUOTA_EXHAUSTED",
          delayMs: 1,
        },
      ],
    });
    expect(c.isIdle).toBe(true);
    await c.send("hello");
    expect(c.isIdle).toBe(false);
    expect(c.lastStopReason).toBeUndefined();
    const steps = await readAll(c.receiveSteps());
    expect(steps.map((s) => s.id)).toEqual(["conv-1:0", "conv-1:1"]);
    expect(steps[0]?.trajectoryId).toBe("conv-1");
    expect(c.isIdle).toBe(true);
    expect(c.usage.total).toEqual({ ...emptyUsage(), promptTokenCount: 3, totalTokenCount: 15 });
    expect(c.usage.byTrajectory.get("conv-1")?.totalTokenCount).toBe(15);
    expect(c.lastStopReason).toBe("QUOTA_EXHAUSTED");
    expect(c.sent.prompts).toEqual(["hello"]);
    // Once idle, a reader reads the last turn again from its start.
    expect((await readAll(c.receiveSteps())).map((s) => s.id)).toEqual(["conv-1:0", "conv-1:1"]);
  });

  it("numbers steps across turns and turns repeated indices into updates", async () => {
    const c = createMockConnection({
      initialHistory: [{ content: "old" }],
      turns: [
        {
          steps: [
            { stepIndex: 1, contentDelta: "He", status: StepStatus.Active },
            { stepIndex: 1, contentDelta: "y" },
          ],
        },
        { steps: [{ content: "next" }] },
      ],
    });
    expect(c.initialHistory.map((s) => s.id)).toEqual(["mock-conversation:0"]);
    await c.send("a");
    const first = await readAll(c.receiveSteps());
    expect(first.map((s) => [s.id, s.content, s.contentDelta, s.status])).toEqual([
      ["mock-conversation:1", "He", "He", StepStatus.Active],
      ["mock-conversation:1", "Hey", "y", StepStatus.Done],
    ]);
    await c.send("b");
    expect((await readAll(c.receiveSteps()))[0]?.stepIndex).toBe(2);
  });

  it("rejects blank prompts with InvalidArgument, and records nothing", async () => {
    const c = createMockConnection({ turns: [{ steps: [] }] });
    for (const prompt of ["", "  \n\t", [], [{ text: " " }]]) {
      await expect(c.send(prompt)).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    }
    expect(c.sent.prompts).toEqual([]);
    expect(c.remainingTurns).toBe(1);
    await c.send([{ text: " " }, { slashCommand: "plan" }]);
    expect(c.sent.prompts.length).toBe(1);
  });

  it("waits in send() for a running turn, bounded by its signal; refuses when the script is exhausted", async () => {
    const c = createMockConnection({
      turns: [{ steps: [{ content: "x" }], untilHalted: true }, { steps: [{ content: "y" }] }],
    });
    await c.send("one");
    await expect(c.send("two", { timeoutMs: 5 })).rejects.toMatchObject({ code: ErrorCode.DeadlineExceeded });
    const sending = c.send("three");
    await c.halt();
    await sending;
    expect(c.sent.prompts).toEqual(["one", "three"]);
    await readAll(c.receiveSteps());
    await expect(c.send("four")).rejects.toMatchObject({
      code: ErrorCode.FailedPrecondition,
      message: expect.stringContaining("no scripted turn"),
    });
    c.pushTurn({ steps: [] });
    await c.send("five");
    expect(c.sent.prompts).toEqual(["one", "three", "five"]);
  });

  it("every reader throws the turn's error after its steps", async () => {
    const error = new SdkError(ErrorCode.ExecutionError, "model exploded");
    const c = createMockConnection({
      turns: [{ steps: [{ content: "partial" }], error, usage: { totalTokenCount: 4 } }],
    });
    await c.send("go");
    const r = await readUntilError(c.receiveSteps());
    expect(r.steps.length).toBe(1);
    expect(r.error).toBe(error);
    expect(c.isIdle).toBe(true);
    expect(c.usage.total.totalTokenCount).toBe(4);
    expect(await readUntilError(c.receiveSteps())).toEqual({ steps: r.steps, error });
  });

  it("records everything sent", async () => {
    const c = createMockConnection();
    await c.sendToolResponse({ id: "t1", name: "lookup", result: { ok: true } });
    await c.sendToolConfirmation("traj", 4, false);
    await c.sendQuestionResponse("traj", 5, { cancelled: true });
    await c.sendTrigger("wake up");
    await c.halt();
    expect(c.sent).toEqual({
      prompts: [],
      toolResponses: [{ id: "t1", name: "lookup", result: { ok: true } }],
      confirmations: [{ trajectoryId: "traj", stepIndex: 4, accepted: false }],
      questionResponses: [{ trajectoryId: "traj", stepIndex: 5, response: { cancelled: true } }],
      halts: 1,
      triggers: ["wake up"],
    });
  });

  it("halt ends the running turn: the reader throws Canceled, even while waiting in delayMs", async () => {
    const c = createMockConnection({
      turns: [{ steps: [{ content: "a" }, { content: "b" }], delayMs: LONG, usage: { totalTokenCount: 2 } }],
    });
    await c.send("go");
    const reading = readUntilError(c.receiveSteps());
    await c.halt();
    const r = await reading;
    expect(r.steps).toEqual([]);
    expect(r.error).toMatchObject({ code: ErrorCode.Canceled });
    expect(c.isIdle).toBe(true);
    expect(c.usage.total.totalTokenCount).toBe(2);
    expect(c.sent.halts).toBe(1);
  });

  it("plays a turn read or not; readers are independent cursors, each from the start", async () => {
    const c = createMockConnection({
      turns: [{ steps: [{ content: "a" }, { content: "b" }, { content: "c" }], delayMs: 2 }],
    });
    await c.send("go");
    for await (const s of c.receiveSteps()) {
      expect(s.content).toBe("a");
      break; // leaves this reader only
    }
    expect(c.isIdle).toBe(false);
    const [one, two] = await Promise.all([readAll(c.receiveSteps()), readAll(c.receiveSteps())]);
    expect(one.map((s) => s.content)).toEqual(["a", "b", "c"]);
    expect(two).toEqual(one);
    expect(c.isIdle).toBe(true);
  });

  it("tells its observer of every turn as it starts, a turn it plays on its own included", async () => {
    const c = createMockConnection({ turns: [{ steps: [{ content: "sent" }] }] });
    const started: Turn[] = [];
    c.observeTurns({ turnStarted: (turn) => started.push(turn) });
    expect(() => c.observeTurns({ turnStarted: () => undefined })).toThrow(
      expect.objectContaining({ code: ErrorCode.FailedPrecondition }),
    );
    await c.send("go");
    await started[0]?.over();
    c.startTurn({ steps: [{ content: "a trigger's answer" }] });
    expect(() => c.startTurn({ steps: [] })).toThrow(expect.objectContaining({ code: ErrorCode.FailedPrecondition }));
    expect((await readAll(c.receiveSteps())).map((s) => s.content)).toEqual(["a trigger's answer"]);
    expect(started.map((t) => t.solicited)).toEqual([true, false]);
    expect(c.sent.prompts).toEqual(["go"]);
  });

  it("sends late updates and late usage after the turn ended", async () => {
    const c = createMockConnection({
      turns: [
        {
          steps: [{ stepIndex: 1, content: "almost", status: StepStatus.Active }],
          lateSteps: [{ stepIndex: 1, content: "almost done" }],
          lateUsage: { totalTokenCount: 3 },
        },
      ],
    });
    const late: Step[] = [];
    c.observeTurns({
      turnStarted: (turn) =>
        turn.record({ step: () => undefined, ending: () => undefined, late: (step) => late.push(step) }),
    });
    await c.send("go");
    expect((await readAll(c.receiveSteps())).map((s) => s.status)).toEqual([StepStatus.Active]);
    while (late.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(late.map((s) => [s.id, s.content, s.status])).toEqual([
      ["mock-conversation:1", "almost done", StepStatus.Done],
    ]);
    expect(c.usage.total.totalTokenCount).toBe(3);
  });

  it("honours signal and timeoutMs on receiveSteps without ending the turn", async () => {
    const c = createMockConnection({ turns: [{ steps: [{ content: "a" }], delayMs: LONG }] });
    await c.send("go");
    const timedOut = await readUntilError(c.receiveSteps({ timeoutMs: 5 }));
    expect(timedOut.error).toMatchObject({ code: ErrorCode.DeadlineExceeded });
    const controller = new AbortController();
    const reading = readUntilError(c.receiveSteps({ signal: controller.signal }));
    controller.abort();
    expect((await reading).error).toMatchObject({ code: ErrorCode.Canceled });
    expect(c.isIdle).toBe(false);
    await expect(readAll(c.receiveSteps({ signal: AbortSignal.abort() }))).rejects.toMatchObject({
      code: ErrorCode.Canceled,
    });
  });

  it("honours signal and timeoutMs on requests; an aborted send sends nothing", async () => {
    const c = createMockConnection({ turns: [{ steps: [] }], latencyMs: LONG });
    await expect(c.send("go", { timeoutMs: 5 })).rejects.toMatchObject({ code: ErrorCode.DeadlineExceeded });
    await expect(c.halt({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: ErrorCode.Canceled });
    await expect(c.sendTrigger("x", { timeoutMs: 1 })).rejects.toMatchObject({ code: ErrorCode.DeadlineExceeded });
    expect(c.sent.prompts).toEqual([]);
    expect(c.sent.halts).toBe(0);
    expect(c.remainingTurns).toBe(1);
  });

  it("disconnect fails later calls and running readers with ConnectionClosed; it is idempotent", async () => {
    const c = createMockConnection({
      turns: [{ steps: [{ content: "a" }, { content: "b" }], delayMs: LONG }, { steps: [] }],
    });
    await c.send("go");
    const reading = readUntilError(c.receiveSteps());
    await c.disconnect();
    expect((await reading).error).toMatchObject({ code: ErrorCode.ConnectionClosed });
    expect(c.closed).toBe(true);
    await c.disconnect();
    await expect(c.send("again")).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await expect(c.halt()).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await expect(readAll(c.receiveSteps())).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });
});
