import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SubprocessTransport } from "@antigravity-ts/node";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  defineTool,
  type MidTurnSemantics,
  type SessionEvent,
  type StartedAgent,
  type Step,
  type StreamingSession,
  type Transport,
  type Trigger,
  type TurnResultEvent,
  type UsageMetadata,
} from "@antigravity-ts/sdk";
import {
  harnessEnv,
  harnessExecutable,
  killAllHarnesses,
  startListeningHarness,
  type ListeningHarness,
} from "@antigravity-ts/test-kit";

// Issue 11 item 1: StreamingSession against the reference harness, over a listening harness
// (WebSocket) and a harness per session (subprocess, stdio handshake). A client tool `gate` holds
// a turn open until the test releases it, so "mid-turn" is a state, not a timing.

const SCRIPT = fileURLToPath(new URL("./scripts/streaming-script.json", import.meta.url));
/** Bound of every wait: a hang fails the test saying what did not happen. */
const BOUND_MS = 15_000;

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${BOUND_MS} ms`)), BOUND_MS)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function failure(promise: Promise<unknown>): Promise<SdkError> {
  const error = await promise.then(
    () => new Error("expected a failure"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

/** A `gate` client tool: each call waits until {@link release} (or its turn's halt). */
function gateTool(): { tool: ReturnType<typeof defineTool>; opened(): Promise<AbortSignal>; release(): void } {
  const waiting: Array<(signal: AbortSignal) => void> = [];
  const calls: AbortSignal[] = [];
  const releases: Array<() => void> = [];
  const tool = defineTool({
    name: "gate",
    description: "Waits until the test opens the gate",
    call: (_args: unknown, context) =>
      new Promise((resolve, reject) => {
        releases.push(() => resolve({ open: true }));
        context.signal.addEventListener("abort", () => reject(new Error("gate halted")), { once: true });
        const waiter = waiting.shift();
        if (waiter !== undefined) waiter(context.signal);
        else calls.push(context.signal);
      }),
  });
  return {
    tool,
    opened: () => {
      const ready = calls.shift();
      return ready !== undefined ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    release: () => releases.shift()?.(),
  };
}

/** Reads events until `results` `result` events went by; returns them all. */
async function readTurns(
  session: StreamingSession,
  results: number,
  onEvent?: (event: SessionEvent) => void,
): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  let seen = 0;
  await bounded(
    (async () => {
      while (seen < results) {
        const event = await session.nextEvent();
        if (event === undefined) throw new Error(`the session ended after ${seen} of ${results} results`);
        events.push(event);
        onEvent?.(event);
        if (event.type === "result") seen++;
      }
    })(),
    `${results} turn results`,
  );
  return events;
}

/** The text of each turn, in order. */
function turnTexts(events: readonly SessionEvent[]): string[] {
  const texts: string[] = [];
  let text = "";
  for (const event of events) {
    if (event.type === "text") text += event.text;
    if (event.type === "result") {
      texts.push(text);
      text = "";
    }
  }
  return texts;
}

function results(events: readonly SessionEvent[]): TurnResultEvent[] {
  return events.filter((e): e is TurnResultEvent => e.type === "result");
}

/** Every turnComplete is followed at once by its result, with the same index and usage. */
function expectBoundaries(events: readonly SessionEvent[]): void {
  events.forEach((event, i) => {
    if (event.type !== "turnComplete") return;
    const next = events[i + 1];
    expect(next).toMatchObject({ type: "result", turnIndex: event.turnIndex, usage: event.usage });
  });
  const indices = events.flatMap((e) => (e.type === "turnComplete" ? [e.turnIndex] : []));
  expect(indices).toEqual(indices.map((_, i) => indices[0]! + i));
}

async function userPrompts(agent: StartedAgent): Promise<string[]> {
  return (await agent.conversation().history()).filter((s: Step) => s.source === "USER").map((s) => s.content);
}

function sumTokens(usages: readonly UsageMetadata[]): number {
  return usages.reduce((sum, u) => sum + (u.totalTokenCount ?? 0), 0);
}

type MakeTransport = () => Promise<Transport>;

function defineStreamingSuite(name: string, makeTransport: () => MakeTransport): void {
  describe(`StreamingSession over ${name}`, () => {
    const running: StartedAgent[] = [];
    const make = makeTransport();

    afterEach(async () => {
      await Promise.all(running.splice(0).map((agent) => agent.stop()));
    });

    async function open(
      midTurn: MidTurnSemantics,
      trigger?: Trigger,
    ): Promise<{ agent: StartedAgent; session: StreamingSession; gate: ReturnType<typeof gateTool> }> {
      const gate = gateTool();
      const builder = Agent.builder()
        .transport(await make())
        .workspaces(workspace)
        .tool(gate.tool)
        .allowAll();
      const agent = await (trigger === undefined ? builder : builder.trigger(trigger))
        .build()
        .start({ timeoutMs: BOUND_MS });
      running.push(agent);
      const session = agent.streamingSession({ midTurn });
      expect(session.capabilities.streamingInput).toEqual({ supported: true, semantics: midTurn });
      expect(await session.nextEvent()).toMatchObject({
        type: "init",
        conversationId: agent.conversationId,
        capabilities: session.capabilities,
      });
      return { agent, session, gate };
    }

    it("queue: a message sent mid-turn waits for the boundary; the running turn completes, then the message is the next turn", async () => {
      const { agent, session, gate } = await open("queue");
      const first = session.sendUserMessage("gate A");
      await bounded(gate.opened(), "the gate call");
      const second = session.sendUserMessage("echo B");
      gate.release();
      const events = await readTurns(session, 2);
      expect(await bounded(first, "the first receipt")).toEqual({ messageIndex: 0, turnIndex: 0 });
      expect(await bounded(second, "the second receipt")).toEqual({ messageIndex: 1, turnIndex: 1 });
      expect(turnTexts(events)).toEqual(["opening Agate A passed", "echo B"]);
      expect(results(events).map((r) => [r.turnIndex, r.success, r.interrupted])).toEqual([
        [0, true, false],
        [1, true, false],
      ]);
      expect(
        events.filter((e) => e.type === "toolResult").map((e) => e.type === "toolResult" && e.toolCall.name),
      ).toEqual(["gate"]);
      expectBoundaries(events);
      expect(await userPrompts(agent)).toEqual(["gate A", "echo B"]);
      session.closeInput();
      await bounded(session.wait(), "the session's end");
      expect(await session.nextEvent()).toBeUndefined();
    });

    it("interrupt: a message sent mid-turn halts the turn, keeps its partial output, and starts the next turn", async () => {
      const { agent, session, gate } = await open("interrupt");
      void session.sendUserMessage("gate A");
      const signal = await bounded(gate.opened(), "the gate call");
      const receipt = session.sendUserMessage("echo B");
      const events = await readTurns(session, 2);
      expect(signal.aborted).toBe(true);
      expect(await bounded(receipt, "the receipt")).toEqual({ messageIndex: 1, turnIndex: 1 });
      expect(turnTexts(events)).toEqual(["opening A", "echo B"]);
      const [halted, next] = results(events);
      expect(halted).toMatchObject({
        turnIndex: 0,
        success: false,
        interrupted: true,
        error: { code: ErrorCode.Canceled },
      });
      expect(next).toMatchObject({ turnIndex: 1, success: true, interrupted: false });
      expect(halted?.usage.totalTokenCount).toBeGreaterThan(0); // usage of the halted turn is kept
      expect(events.some((e) => e.type === "toolError" && e.toolCall.name === "gate")).toBe(true);
      expectBoundaries(events);
      const history = await agent.conversation().history();
      expect(history.filter((s) => s.status === "ACTIVE" || s.status === "WAITING_FOR_USER")).toEqual([]);
      expect(history.some((s) => s.content.includes("opening A"))).toBe(true); // seed 002: partial output stays
      expect(history.some((s) => s.content.includes("passed"))).toBe(false);
      expect(await userPrompts(agent)).toEqual(["gate A", "echo B"]);
    });

    it("between-turns-only: a mid-turn send is refused with a typed error; a send on seeing turnComplete is accepted", async () => {
      const { agent, session, gate } = await open("between-turns-only");
      const first = session.sendUserMessage("gate A");
      await bounded(gate.opened(), "the gate call");
      const refused = await failure(session.sendUserMessage("echo refused"));
      expect(refused.code).toBe(ErrorCode.FailedPrecondition);
      expect(refused.message).toContain("turnComplete");
      gate.release();
      let next: Promise<unknown> | undefined;
      // The send races the boundary: made synchronously on reading turnComplete.
      const events = await readTurns(session, 2, (event) => {
        if (event.type === "turnComplete" && next === undefined) next = session.sendUserMessage("echo C");
      });
      expect(await bounded(first, "the first receipt")).toEqual({ messageIndex: 0, turnIndex: 0 });
      expect(await bounded(next ?? Promise.reject(new Error("no send")), "the second receipt")).toEqual({
        messageIndex: 1,
        turnIndex: 1,
      });
      expect(turnTexts(events)).toEqual(["opening Agate A passed", "echo C"]);
      expectBoundaries(events);
      expect(await userPrompts(agent)).toEqual(["gate A", "echo C"]);
    });

    it("several turns: 0-based indices, usage per turn that adds up to the session's, each message sent exactly once", async () => {
      const { agent, session } = await open("queue");
      // A burst (the harness is busy with the first while the rest arrive), then sends made the
      // moment a turn completes (racing the boundary).
      const receipts = [
        session.sendUserMessage("echo 0"),
        session.sendUserMessage("echo 1"),
        session.sendUserMessage("echo 2"),
      ];
      let sent = 3;
      const events = await readTurns(session, 6, (event) => {
        if (event.type === "turnComplete" && event.turnIndex >= 2 && sent < 6)
          receipts.push(session.sendUserMessage(`echo ${sent++}`));
      });
      expect((await bounded(Promise.all(receipts), "the receipts")).map((r) => [r.messageIndex, r.turnIndex])).toEqual(
        [0, 1, 2, 3, 4, 5].map((i) => [i, i]),
      );
      expect(turnTexts(events)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `echo ${i}`));
      expectBoundaries(events);
      const turnUsages = results(events).map((r) => r.usage);
      for (const usage of turnUsages) expect(usage.totalTokenCount).toBeGreaterThan(0);
      expect(sumTokens(turnUsages)).toBe((await agent.conversation().totalUsage()).totalTokenCount);
      expect(await userPrompts(agent)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `echo ${i}`));
      expect(await agent.conversation().turnCount()).toBe(6);
    });

    it("interrupt with a burst: every message still goes out once, in order; the newest one's turn completes", async () => {
      const { agent, session, gate } = await open("interrupt");
      void session.sendUserMessage("gate A");
      await bounded(gate.opened(), "the gate call");
      const receipts = [
        session.sendUserMessage("echo 1"),
        session.sendUserMessage("echo 2"),
        session.sendUserMessage("echo 3"),
      ];
      const events = await readTurns(session, 4);
      expect((await bounded(Promise.all(receipts), "the receipts")).map((r) => r.turnIndex)).toEqual([1, 2, 3]);
      const all = results(events);
      expect(all.map((r) => r.turnIndex)).toEqual([0, 1, 2, 3]);
      expect(all[0]).toMatchObject({ interrupted: true });
      expect(all[3]).toMatchObject({ success: true, interrupted: false });
      expect(turnTexts(events)[3]).toBe("echo 3");
      expectBoundaries(events);
      expect(await userPrompts(agent)).toEqual(["gate A", "echo 1", "echo 2", "echo 3"]);
      expect(
        (await agent.conversation().history()).filter((s) => s.status === "ACTIVE" || s.status === "WAITING_FOR_USER"),
      ).toEqual([]);
    });

    it("closeInput: refuses further messages, ends the events after the last accepted turn, wait() resolves", async () => {
      const { session } = await open("queue");
      const receipt = session.sendUserMessage("echo last");
      session.closeInput();
      expect((await failure(session.sendUserMessage("echo too late"))).code).toBe(ErrorCode.FailedPrecondition);
      expect((await failure(session.sendUserMessage("   "))).code).toBe(ErrorCode.FailedPrecondition);
      const rest: SessionEvent[] = [];
      for await (const event of session) rest.push(event);
      await bounded(session.wait(), "the session's end");
      expect(await receipt).toEqual({ messageIndex: 0, turnIndex: 0 });
      expect(turnTexts(rest)).toEqual(["echo last"]);
      expect(rest.at(-1)).toMatchObject({ type: "result", success: true });
    });

    it("reports a trigger's turn and a failed turn like any other: turnComplete, then result", async () => {
      let fire!: () => void;
      const fired = new Promise<void>((resolve) => (fire = resolve));
      const ping: Trigger = {
        run: async (ctx, signal) => {
          await fired;
          await ctx.sendTrigger("ping", { delivery: "whenIdle", signal });
        },
      };
      const { session } = await open("queue", ping);
      fire();
      const triggered = await readTurns(session, 1);
      expect(turnTexts(triggered)).toEqual(["Fallback answer."]);
      expect(results(triggered)).toMatchObject([{ turnIndex: 0, success: true }]);
      const receipt = session.sendUserMessage("explode now");
      const failed = await readTurns(session, 1);
      expect(await bounded(receipt, "the receipt")).toEqual({ messageIndex: 0, turnIndex: 1 });
      expect(results(failed)).toMatchObject([
        { turnIndex: 1, success: false, interrupted: false, error: { code: ErrorCode.ExecutionError } },
      ]);
      expectBoundaries([...triggered, ...failed]);
      const next = session.sendUserMessage("echo after the failure");
      expect(turnTexts(await readTurns(session, 1))).toEqual(["echo after the failure"]);
      expect(await next).toEqual({ messageIndex: 1, turnIndex: 2 });
    });

    it("the agent stopped mid-turn: that turn's result says so, the events end, wait() resolves, a later message is refused", async () => {
      const { agent, session, gate } = await open("queue");
      void session.sendUserMessage("gate A");
      await bounded(gate.opened(), "the gate call");
      await agent.stop();
      const rest: SessionEvent[] = [];
      for await (const event of session) rest.push(event);
      await bounded(session.wait(), "the session's end");
      expect(results(rest)).toMatchObject([
        { turnIndex: 0, success: false, interrupted: false, error: { code: ErrorCode.ConnectionClosed } },
      ]);
      expectBoundaries(rest);
      expect((await failure(session.sendUserMessage("echo into the void"))).code).toBe(ErrorCode.ConnectionClosed);
      expect(await session.nextEvent()).toBeUndefined();
    });

    it("refuses a blank message and an unknown midTurn with InvalidArgument", async () => {
      const { agent, session } = await open("queue");
      expect((await failure(session.sendUserMessage(" \n "))).code).toBe(ErrorCode.InvalidArgument);
      expect(() => agent.streamingSession({ midTurn: "whenever" as MidTurnSemantics })).toThrow(SdkError);
    });
  });
}

let workspace = "";
let harness: ListeningHarness | undefined;
let executable = "";

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "antigravity-streaming-"));
  harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "streaming-key-0123456789" });
  executable = await harnessExecutable();
}, 60_000);

afterAll(async () => {
  await harness?.stop();
  await killAllHarnesses();
  if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  if (executable !== "") await rm(path.dirname(executable), { recursive: true, force: true });
});

defineStreamingSuite(
  "WebSocketTransport",
  () => async () =>
    new WebSocketTransport({ host: "127.0.0.1", port: harness?.port ?? 0, apiKey: harness?.apiKey ?? "" }),
);
defineStreamingSuite(
  "SubprocessTransport",
  () => async () => new SubprocessTransport({ harnessPath: executable, env: harnessEnv(SCRIPT) }),
);
