import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { createMockConnection } from "../testing/index.js";
import type { MockConnection, MockTurn } from "../testing/index.js";
import { emptyUsage, StepSource, StepStatus, StepTarget } from "../step.js";
import type { Step } from "../step.js";
import { Conversation } from "./conversation.js";

const LONG = 60_000;

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of iterable) out.push(v);
  return out;
}

function setup(turns: MockTurn[], latencyMs = 0): { connection: MockConnection; conversation: Conversation } {
  const connection = createMockConnection({ turns, latencyMs });
  return { connection, conversation: new Conversation(connection) };
}

/** Waits until the connection has no turn running (the background recording finished it). */
async function settled(conversation: Conversation): Promise<void> {
  await conversation.send("probe").catch(() => undefined);
}

describe("aborting a chat", () => {
  it("signal while waiting for a step: Canceled, halt sent, the next turn works", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "never" }], delayMs: LONG },
      { steps: [{ content: "next" }] },
    ]);
    const controller = new AbortController();
    const iterator = conversation.chat("go", { signal: controller.signal })[Symbol.asyncIterator]();
    const pending = iterator.next();
    // Let the send go out and the read start, then abort.
    while (connection.sent.prompts.length === 0) await new Promise((r) => setTimeout(r, 0));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.Canceled });
    expect(connection.sent.halts).toBe(1);
    expect(await conversation.history()).toEqual([]);
    const response = await conversation.chatToCompletion("again");
    expect(response.text).toBe("next");
    expect(connection.sent.halts).toBe(1);
    expect(await conversation.turnCount()).toBe(2);
  });

  it("signal between chunks halts at once; history keeps what arrived", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "a" }, { content: "b" }, { content: "c" }], delayMs: 20 },
      { steps: [] },
    ]);
    const controller = new AbortController();
    const seen: string[] = [];
    const run = async (): Promise<void> => {
      for await (const chunk of conversation.chat("go", { signal: controller.signal })) {
        if (chunk.type === "text") seen.push(chunk.text);
        controller.abort();
        await new Promise((r) => setTimeout(r, 0));
        expect(connection.sent.halts).toBe(1); // halted before the loop asked for more
      }
    };
    await expect(run()).rejects.toMatchObject({ code: ErrorCode.Canceled });
    expect(seen).toEqual(["a"]);
    await conversation.chatToCompletion("after");
    expect((await conversation.history()).map((s) => s.content)).toEqual(["a"]);
    expect(await conversation.turnStartIndices()).toEqual([0, 1]);
  });

  it("timeoutMs mid-turn: DeadlineExceeded and halt sent", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "slow" }], delayMs: LONG, usage: { totalTokenCount: 3 } },
    ]);
    await expect(collect(conversation.chat("go", { timeoutMs: 20 }))).rejects.toMatchObject({
      code: ErrorCode.DeadlineExceeded,
    });
    expect(connection.sent.halts).toBe(1);
    await settled(conversation);
    expect(conversation.isIdle).toBe(true);
    expect(await conversation.lastTurnUsage()).toEqual({ ...emptyUsage(), totalTokenCount: 3 });
  });

  it("an abort cancels a chat's turn, but only stops a reader of receiveSteps (as on a Connection)", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "x" }], delayMs: LONG },
      { steps: [{ content: "y" }, { content: "z" }], delayMs: 50 },
    ]);
    await expect(conversation.chatToCompletion("one", { timeoutMs: 10 })).rejects.toMatchObject({
      code: ErrorCode.DeadlineExceeded,
    });
    expect(connection.sent.halts).toBe(1);
    await conversation.send("two");
    await expect(collect(conversation.receiveSteps({ timeoutMs: 10 }))).rejects.toMatchObject({
      code: ErrorCode.DeadlineExceeded,
    });
    expect(connection.sent.halts).toBe(1);
    // The turn ran on: a new reader reads it whole.
    expect((await collect(conversation.receiveSteps())).map((s) => s.content)).toEqual(["y", "z"]);
  });

  it("an already aborted signal sends nothing and halts nothing", async () => {
    const { connection, conversation } = setup([{ steps: [] }]);
    await expect(collect(conversation.chat("go", { signal: AbortSignal.abort() }))).rejects.toMatchObject({
      code: ErrorCode.Canceled,
    });
    expect(connection.sent.prompts).toEqual([]);
    expect(connection.sent.halts).toBe(0);
    expect(await conversation.turnCount()).toBe(0);
  });

  it("a send that times out starts no turn and sends no halt", async () => {
    const { connection, conversation } = setup([{ steps: [] }], LONG);
    await expect(conversation.chatToCompletion("go", { timeoutMs: 10 })).rejects.toMatchObject({
      code: ErrorCode.DeadlineExceeded,
    });
    expect(connection.sent.prompts).toEqual([]);
    expect(connection.sent.halts).toBe(0);
    expect(await conversation.turnCount()).toBe(0);
  });
});

