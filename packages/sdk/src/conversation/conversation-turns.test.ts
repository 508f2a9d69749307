import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { createMockConnection } from "../testing/index.js";
import type { MockTurn } from "../testing/index.js";
import { StepSource, StepStatus, StepTarget } from "../step.js";
import type { Step } from "../step.js";
import type { ChatStream } from "./chat-stream.js";
import { Conversation } from "./conversation.js";

// Every turn is recorded where it is produced: sent or not, read or not (issue 9 item 1).

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of iterable) out.push(v);
  return out;
}

function setup(turns: MockTurn[] = []) {
  const connection = createMockConnection({ turns });
  return { connection, conversation: new Conversation(connection) };
}

const contents = (steps: Step[]): string[] => steps.map((s) => s.content);

describe("turns nobody reads", () => {
  it("a send() never read is recorded before the next send() (history shows the first reply, turnCount 2)", async () => {
    const { conversation } = setup([
      { steps: [{ content: "first reply" }], delayMs: 3 },
      { steps: [{ content: "second reply" }] },
    ]);
    await conversation.send("one");
    await conversation.send("two");
    await conversation.cancel(); // no-op once over; here it waits for nothing
    expect(contents(await collect(conversation.receiveSteps()))).toEqual(["second reply"]);
    expect(contents(await conversation.history())).toEqual(["first reply", "second reply"]);
    expect(await conversation.turnCount()).toBe(2);
    expect(await conversation.lastResponse()).toBe("second reply");
  });

  it("a turn the harness starts on its own (a trigger's) is recorded and counted", async () => {
    const { connection, conversation } = setup([{ steps: [{ content: "answer" }] }]);
    connection.startTurn({
      steps: [{ source: StepSource.User, content: "[automated trigger] ping" }, { content: "pong" }],
      usage: { totalTokenCount: 4 },
    });
    expect(await conversation.chatToCompletion("question")).toMatchObject({ text: "answer" });
    expect(contents(await conversation.history())).toEqual(["[automated trigger] ping", "pong", "answer"]);
    expect(await conversation.turnCount()).toBe(2);
    expect(await conversation.turnStartIndices()).toEqual([0, 2]);
    expect((await conversation.totalUsage()).totalTokenCount).toBe(4);
  });

  it("turns() yields every turn as it starts, the running one first, a trigger's included", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "a" }], delayMs: 5 },
      { steps: [{ content: "c" }] },
    ]);
    const sent = conversation.chat("one");
    await new Promise((resolve) => setTimeout(resolve, 1));
    const controller = new AbortController();
    const seen: string[] = [];
    const watching = (async () => {
      for await (const stream of conversation.turns({ signal: controller.signal })) {
        seen.push(...contents((await stream.final()).steps));
        if (seen.length === 3) break;
      }
    })();
    await sent.final();
    connection.startTurn({ steps: [{ content: "b" }] });
    await conversation.chatToCompletion("two");
    await watching;
    expect(seen).toEqual(["a", "b", "c"]);
    const aborted = collect(conversation.turns({ signal: controller.signal }));
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: ErrorCode.Canceled });
  });
});

describe("late updates", () => {
  it("an update after the turn ended updates that step in history and never reaches the next turn", async () => {
    const { conversation } = setup([
      {
        steps: [{ stepIndex: 1, contentDelta: "Hel", status: StepStatus.Active }],
        lateSteps: [{ stepIndex: 1, contentDelta: "lo" }],
      },
      { steps: [{ stepIndex: 2, content: "next" }] },
    ]);
    const first = await conversation.chatToCompletion("one");
    expect(first.steps.map((s) => [s.content, s.status])).toEqual([["Hel", StepStatus.Active]]);
    const second = conversation.chat("two");
    const [steps, response] = await Promise.all([collect(second.steps()), second.final()]);
    expect(contents(steps)).toEqual(["next"]);
    expect(response.text).toBe("next");
    expect((await conversation.history()).map((s) => [s.content, s.status])).toEqual([
      ["Hello", StepStatus.Done],
      ["next", StepStatus.Done],
    ]);
    expect(await conversation.turnStartIndices()).toEqual([0, 1]);
  });
});

