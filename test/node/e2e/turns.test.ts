import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  defineTool,
  isSyntheticToolStep,
  type AgentBuilder,
  type ChatStream,
  type StartedAgent,
  type Step,
  type Trigger,
} from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";
import { deferred } from "@antigravity-ts/test-kit";

// Issue 9 items 1–3 against the reference harness over real sockets: every turn is recorded
// where it is produced (a trigger's, an unread one), views of one turn agree, and cancelling a
// turn — mid-text, in a client tool, in a built-in tool, at a confirmation — ends it promptly
// with usage kept, a well-formed history and a next turn that works.

const SCRIPT = fileURLToPath(new URL("./scripts/turns-script.json", import.meta.url));
/** Bound of every wait: a hang fails the test saying what did not happen. */
const BOUND_MS = 10_000;

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

/** Seed 002's shape: nothing left running, and every tool call has a finished step. */
function expectWellFormed(history: Step[]): void {
  expect(history.filter((s) => s.status === "ACTIVE" || s.status === "WAITING_FOR_USER").map((s) => s.id)).toEqual([]);
  for (const step of history) {
    for (const call of step.toolCalls) {
      if (call.id === "") continue;
      expect(
        history.some((s) => s.toolCalls.some((c) => c.id === call.id) && (s.status === "DONE" || s.status === "ERROR")),
      ).toBe(true);
    }
  }
}

/** Waits (bounded) until `stream` yields a step matching `match`. */
async function untilStep(stream: ChatStream, match: (step: Step) => boolean, what: string): Promise<Step> {
  return bounded(
    (async () => {
      for await (const step of stream.steps()) if (match(step)) return step;
      throw new Error(`the turn ended before ${what}`);
    })(),
    what,
  );
}