describe("breaking out of a stream", () => {
  it("records the rest of the turn in background; the next turn works", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "a" }, { content: "b" }, { content: "c" }], usage: { totalTokenCount: 9 }, delayMs: 1 },
      { steps: [{ content: "d" }] },
    ]);
    for await (const chunk of conversation.chat("one")) {
      expect(chunk).toEqual({ type: "text", stepIndex: 0, text: "a" });
      break;
    }
    expect(connection.sent.halts).toBe(0); // breaking out does not stop the turn
    const next = await collect(conversation.chat("two")); // waits for the first turn to be recorded
    expect(next.map((c) => (c.type === "text" ? c.text : c.type))).toEqual(["d"]); // the unread rest is not replayed
    expect((await conversation.history()).map((s) => s.content)).toEqual(["a", "b", "c", "d"]);
    expect(await conversation.turnStartIndices()).toEqual([0, 3]);
    expect(await conversation.totalUsage()).toEqual({ ...emptyUsage(), totalTokenCount: 9 });
  });

  it("from receiveSteps too; a later read reads the whole turn again from its start", async () => {
    const { conversation } = setup([{ steps: [{ content: "a" }, { content: "b" }], delayMs: 1 }]);
    await conversation.send("go");
    for await (const step of conversation.receiveSteps()) {
      expect(step.content).toBe("a");
      break;
    }
    expect((await collect(conversation.receiveSteps())).map((s) => s.content)).toEqual(["a", "b"]);
    expect((await conversation.history()).map((s) => s.content)).toEqual(["a", "b"]);
    expect(conversation.isIdle).toBe(true);
  });

  it("a background turn that fails is over; its error reaches no one and the next turn works", async () => {
    const error = new SdkError(ErrorCode.ExecutionError, "boom");
    const { conversation } = setup([
      { steps: [{ content: "a" }, { content: "b" }], error },
      { steps: [{ content: "ok" }] },
    ]);
    for await (const _ of conversation.chat("one")) break;
    expect((await conversation.chatToCompletion("two")).text).toBe("ok");
    expect((await conversation.history()).map((s) => s.content)).toEqual(["a", "b", "ok"]);
  });
});

describe("error turns and misuse", () => {
  it("a failing turn throws its SdkError; history keeps its steps; usage is counted", async () => {
    const error = new SdkError(ErrorCode.ExecutionError, "model exploded");
    const { conversation } = setup([
      { steps: [{ content: "partial" }], error, usage: { totalTokenCount: 2 } },
      { steps: [{ content: "fine" }] },
    ]);
    await expect(conversation.chatToCompletion("one")).rejects.toBe(error);
    expect((await conversation.history()).map((s) => s.content)).toEqual(["partial"]);
    expect(await conversation.lastTurnUsage()).toEqual({ ...emptyUsage(), totalTokenCount: 2 });
    expect((await conversation.chatToCompletion("two")).text).toBe("fine");
    expect(await conversation.turnCount()).toBe(2);
  });

  it("a second reader of a running turn reads it too; a send meanwhile waits for the turn to end", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "a" }, { content: "b" }], delayMs: 5 },
      { steps: [{ content: "c" }] },
    ]);
    const first = collect(conversation.chat("go"));
    while (connection.sent.prompts.length === 0) await new Promise((r) => setTimeout(r, 0));
    const second = collect(conversation.receiveSteps());
    const sending = conversation.send("more");
    expect((await second).map((s) => s.content)).toEqual(["a", "b"]);
    expect((await first).map((c) => (c.type === "text" ? c.text : c.type))).toEqual(["a", "b"]);
    await sending;
    expect(connection.sent.prompts).toEqual(["go", "more"]);
    expect((await collect(conversation.receiveSteps())).map((s) => s.content)).toEqual(["c"]);
  });

  it("running out of scripted turns surfaces the connection's FailedPrecondition", async () => {
    const { conversation } = setup([]);
    await expect(conversation.chatToCompletion("x")).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    expect(await conversation.turnCount()).toBe(0);
  });
});

