import { describe, expect, it } from "vitest";
import { createHarnessConnection } from "../connection/harness-connection.js";
import type { ChatEvent } from "../conversation/chat-events.js";
import { Conversation } from "../conversation/conversation.js";
import { addUsage } from "../usage.js";
import { ErrorCode, SdkError } from "../errors.js";
import { createMockConnection } from "../testing/index.js";
import { createFakeHarnessTransport } from "../transport/in-memory-harness.js";
import { emptyUsage, StepStatus, StepType, type Step } from "../step.js";
import recorded from "./recorded-events.json" with { type: "json" };
import { Transcript } from "./transcript.js";
import type { AssistantMessage, ToolCard, TranscriptState } from "./transcript-types.js";

// The recorded turns are what ChatStream.events() yielded for the browser example's scripted
// turns through the reference harness (scripts/record-transcript-events.mjs).
type RecordedTurn = { prompt: string; events: unknown[]; end: { code: string; message: string } | null };
const turns = recorded as unknown as Record<
  "clientTool" | "clientToolThrows" | "builtinApproved" | "builtinDenied" | "stopped",
  RecordedTurn
> & { history: { steps: Step[]; turnStarts: number[] } };

/** A ChatStream stand-in replaying a recorded turn, ending the way the real one ended. */
function replay(turn: RecordedTurn): { events(): AsyncIterable<ChatEvent> } {
  return {
    async *events() {
      for (const event of turn.events) yield event as ChatEvent;
      if (turn.end !== null) throw new SdkError(turn.end.code as ErrorCode, turn.end.message);
    },
  };
}

function cards(message: AssistantMessage): ToolCard[] {
  return message.blocks.filter((block): block is ToolCard => block.type === "tool");
}

function textOf(message: AssistantMessage, type: "text" | "thinking"): string {
  return message.blocks.flatMap((block) => (block.type === type ? [block.text] : [])).join("");
}

describe("Transcript over recorded ChatStream.events()", () => {
  it("folds a client tool turn into thinking, text, one done card with arguments and result, and usage", async () => {
    const transcript = new Transcript();
    const message = await transcript.follow(replay(turns.clientTool), turns.clientTool.prompt);
    expect(message.status).toBe("done");
    expect(message.turnIndex).toBe(0);
    expect(message.blocks.map((block) => block.type)).toEqual(["thinking", "text", "tool", "text"]);
    expect(textOf(message, "thinking")).toBe(
      "The user wants their notes. They live in the page, so I will call the page's read_page tool.",
    );
    expect(textOf(message, "text")).toBe(
      "Let me read your notes.Your notes say: the launch window opens on Tuesday at 09:30",
    );
    expect(cards(message)).toEqual([
      {
        type: "tool",
        id: "call_1",
        name: "read_page",
        args: { selector: "#notes" },
        state: "done",
        result: { selector: "#notes", text: "the launch window opens on Tuesday at 09:30" },
        client: true,
      },
    ]);
    const complete = turns.clientTool.events.at(-1) as { type: string; usage: unknown };
    expect(complete.type).toBe("turnComplete");
    expect(message.usage).toEqual(complete.usage);
    expect(message.usage.totalTokenCount).toBeGreaterThan(0);
    expect(transcript.state.usage).toEqual(complete.usage);
    expect(transcript.state.messages).toEqual([{ role: "user", id: "m1", text: "What do my notes say?" }, message]);
    expect(transcript.state.running).toBe(false);
  });

  it("shows a client tool that throws as one card in error, with its arguments", async () => {
    const message = await new Transcript().follow(replay(turns.clientToolThrows), turns.clientToolThrows.prompt);
    expect(message.status).toBe("done");
    expect(cards(message)).toEqual([
      {
        type: "tool",
        id: "call_2",
        name: "read_page",
        args: { selector: "#no-such-element" },
        state: "error",
        error: "no element matches #no-such-element",
        client: true,
      },
    ]);
    expect(textOf(message, "text")).toContain("The page tool failed: no element matches #no-such-element");
  });

  it("shows a built-in tool's card with the harness's result, or its refusal", async () => {
    const transcript = new Transcript();
    const approved = await transcript.follow(replay(turns.builtinApproved), turns.builtinApproved.prompt);
    const [run] = cards(approved);
    expect(run).toMatchObject({
      name: "run_command",
      args: { CommandLine: "echo hello-from-the-harness" },
      state: "done",
      client: false,
    });
    expect(run?.result).toMatchObject({ exit_code: 0 });
    const denied = await transcript.follow(replay(turns.builtinDenied), turns.builtinDenied.prompt);
    expect(cards(denied)).toHaveLength(1);
    expect(cards(denied)[0]).toMatchObject({ name: "run_command", state: "error", client: false });
    expect(cards(denied)[0]?.error).toMatch(/denied/);
    expect(transcript.state.messages).toHaveLength(4);
  });

  it("ends the user's Stop as stopped, not as an error", async () => {
    const transcript = new Transcript();
    const message = await transcript.follow(replay(turns.stopped), turns.stopped.prompt);
    expect(message.status).toBe("stopped");
    expect(message.error?.code).toBe(ErrorCode.Canceled);
    expect(textOf(message, "text").startsWith("one")).toBe(true);
    expect(transcript.state.running).toBe(false);
    expect(transcript.state.connection).toBe("connected");
  });

  it("sums the usage of every turn, from the usage it started with", async () => {
    const start = { ...emptyUsage(), promptTokenCount: 7, totalTokenCount: 7 };
    const transcript = new Transcript({ usage: start });
    let expected = start;
    for (const name of ["clientTool", "clientToolThrows", "builtinApproved", "stopped"] as const) {
      const message = await transcript.follow(replay(turns[name]), turns[name].prompt);
      const lastUsage = turns[name].events.filter((event) => (event as { type: string }).type === "usage").at(-1) as
        | { usage: typeof start }
        | undefined;
      expect(message.usage).toEqual(lastUsage?.usage ?? emptyUsage()); // stopped before any usage report
      expected = addUsage(expected, message.usage);
    }
    expect(transcript.state.usage).toEqual(expected);
  });

  it("restores a recorded history as the live turns drew it", async () => {
    const live = new Transcript();
    for (const name of ["clientTool", "clientToolThrows", "builtinApproved", "builtinDenied"] as const)
      await live.follow(replay(turns[name]), turns[name].prompt);
    const restored = new Transcript();
    restored.restore(turns.history.steps, turns.history.turnStarts);
    expect(restored.state.messages).toHaveLength(10);
    expect(restored.state.messages.filter((m) => m.role === "user").map((m) => m.text)).toEqual([
      ...Object.values(turns)
        .slice(0, 5)
        .map((t) => (t as RecordedTurn).prompt),
    ]);
    // A history keeps a built-in step's final state only: its arguments come back as the action
    // record the harness filled in (the command line is there, the output too).
    const strip = (m: unknown): unknown =>
      (m as AssistantMessage).blocks.map((block) =>
        block.type === "tool" && !block.client
          ? { ...block, args: (block.args as { CommandLine: string }).CommandLine, result: "(run_command's record)" }
          : block,
      );
    for (let i = 1; i < 8; i += 2) expect(strip(restored.state.messages[i])).toEqual(strip(live.state.messages[i]));
    for (const message of restored.state.messages)
      if (message.role === "assistant") expect(message.status).toBe("done");
  });
});