describe("views", () => {
  it("several views of one turn read at once, each from the start, whenever they begin", async () => {
    const { conversation } = setup([
      { steps: [{ thinking: "hmm" }, { content: "Hi" }, { content: " there" }], delayMs: 2 },
    ]);
    const stream = conversation.chat("hello");
    const chunks = collect(stream);
    const again = collect(stream);
    const steps = collect(stream.steps());
    const final = stream.final();
    await new Promise((resolve) => setTimeout(resolve, 3)); // a view that starts mid-turn
    const events = collect(stream.events());
    expect(await chunks).toEqual([
      { type: "thought", stepIndex: 0, text: "hmm" },
      { type: "text", stepIndex: 1, text: "Hi" },
      { type: "text", stepIndex: 2, text: " there" },
    ]);
    expect(await again).toEqual(await chunks);
    expect(contents(await steps)).toEqual(["", "Hi", " there"]);
    expect((await events).map((e) => e.type)).toEqual(["thought", "text", "text", "turnComplete"]);
    expect((await final).text).toBe("Hi there");
    expect(stream.final()).toBe(final);
    // After the end, a new view still reads the whole turn.
    expect(await collect(stream)).toEqual(await chunks);
  });

  it("leaving a view early never stops the recording", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "a" }, { content: "b" }, { content: "c" }], delayMs: 2 },
    ]);
    const stream = conversation.chat("go");
    for await (const _ of stream) break;
    for await (const _ of stream.events()) break;
    await stream.final();
    expect(connection.sent.halts).toBe(0);
    expect(contents(await conversation.history())).toEqual(["a", "b", "c"]);
  });

  it("events(): chunks, tool results and errors once per call, permission requests, usage, turnComplete", async () => {
    const call = { id: "c1", name: "add", args: { a: 1 } };
    const { conversation } = setup([
      {
        steps: [
          { stepIndex: 1, toolCalls: [call], status: StepStatus.Active },
          { id: "c1", stepIndex: 50_000, target: StepTarget.Environment, toolCalls: [call], status: StepStatus.Active },
          {
            id: "c1",
            stepIndex: 50_000,
            target: StepTarget.Environment,
            toolCalls: [{ ...call, args: { sum: 1 } }],
            status: StepStatus.Done,
          },
          { stepIndex: 1, toolCalls: [call], status: StepStatus.Done },
          {
            stepIndex: 2,
            toolCalls: [{ id: "r1", name: "run_command", args: { command_line: "ls" } }],
            status: StepStatus.WaitingForUser,
          },
          {
            stepIndex: 2,
            toolCalls: [{ id: "r1", name: "run_command", args: { command_line: "ls" } }],
            status: StepStatus.WaitingForUser,
          },
          {
            stepIndex: 2,
            toolCalls: [{ id: "r1", name: "run_command", args: { command_line: "ls" } }],
            status: StepStatus.Error,
            error: "denied by the user",
          },
          { stepIndex: 3, content: "done" },
        ],
        usage: { totalTokenCount: 12 },
        stopReason: "MAX_TOOL_CALLS_EXCEEDED",
      },
    ]);
    const events = await collect(conversation.chat("go").events());
    expect(events.map((e) => e.type)).toEqual([
      "toolCall",
      "toolResult",
      "toolCall",
      "permissionRequest",
      "toolError",
      "text",
      "usage",
      "turnComplete",
    ]);
    expect(events[1]).toMatchObject({ type: "toolResult", toolCall: call, result: { sum: 1 } });
    expect(events[3]).toMatchObject({
      type: "permissionRequest",
      toolCall: { id: "r1" },
      trajectoryId: "mock-conversation",
      stepIndex: 2,
    });
    expect(events[4]).toMatchObject({ type: "toolError", toolCall: { id: "r1" }, error: "denied by the user" });
    expect(events[6]).toEqual({ type: "usage", usage: expect.objectContaining({ totalTokenCount: 12 }) });
    expect(events[7]).toEqual({
      type: "turnComplete",
      turnIndex: 0,
      stopReason: "MAX_TOOL_CALLS_EXCEEDED",
      usage: expect.objectContaining({ totalTokenCount: 12 }),
    });
  });

  it("toReadableStream(): UTF-8 server-sent events, one per event, ending after turnComplete", async () => {
    const { conversation } = setup([{ steps: [{ thinking: "é" }, { content: "Grüße" }] }]);
    const bytes = new Uint8Array(await new Response(conversation.chat("hi").toReadableStream()).arrayBuffer());
    expect(new TextDecoder().decode(bytes)).toBe(
      [
        'id: 0\nevent: thought\ndata: {"type":"thought","stepIndex":0,"text":"é"}\n\n',
        'id: 1\nevent: text\ndata: {"type":"text","stepIndex":1,"text":"Grüße"}\n\n',
        'id: 2\nevent: turnComplete\ndata: {"type":"turnComplete","turnIndex":0,"usage":{"promptTokenCount":0,"candidatesTokenCount":0,"totalTokenCount":0,"cachedContentTokenCount":0,"thoughtsTokenCount":0}}\n\n',
      ].join(""),
    );
    expect(bytes.length).toBe(new TextEncoder().encode(new TextDecoder().decode(bytes)).length);
  });

  it("toReadableStream(): a failed turn ends with an error event; cancelling the bytes aborts the turn", async () => {
    const { connection, conversation } = setup([
      { steps: [{ content: "x" }], untilHalted: true },
      { steps: [{ content: "y" }], untilHalted: true },
    ]);
    const failing = conversation.chat("   ").toReadableStream();
    expect(await new Response(failing).text()).toMatch(
      /^id: 0\nevent: error\ndata: \{"type":"error","code":"InvalidArgument","message":".+"\}\n\n$/,
    );
    const stream = conversation.chat("go");
    const reader = stream.toReadableStream().getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: text");
    await reader.cancel();
    await expect(stream.final()).rejects.toMatchObject({ code: ErrorCode.Canceled });
    await stream.abort(); // resolves when the turn is over
    expect(connection.sent.halts).toBe(1);
    expect(contents(await conversation.history())).toEqual(["x"]);
  });

  it("streams from turns() and receiveSteps() read the same turn the chat() stream does", async () => {
    const { conversation } = setup([{ steps: [{ content: "one" }, { content: "two" }], delayMs: 2 }]);
    let watched: ChatStream | undefined;
    const watching = (async () => {
      for await (const stream of conversation.turns()) {
        watched = stream;
        break;
      }
    })();
    const stream = conversation.chat("go");
    await watching;
    const [a, b, c] = await Promise.all([
      collect(stream.steps()),
      collect((watched as ChatStream).steps()),
      collect(conversation.receiveSteps()),
    ]);
    expect(contents(a)).toEqual(["one", "two"]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });
});