describe("listeners", () => {
  it("leaves no listener on the caller's signal after completed, broken-out and aborted streams", async () => {
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((type: string, fn: EventListener, o?: AddEventListenerOptions) => {
      listeners++;
      add(type, fn, o);
    }) as typeof controller.signal.addEventListener;
    controller.signal.removeEventListener = ((type: string, fn: EventListener) => {
      listeners--;
      remove(type, fn);
    }) as typeof controller.signal.removeEventListener;
    const { conversation } = setup([
      { steps: [{ content: "a" }] },
      { steps: [{ content: "b" }, { content: "c" }] },
      { steps: [{ content: "d" }], delayMs: LONG },
    ]);
    const signal = controller.signal;
    await conversation.chatToCompletion("one", { signal, timeoutMs: LONG });
    expect(listeners).toBe(0);
    for await (const _ of conversation.chat("two", { signal })) break;
    expect(listeners).toBe(0);
    await expect(conversation.chatToCompletion("three", { signal, timeoutMs: 5 })).rejects.toMatchObject({
      code: ErrorCode.DeadlineExceeded,
    });
    expect(listeners).toBe(0);
  });
});

describe("disconnect", () => {
  it("closes the connection; a turn reading in background ends; later chats fail ConnectionClosed", async () => {
    const { connection, conversation } = setup([{ steps: [{ content: "a" }, { content: "b" }], delayMs: LONG }]);
    await conversation.send("go");
    const reading = collect(conversation.receiveSteps());
    await conversation.disconnect();
    await expect(reading).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    expect(connection.closed).toBe(true);
    await conversation.disconnect();
    await expect(conversation.chatToCompletion("again")).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });

  it("await using disconnects", async () => {
    const connection = createMockConnection();
    {
      await using conversation = new Conversation(connection);
      expect(conversation.conversationId).toBe("mock-conversation");
    }
    expect(connection.closed).toBe(true);
  });
});