describe("Transcript over a live Conversation", () => {
  it("shows a call waiting for the user's approval, then its outcome", async () => {
    const call = { id: "r1", name: "run_command", args: { CommandLine: "ls" } };
    const connection = createMockConnection({
      turns: [
        {
          steps: [
            { stepIndex: 1, type: StepType.ToolCall, toolCalls: [call], status: StepStatus.WaitingForUser },
            {
              stepIndex: 1,
              type: StepType.ToolCall,
              toolCalls: [{ ...call, args: { CommandLine: "ls", exit_code: 0 } }],
              status: StepStatus.Done,
            },
            { stepIndex: 2, content: "Listed." },
          ],
          usage: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
        },
      ],
    });
    const conversation = new Conversation(connection);
    const transcript = new Transcript();
    const states: string[] = [];
    transcript.subscribe((state) => {
      const last = state.messages.at(-1);
      const card = last?.role === "assistant" ? cards(last)[0] : undefined;
      if (card !== undefined && states.at(-1) !== card.state) states.push(card.state);
    });
    const message = await transcript.follow(conversation.chat("list the files"), "list the files");
    expect(states).toEqual(["running", "awaiting-approval", "done"]);
    expect(cards(message)[0]).toMatchObject({
      args: { CommandLine: "ls" },
      result: { CommandLine: "ls", exit_code: 0 },
      state: "done",
    });
    expect(message.usage.totalTokenCount).toBe(12);
    expect(message.turnIndex).toBe(0);
  });

  it("keeps a call awaiting approval when the turn paused on it (deferred confirmation)", () => {
    const transcript = new Transcript();
    const toolCall = { id: "d1", name: "delete_file", args: { path: "a.txt" } };
    transcript.begin("delete a.txt");
    transcript.apply({ type: "toolCall", toolCall });
    transcript.apply({ type: "awaitingConfirmation", toolCall, trajectoryId: "t", stepIndex: 3 });
    transcript.apply({ type: "turnComplete", turnIndex: 0, usage: emptyUsage() });
    const message = transcript.end();
    expect(message.status).toBe("done");
    expect(cards(message)).toEqual([
      {
        type: "tool",
        id: "d1",
        name: "delete_file",
        args: { path: "a.txt" },
        state: "awaiting-approval",
        client: false,
      },
    ]);
  });

  it("ends a failed turn as error, a lost connection as disconnected; calls left running are cancelled", async () => {
    const failing = (code: ErrorCode) => ({
      async *events(): AsyncIterable<ChatEvent> {
        yield { type: "toolCall", toolCall: { id: "x", name: "view_file", args: { path: "a" } } };
        throw new SdkError(code, `failed with ${code}`);
      },
    });
    const transcript = new Transcript();
    const error = await transcript.follow(failing(ErrorCode.ExecutionError), "one");
    expect(error).toMatchObject({ status: "error", error: { code: ErrorCode.ExecutionError } });
    expect(cards(error)[0]?.state).toBe("cancelled");
    expect(transcript.state.connection).toBe("connected");
    const lost = await transcript.follow(failing(ErrorCode.ConnectionClosed), "two");
    expect(lost.status).toBe("disconnected");
  });

  it("shows disconnected at once when the harness goes away while no turn runs", async () => {
    let hangUp!: () => void;
    const transport = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      harness.respondInit({ cascadeId: "conv" });
      await new Promise<void>((resolve) => (hangUp = resolve));
      await harness.close();
    });
    const connection = await createHarnessConnection({ transport, config: {}, timeoutMs: 5_000 });
    const transcript = new Transcript();
    const seen: TranscriptState[] = [];
    transcript.subscribe((state) => seen.push(state));
    connection.onClosed((reason) => transcript.connectionClosed(reason));
    expect(transcript.state.connection).toBe("connected");
    const closed = new Promise<SdkError>((resolve) => connection.onClosed(resolve));
    hangUp();
    const reason = await closed;
    expect(reason.code).toBe(ErrorCode.ConnectionClosed);
    expect(transcript.state.connection).toBe("disconnected");
    expect(transcript.state.disconnectReason?.code).toBe(ErrorCode.ConnectionClosed);
    expect(seen).toHaveLength(1);
    // A listener registered after the close hears it at once.
    let late: SdkError | undefined;
    connection.onClosed((r) => (late = r));
    expect(late).toBe(reason);
    await transport.settled();
  });

  it("ends a running turn as disconnected when the connection closes during it", () => {
    const transcript = new Transcript();
    transcript.begin("hello");
    transcript.apply({ type: "text", stepIndex: 1, text: "Hel" });
    transcript.connectionClosed(new SdkError(ErrorCode.HarnessCrashed, "the harness exited"));
    const message = transcript.state.messages.at(-1) as AssistantMessage;
    expect(message).toMatchObject({ status: "disconnected", error: { code: ErrorCode.HarnessCrashed } });
    expect(transcript.state).toMatchObject({ running: false, connection: "disconnected" });
    // The stream's own error after that changes nothing.
    expect(transcript.end(new SdkError(ErrorCode.ConnectionClosed, "closed"))).toBe(message);
  });
});