describe("turns end to end (reference harness over WebSocket)", () => {
  let workspace = "";
  let harness: ListeningHarness | undefined;
  const running: StartedAgent[] = [];
  const release = deferred<unknown>();

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-turns-"));
    harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "turns-key-0123456789" });
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((agent) => agent.stop()));
  });

  afterAll(async () => {
    release.resolve(undefined);
    await harness?.stop();
    await killAllHarnesses();
    if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  });

  async function start(configure: (builder: AgentBuilder<false>) => AgentBuilder<true>): Promise<StartedAgent> {
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: harness?.apiKey ?? "",
    });
    const agent = await configure(Agent.builder().transport(transport).workspaces(workspace))
      .build()
      .start({ timeoutMs: BOUND_MS });
    running.push(agent);
    return agent;
  }

  it("records a trigger's turn nobody reads, and a sent turn nobody reads (upstream: the first reply, turnCount 2)", async () => {
    const ping: Trigger = { run: (ctx, signal) => ctx.sendTrigger("ping", { delivery: "whenIdle", signal }) };
    const agent = await start((b) => b.trigger(ping).allowAll());
    const conversation = agent.conversation();
    for await (const stream of conversation.turns({ signal: AbortSignal.timeout(BOUND_MS) })) {
      await stream.final();
      break;
    }
    expect((await conversation.history()).map((s) => s.content)).toEqual([
      "[automated trigger] ping",
      "pong from the trigger",
    ]);
    expect(await conversation.turnCount()).toBe(1);

    await conversation.send("hello one");
    await conversation.send("hello two");
    const second = await bounded(conversation.chat("hello three").final(), "the third turn");
    const replies = (await conversation.history()).filter((s) => s.isCompleteResponse).map((s) => s.content);
    expect(replies).toEqual(["pong from the trigger", second.text, second.text, second.text]);
    expect(await conversation.turnCount()).toBe(4);
    expect(await conversation.turnStartIndices()).toHaveLength(4);
  });

  it("sends nothing for a chat whose signal is already aborted (issue 8 item 8)", async () => {
    const agent = await start((b) => b.allowAll());
    const stream = agent.chat("hello, never sent", { signal: AbortSignal.abort() });
    expect((await failure(stream.final())).code).toBe(ErrorCode.Canceled);
    expect((await bounded(agent.chatToCompletion("hello, sent"), "the next turn")).text).toContain("Hello!");
    const prompts = (await agent.conversation().history())
      .filter((s) => s.source === "USER")
      .map((s) => [s.content, s.stepIndex]);
    // The harness echoes each prompt it got as a USER step and numbers steps over the session (§6.2):
    // the prompt sent is its very first step, so it never saw the aborted one.
    expect(prompts).toEqual([["hello, sent", 0]]);
    expect(await agent.conversation().turnCount()).toBe(1);
  });

  it("several views of one turn read at once agree: chunks, steps, events, final() and SSE bytes", async () => {
    const agent = await start((b) => b.allowAll());
    const stream = agent.chat("hello views");
    const [chunks, steps, events, sse, final] = await bounded(
      Promise.all([
        (async () => {
          const out = [];
          for await (const c of stream) out.push(c);
          return out;
        })(),
        (async () => {
          const out = [];
          for await (const s of stream.steps()) out.push(s);
          return out;
        })(),
        (async () => {
          const out = [];
          for await (const e of stream.events()) out.push(e);
          return out;
        })(),
        new Response(stream.toReadableStream()).text(),
        stream.final(),
      ]),
      "the views",
    );
    const text = chunks.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
    expect(text).toBe("Hello! Streaming this answer in chunks.");
    expect(final.text).toBe(text);
    expect(final.thinking).toBe("The user greets me.");
    expect(steps.length).toBeGreaterThan(chunks.length - 1);
    expect(events.filter((e) => e.type === "text" || e.type === "thought")).toEqual(
      chunks.filter((c) => c.type !== "toolCall"),
    );
    const complete = events.at(-1);
    expect(complete).toMatchObject({ type: "turnComplete", turnIndex: 0 });
    expect(complete?.type === "turnComplete" && complete.usage.totalTokenCount).toBeGreaterThan(0);
    const messages = sse.trimEnd().split("\n\n");
    expect(messages).toHaveLength(events.length);
    expect(messages.map((m) => JSON.parse(m.split("\n")[2]?.slice("data: ".length) ?? "null") as unknown)).toEqual(
      JSON.parse(JSON.stringify(events)),
    );
  });

  it("cancels during streamed text: the stream ends with Canceled, the partial text and its usage stay, the next turn works", async () => {
    const agent = await start((b) => b.allowAll());
    const conversation = agent.conversation();
    const stream = agent.chat("slow please");
    const seen: string[] = [];
    const reading = (async () => {
      for await (const chunk of stream) {
        if (chunk.type !== "text") continue;
        seen.push(chunk.text);
        if (seen.length === 3) void stream.abort();
      }
    })();
    expect((await bounded(failure(reading), "the end of the aborted stream")).code).toBe(ErrorCode.Canceled);
    await bounded(stream.abort(), "the halted turn's end");
    const history = await conversation.history();
    expectWellFormed(history);
    const answer = history.find((s) => s.source === "MODEL" && s.content.startsWith("word0"));
    expect(answer?.content.split(" ").length).toBeLessThan(200);
    expect((await conversation.lastTurnUsage())?.totalTokenCount).toBeGreaterThan(0);
    expect((await bounded(agent.chatToCompletion("hello again"), "the next turn")).text).toBe(
      "Hello! Streaming this answer in chunks.",
    );
  });

  it("cancels during a client tool: the tool sees its signal abort, its call gets a result, usage stays, the next turn works", async () => {
    const started = deferred<AbortSignal>();
    const waitForStop = defineTool({
      name: "wait_for_stop",
      description: "Waits until the turn is cancelled",
      call: (_args: unknown, context) => {
        started.resolve(context.signal);
        return new Promise((_, reject) =>
          context.signal.addEventListener("abort", () => reject(new Error("stopped by the halt")), { once: true }),
        );
      },
    });
    const agent = await start((b) => b.tool(waitForStop).allowAll());
    const stream = agent.chat("run the client tool");
    const signal = await bounded(started.promise, "the client tool's start");
    const over = stream.abort();
    expect((await bounded(failure(stream.final()), "the aborted turn's final()")).code).toBe(ErrorCode.Canceled);
    await bounded(over, "the halted turn's end");
    expect(signal.aborted).toBe(true);
    const history = await agent.conversation().history();
    expectWellFormed(history);
    expect(history.filter(isSyntheticToolStep).map((s) => [s.status, s.error])).toEqual([
      ["ERROR", "stopped by the halt"],
    ]);
    expect((await agent.conversation().lastTurnUsage())?.totalTokenCount).toBeGreaterThan(0);
    expect((await bounded(agent.chatToCompletion("hello after the tool"), "the next turn")).text).toContain("Hello!");
  });

  it("cancels during a client tool that ignores its signal: its call is closed as (cancelled), the next turn works", async () => {
    const started = deferred();
    const stuck = defineTool({
      name: "stuck",
      description: "Never returns",
      call: () => (started.resolve(), release.promise),
    });
    const agent = await start((b) => b.tool(stuck).allowAll());
    const stream = agent.chat("call the stuck tool");
    await bounded(started.promise, "the stuck tool's start");
    await bounded(agent.conversation().cancel(), "the cancelled turn's end");
    expect((await failure(stream.final())).code).toBe(ErrorCode.Canceled);
    const history = await agent.conversation().history();
    expectWellFormed(history);
    expect(history.filter(isSyntheticToolStep).map((s) => [s.status, s.error])).toEqual([["ERROR", "(cancelled)"]]);
    expect((await bounded(agent.chatToCompletion("hello after stuck"), "the next turn")).text).toContain("Hello!");
  });

  it("cancels during a built-in tool: the command stops, its step ends in ERROR, usage stays, the next turn works", async () => {
    const agent = await start((b) => b.allowAll());
    const stream = agent.chat("sleep a minute");
    await untilStep(stream, (s) => s.toolCalls[0]?.name === "run_command", "the run_command step");
    await bounded(stream.abort(), "the halted turn's end");
    const history = await agent.conversation().history();
    expectWellFormed(history);
    expect(history.find((s) => s.toolCalls[0]?.name === "run_command")?.status).toBe("ERROR");
    expect((await agent.conversation().lastTurnUsage())?.totalTokenCount).toBeGreaterThan(0);
    expect((await bounded(agent.chatToCompletion("hello after the command"), "the next turn")).text).toContain(
      "Hello!",
    );
  });

  it("cancels at a confirmation nobody answers: the waiting step is closed, the next turn works", async () => {
    const asked = deferred();
    let calls = 0;
    // The handler answers the harness's policy question (§12), then never answers the confirmation (§8).
    const confirm = (): Promise<boolean> =>
      ++calls === 1 ? Promise.resolve(true) : (asked.resolve(), new Promise<boolean>(() => undefined));
    const agent = await start((b) => b.agentBehavior("interactive").confirmRunCommand(confirm));
    const stream = agent.chat("confirm the sleep");
    const waiting = stream.events();
    await bounded(
      (async () => {
        for await (const e of waiting) if (e.type === "permissionRequest") return e;
      })(),
      "the permission request",
    );
    await bounded(asked.promise, "the confirmation handler");
    await bounded(stream.abort(), "the halted turn's end");
    const history = await agent.conversation().history();
    expectWellFormed(history);
    expect((await bounded(agent.chatToCompletion("hello after confirm"), "the next turn")).text).toContain("Hello!");
  });
});