describe("cancellation keeps a well-formed history (seed 002)", () => {
  const call = { id: "tool-1", name: "lookup", args: { q: "x" } };
  const clientTool = (status: StepStatus): Partial<Step> => ({
    id: "tool-1",
    stepIndex: 50_000,
    target: StepTarget.Environment,
    toolCalls: [call],
    status,
  });

  it("stream.abort(): every view ends at once with Canceled, one halt, steps and late usage kept, open client calls closed, next turn works", async () => {
    const { connection, conversation } = setup([
      {
        steps: [
          { stepIndex: 1, toolCalls: [call], status: StepStatus.Active },
          clientTool(StepStatus.Active),
          { stepIndex: 2, content: "meanwhile" },
        ],
        untilHalted: true,
        usage: { totalTokenCount: 5 },
        lateUsage: { totalTokenCount: 2 },
      },
      { steps: [{ content: "next" }] },
    ]);
    const stream = conversation.chat("go");
    const chunks = stream[Symbol.asyncIterator]();
    expect(await chunks.next()).toMatchObject({ value: { type: "toolCall" } });
    const steps = stream.steps();
    const events = stream.events();
    const final = stream.final();
    const over = stream.abort("user pressed stop");
    await expect(chunks.next()).rejects.toMatchObject({ code: ErrorCode.Canceled, message: "user pressed stop" });
    await expect(steps.next()).rejects.toMatchObject({ code: ErrorCode.Canceled }); // even with steps unread
    await expect(collect(events)).rejects.toMatchObject({ code: ErrorCode.Canceled });
    await expect(final).rejects.toMatchObject({ code: ErrorCode.Canceled });
    await over;
    await stream.abort(); // again: nothing more
    expect(connection.sent.halts).toBe(1);
    expect((await conversation.history()).map((s) => [s.id, s.status, s.error])).toEqual([
      ["mock-conversation:1", StepStatus.Error, "(cancelled)"], // the harness closes its own steps on a halt; the mock does not
      ["tool-1", StepStatus.Error, "(cancelled)"],
      ["mock-conversation:2", StepStatus.Done, ""],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the late usage report
    expect((await conversation.lastTurnUsage())?.totalTokenCount).toBe(7);
    expect((await conversation.totalUsage()).totalTokenCount).toBe(7);
    expect((await conversation.chatToCompletion("again")).text).toBe("next");
    expect((await conversation.lastTurnUsage())?.totalTokenCount).toBe(0);
    expect((await conversation.totalUsage()).totalTokenCount).toBe(7);
  });

  it("conversation.cancel() ends the views of a turn nobody reads; resolves when it is over; without a turn it does nothing", async () => {
    const { connection, conversation } = setup([{ steps: [{ content: "a" }], untilHalted: true }]);
    await conversation.cancel();
    expect(connection.sent.halts).toBe(0);
    const stream = conversation.chat("go");
    await new Promise((resolve) => setTimeout(resolve, 1));
    const reading = collect(stream);
    await conversation.cancel();
    await expect(reading).rejects.toMatchObject({
      code: ErrorCode.Canceled,
      message: expect.stringContaining("cancel()"),
    });
    expect(conversation.isIdle).toBe(true);
    expect(connection.sent.halts).toBe(1);
    expect((await conversation.history()).map((s) => s.content)).toEqual(["a"]);
  });

  it("cancelIncludingUser() also removes the turn, its prompt and late updates from this client's history", async () => {
    const { conversation } = setup([
      { steps: [{ content: "kept" }] },
      {
        steps: [
          { stepIndex: 1, source: StepSource.User, content: "the prompt" },
          { stepIndex: 2, content: "partial", status: StepStatus.Active },
        ],
        untilHalted: true,
        lateSteps: [{ stepIndex: 2, content: "partial and late" }],
      },
      { steps: [{ stepIndex: 3, content: "after" }] },
    ]);
    await conversation.chatToCompletion("one");
    const stream = conversation.chat("two");
    await new Promise((resolve) => setTimeout(resolve, 2));
    await conversation.cancelIncludingUser();
    await expect(stream.final()).rejects.toMatchObject({ code: ErrorCode.Canceled });
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect((await conversation.history()).map((s) => s.content)).toEqual(["kept"]);
    expect(await conversation.turnCount()).toBe(1);
    expect(await conversation.turnStartIndices()).toEqual([0]);
    expect((await conversation.chatToCompletion("three")).text).toBe("after");
    expect((await conversation.history()).map((s) => s.content)).toEqual(["kept", "after"]);
    expect(await conversation.turnStartIndices()).toEqual([0, 1]);
  });

  it("a cancel racing the natural end is harmless: after the end it sends no halt and changes nothing", async () => {
    const { connection, conversation } = setup([{ steps: [{ content: "whole" }] }, { steps: [{ content: "next" }] }]);
    const stream = conversation.chat("go");
    const response = await stream.final();
    await stream.abort();
    await conversation.cancel();
    await conversation.cancelIncludingUser();
    expect(connection.sent.halts).toBe(0);
    expect(await stream.final()).toBe(response);
    expect(await collect(stream)).toEqual([{ type: "text", stepIndex: 0, text: "whole" }]);
    expect((await conversation.chatToCompletion("again")).text).toBe("next");
    expect((await conversation.history()).map((s) => s.content)).toEqual(["whole", "next"]);
  });

  it("abort while the prompt waits for the running turn: nothing is sent, nothing halted", async () => {
    const { connection, conversation } = setup([{ steps: [{ content: "a" }], delayMs: 10 }, { steps: [] }]);
    const first = conversation.chat("one");
    const second = conversation.chat("two");
    await second.abort();
    await expect(second.final()).rejects.toMatchObject({ code: ErrorCode.Canceled });
    await first.final();
    expect(connection.sent.prompts).toEqual(["one"]);
    expect(connection.sent.halts).toBe(0);
    expect(connection.remainingTurns).toBe(1);
  });

  it("a turn that fails closes its unfinished steps as (cancelled)", async () => {
    const error = new SdkError(ErrorCode.ConnectionClosed, "dropped");
    const { conversation } = setup([
      { steps: [{ stepIndex: 1, content: "half", status: StepStatus.Active }, clientTool(StepStatus.Active)], error },
    ]);
    await expect(conversation.chatToCompletion("go")).rejects.toBe(error);
    expect((await conversation.history()).map((s) => [s.status, s.error, s.content])).toEqual([
      [StepStatus.Error, "(cancelled)", "half"],
      [StepStatus.Error, "(cancelled)", ""],
    ]);
  });

  it("leaves no listener on the caller's signal after views, events, byte streams, aborts and cancels", async () => {
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((type: string, fn: EventListener, o?: AddEventListenerOptions) => (
      listeners++, add(type, fn, o)
    )) as typeof add;
    controller.signal.removeEventListener = ((type: string, fn: EventListener) => (
      listeners--, remove(type, fn)
    )) as typeof remove;
    const signal = controller.signal;
    const { conversation } = setup([
      { steps: [{ content: "a" }] },
      { steps: [{ content: "b" }], untilHalted: true },
      { steps: [{ content: "c" }] },
      { steps: [{ content: "d" }] },
    ]);
    await collect(conversation.chat("one", { signal }).events());
    expect(listeners).toBe(0);
    const aborted = conversation.chat("two", { signal });
    await aborted.abort(); // before the prompt went out: it takes no scripted turn
    expect(listeners).toBe(0);
    const cancelled = conversation.chat("three", { signal, timeoutMs: LONG });
    await new Promise((resolve) => setTimeout(resolve, 1));
    await conversation.cancel({ signal });
    await cancelled.final().catch(() => undefined);
    expect(listeners).toBe(0);
    await new Response(conversation.chat("four", { signal }).toReadableStream()).text();
    expect(listeners).toBe(0);
    await collect(conversation.receiveSteps({ signal }));
    for await (const _ of conversation.chat("five", { signal }).steps()) break;
    await conversation.chatToCompletion("probe", { signal }).catch(() => undefined);
    expect(listeners).toBe(0);
  });
});
