import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { emptyUsage, StepSource, StepStatus, StepTarget, StepType } from "../types.js";
import type { Step } from "../types.js";
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
    expect([second.id, second.content, second.contentDelta, second.thinking, second.thinkingDelta]).toEqual(["mock-trajectory:3", "Hello", "lo", "a", ""]);
    const third = mockStep({ content: "Hello world" }, { previous: second });
    expect(third.contentDelta).toBe(" world");
  });
});

describe("createMockConnection", () => {
  it("plays a turn: steps, then idle, usage added, stop reason set", async () => {
    const c = createMockConnection({
      conversationId: "conv-1",
      initialUsage: { totalTokenCount: 5 },
      turns: [{ steps: [{ thinking: "hmm" }, { content: "Hi" }], usage: { promptTokenCount: 3, totalTokenCount: 10 }, stopReason: "QUOTA_EXHAUSTED" }],
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
    // Nothing more to read once idle.
    expect(await readAll(c.receiveSteps())).toEqual([]);
  });

  it("numbers steps across turns and turns repeated indices into updates", async () => {
    const c = createMockConnection({
      initialHistory: [{ content: "old" }],
      turns: [
        { steps: [{ stepIndex: 1, contentDelta: "He", status: StepStatus.Active }, { stepIndex: 1, contentDelta: "y" }] },
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

  it("refuses a send while a turn runs or when the script is exhausted", async () => {
    const c = createMockConnection({ turns: [{ steps: [{ content: "x" }] }] });
    await c.send("one");
    await expect(c.send("two")).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    await readAll(c.receiveSteps());
    await expect(c.send("three")).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition, message: expect.stringContaining("no scripted turn") });
    c.pushTurn({ steps: [] });
    await c.send("four");
    expect(c.sent.prompts).toEqual(["one", "four"]);
  });

  it("throws the turn's error after its steps, once", async () => {
    const error = new SdkError(ErrorCode.ExecutionError, "model exploded");
    const c = createMockConnection({ turns: [{ steps: [{ content: "partial" }], error, usage: { totalTokenCount: 4 } }] });
    await c.send("go");
    const r = await readUntilError(c.receiveSteps());
    expect(r.steps.length).toBe(1);
    expect(r.error).toBe(error);
    expect(c.isIdle).toBe(true);
    expect(c.usage.total.totalTokenCount).toBe(4);
    expect(await readAll(c.receiveSteps())).toEqual([]);
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
    const c = createMockConnection({ turns: [{ steps: [{ content: "a" }, { content: "b" }], delayMs: LONG, usage: { totalTokenCount: 2 } }] });
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

  it("a reader that broke out leaves the turn running; the next reader continues it", async () => {
    const c = createMockConnection({ turns: [{ steps: [{ content: "a" }, { content: "b" }, { content: "c" }] }] });
    await c.send("go");
    for await (const s of c.receiveSteps()) {
      expect(s.content).toBe("a");
      break;
    }
    expect(c.isIdle).toBe(false);
    expect((await readAll(c.receiveSteps())).map((s) => s.content)).toEqual(["b", "c"]);
    expect(c.isIdle).toBe(true);
  });

  it("allows one reader at a time", async () => {
    const c = createMockConnection({ turns: [{ steps: [{ content: "a" }], delayMs: LONG }] });
    await c.send("go");
    const first = c.receiveSteps()[Symbol.asyncIterator]();
    const pending = first.next();
    await expect(readAll(c.receiveSteps())).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    await c.halt();
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.Canceled });
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
    await expect(readAll(c.receiveSteps({ signal: AbortSignal.abort() }))).rejects.toMatchObject({ code: ErrorCode.Canceled });
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
    const c = createMockConnection({ turns: [{ steps: [{ content: "a" }, { content: "b" }], delayMs: LONG }, { steps: [] }] });
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