describe("Transcript state", () => {
  it("makes a new state per change and keeps unchanged messages and blocks by identity", () => {
    const transcript = new Transcript();
    transcript.begin("a");
    transcript.apply({ type: "thought", stepIndex: 1, text: "hmm" });
    const before = transcript.state;
    transcript.apply({ type: "text", stepIndex: 1, text: "Hi" });
    const after = transcript.state;
    expect(after).not.toBe(before);
    expect(after.messages[0]).toBe(before.messages[0]);
    const [thinkingBefore] = (before.messages[1] as AssistantMessage).blocks;
    expect((after.messages[1] as AssistantMessage).blocks[0]).toBe(thinkingBefore);
    transcript.apply({ type: "text", stepIndex: 1, text: " there" });
    expect((transcript.state.messages[1] as AssistantMessage).blocks).toEqual([
      { type: "thinking", text: "hmm", stepIndex: 1 },
      { type: "text", text: "Hi there", stepIndex: 1 },
    ]);
    // The text of the next model call (another step) is a block of its own, even right after.
    transcript.apply({ type: "text", stepIndex: 2, text: "Next call." });
    expect(
      (transcript.state.messages[1] as AssistantMessage).blocks.map(
        (block) => block.type === "text" && [block.stepIndex, block.text],
      ),
    ).toEqual([false, [1, "Hi there"], [2, "Next call."]]);
    const unchanged = transcript.state;
    transcript.apply({ type: "someFutureEvent" } as unknown as ChatEvent);
    expect(transcript.state).toBe(unchanged);
  });

  it("runs one turn at a time and tells what to do otherwise", () => {
    const transcript = new Transcript();
    expect(() => transcript.end()).toThrow(expect.objectContaining({ code: ErrorCode.FailedPrecondition }));
    transcript.begin("a");
    expect(() => transcript.begin("b")).toThrow(/end\(\) it/);
    expect(() => transcript.restore([], [])).toThrow(expect.objectContaining({ code: ErrorCode.FailedPrecondition }));
    transcript.end();
    transcript.begin("b");
    expect(transcript.state.messages).toHaveLength(4);
  });

  it("stops notifying an unsubscribed listener", () => {
    const transcript = new Transcript();
    let calls = 0;
    const unsubscribe = transcript.subscribe(() => calls++);
    transcript.begin("a");
    unsubscribe();
    transcript.end();
    expect(calls).toBe(1);
  });
});
