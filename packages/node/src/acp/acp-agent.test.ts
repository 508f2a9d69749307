import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Agent,
  ErrorCode,
  SdkError,
  StepStatus,
  StepType,
  allowAll,
  askUser,
  deny,
  type Step,
} from "@antigravity-ts/sdk";
import { GEMINI_ROUTER, geminiScratch, geminiStream, geminiText, geminiUsage } from "@antigravity-ts/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { acpAgent, type AcpSessionEvent } from "./index.js";

// A real third-party ACP agent, offline: Gemini CLI 0.61 answering from canned model responses
// (test-kit's geminiScratch: `--fake-responses FILE`, a fake GEMINI_API_KEY, a scratch HOME).
const ROUTER = GEMINI_ROUTER;
const stream = geminiStream;
const text = geminiText;
const usage = geminiUsage;
const WRITE = {
  candidates: [
    {
      content: {
        role: "model",
        parts: [
          { text: "I will write it." },
          { functionCall: { name: "write_file", args: { file_path: "notes.txt", content: "hello from acp\n" } } },
        ],
      },
      finishReason: "STOP",
    },
  ],
  ...usage(20, 7),
};

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A scratch Gemini CLI (removed after the test), and the agent's options collecting its session updates. */
function gemini(lines: unknown[], extraArgs: string[] = []) {
  const g = geminiScratch(lines, extraArgs);
  scratch.push(g.root);
  const events: AcpSessionEvent[] = [];
  const options = { ...g.options, onSessionUpdate: (e: AcpSessionEvent) => events.push(e) };
  return { root: g.root, workspace: g.workspace, fake: g.fake, events, options };
}

/** Live processes whose command line mentions `marker` (the session's unique fake-responses path): Gemini CLI re-launches itself, so both generations count. */
function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1");
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      if (cmdline.includes(marker) && stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z")
        pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Waits (bounded) until no process mentions `marker`; returns the ones left. */
async function leftover(marker: string): Promise<number[]> {
  for (const until = Date.now() + 20_000; Date.now() < until; await sleep(50))
    if (processesMentioning(marker).length === 0) return [];
  return processesMentioning(marker);
}

const TIMEOUT = 180_000;

describe("acpAgent with Gemini CLI --acp, offline", () => {
  it("streams a text turn with thought chunks and usage, then a second turn in the same session", {
    timeout: TIMEOUT,
  }, async () => {
    const g = gemini([
      ROUTER,
      stream(text("thinking hard", {}), text("Hello "), {
        ...text("world", { finishReason: "STOP" }),
        ...usage(11, 5),
      }),
      ROUTER, // Gemini CLI routes every prompt
      stream({ ...text("Second answer", { finishReason: "STOP" }), ...usage(20, 3) }),
    ]);
    // a thought part: Gemini CLI reports `thought: true` parts as agent_thought_chunk
    const lines = readFileSync(g.fake, "utf8").split("\n");
    const first = JSON.parse(lines[1] ?? "");
    first.response[0].candidates[0].content.parts[0].thought = true;
    lines[1] = JSON.stringify(first);
    writeFileSync(g.fake, lines.join("\n"));

    const agent = Agent.builder().connection(acpAgent(g.options)).allowAll().build();
    const started = await agent.start();
    try {
      const chunks: string[] = [];
      const chat = started.chat("hi");
      for await (const chunk of chat)
        chunks.push(chunk.type === "toolCall" ? "toolCall" : `${chunk.type}:${chunk.text}`);
      // Gemini CLI sends a thought as "**<subject>**\n<description>" (here without a subject)
      expect(chunks).toEqual(["thought:****\nthinking hard", "text:Hello ", "text:world"]);
      const response = await chat.final();
      expect(response.text).toBe("Hello world");
      expect(response.thinking).toBe("****\nthinking hard");
      expect(response.steps.find((s) => s.type === StepType.Thinking)?.status).toBe(StepStatus.Done);
      expect(response.steps.find((s) => s.isCompleteResponse)?.content).toBe("Hello world");
      expect(await started.conversation().totalUsage()).toMatchObject({
        promptTokenCount: 11,
        candidatesTokenCount: 5,
        totalTokenCount: 16,
      });
      expect(g.events.some((e) => e.sessionUpdate === "available_commands_update")).toBe(true);

      const second = await started.chatToCompletion("again");
      expect(second.text).toBe("Second answer");
      expect(second.usageMetadata).toMatchObject({ promptTokenCount: 31, candidatesTokenCount: 8 });
      expect(await started.conversation().turnCount()).toBe(2);
    } finally {
      await started.stop();
    }
    expect(await leftover(g.fake)).toEqual([]);
  });

  it("a permission the policy allows runs the tool; the step carries kind, locations and the diff", {
    timeout: TIMEOUT,
  }, async () => {
    const g = gemini([ROUTER, stream(WRITE), stream({ ...text("Done.", { finishReason: "STOP" }), ...usage(30, 2) })]);
    const asked: string[] = [];
    const agent = Agent.builder()
      .connection(acpAgent(g.options))
      .policies([
        askUser("edit", (call) => {
          asked.push(call.name);
          return true;
        }),
        allowAll(),
      ])
      .build();
    const started = await agent.start();
    try {
      const response = await started.chatToCompletion("write notes");
      expect(asked).toEqual(["edit"]);
      expect(response.text).toContain("Done.");
      expect(readFileSync(join(g.workspace, "notes.txt"), "utf8")).toBe("hello from acp\n");
      const tool = response.steps.find((s) => s.type === StepType.ToolCall);
      expect(tool?.status).toBe(StepStatus.Done);
      expect(tool?.toolCalls[0]).toMatchObject({ name: "edit", canonicalPath: join(g.workspace, "notes.txt") });
    } finally {
      await started.stop();
    }
    expect(await leftover(g.fake)).toEqual([]);
  });

  it("a permission the policy denies is rejected: no file, the tool step failed", { timeout: TIMEOUT }, async () => {
    const g = gemini([
      ROUTER,
      stream(WRITE),
      stream({ ...text("I could not.", { finishReason: "STOP" }), ...usage(30, 2) }),
    ]);
    const agent = Agent.builder()
      .connection(acpAgent(g.options))
      .policies([deny("edit", "no edits"), allowAll()])
      .build();
    const started = await agent.start();
    try {
      const response = await started.chatToCompletion("write notes");
      expect(readdirSync(g.workspace)).toEqual([]);
      const tool = response.steps.find((s) => s.type === StepType.ToolCall);
      expect(tool?.status).toBe(StepStatus.Error);
      expect(response.text).toContain("I could not.");
    } finally {
      await started.stop();
    }
    expect(await leftover(g.fake)).toEqual([]);
  });

  it("cancel mid-turn (while the agent waits for a permission) ends the turn Canceled with its steps kept; the session goes on", {
    timeout: TIMEOUT,
  }, async () => {
    const g = gemini([
      ROUTER,
      stream(WRITE),
      ROUTER,
      stream({ ...text("After cancel", { finishReason: "STOP" }), ...usage(5, 2) }),
    ]);
    let release: (v: boolean) => void = () => {};
    let asking: () => void = () => {};
    const waiting = new Promise<void>((resolve) => (asking = resolve));
    const agent = Agent.builder()
      .connection(acpAgent(g.options))
      .policies([
        askUser(
          "edit",
          () =>
            new Promise<boolean>((resolve) => {
              release = resolve;
              asking();
            }),
        ),
        allowAll(),
      ])
      .build();
    const started = await agent.start();
    try {
      const chat = started.chat("write notes");
      const steps: Step[] = [];
      const reading = (async () => {
        for await (const step of chat.steps()) steps.push(step);
      })().catch((error: unknown) => error);
      await waiting;
      await started.conversation().cancel();
      release(true);
      await reading;
      expect(steps.some((s) => s.content === "I will write it.")).toBe(true);
      expect(readdirSync(g.workspace)).toEqual([]);
      await expect(chat.final()).rejects.toMatchObject({ code: ErrorCode.Canceled });
      const history = await started.conversation().history();
      expect(history.some((s) => s.content === "I will write it.")).toBe(true);
      // the session goes on after the cancel
      const next = await started.chatToCompletion("and now?");
      expect(next.text).toBe("After cancel");
    } finally {
      await started.stop();
    }
    expect(await leftover(g.fake)).toEqual([]);
  });
});

describe("acpAgent with Gemini CLI: resume through session/load", () => {
  it("a new agent process loads the session by its id: the earlier turn is the initial history, and the conversation goes on", {
    timeout: TIMEOUT,
  }, async () => {
    const g = gemini([ROUTER, stream({ ...text("First answer", { finishReason: "STOP" }), ...usage(8, 2) })]);
    const first = await Agent.builder().connection(acpAgent(g.options)).allowAll().build().start();
    const id = first.conversation().conversationId;
    expect((await first.chatToCompletion("first question")).text).toBe("First answer");
    await first.stop();
    expect(await leftover(g.fake)).toEqual([]);
    // Gemini CLI 0.61 names a session file by the minute and the id's first 8 characters, and a
    // session/load in the same minute starts that same file afresh before reading it ("No previous
    // sessions found for this project"); an older name keeps the recorded turn readable.
    const chats = join(g.root, "home", ".gemini", "tmp", "ws", "chats");
    for (const file of readdirSync(chats))
      if (file.endsWith(`-${id.slice(0, 8)}.jsonl`))
        renameSync(join(chats, file), join(chats, `session-2000-01-01T00-00-${id.slice(0, 8)}.jsonl`));

    const fake2 = join(g.root, "fake2.ndjson");
    writeFileSync(
      fake2,
      `${[ROUTER, stream({ ...text("Second answer", { finishReason: "STOP" }), ...usage(9, 2) })].map((l) => JSON.stringify(l)).join("\n")}\n`,
    );
    // Gemini CLI answers session/load with "Authentication required" (-32000) until the client authenticates
    const options2 = { ...g.options, args: ["--acp", "--fake-responses", fake2], authMethodId: "gemini-api-key" };
    const second = await Agent.builder().connection(acpAgent(options2)).conversationId(id).allowAll().build().start();
    try {
      expect(second.conversation().conversationId).toBe(id);
      // Gemini CLI replays part of the session after answering session/load: it merges in by step id (bounded wait)
      const replayed = async () => (await second.conversation().history()).some((s) => s.content === "First answer");
      for (const until = Date.now() + 20_000; !(await replayed()) && Date.now() < until; ) await sleep(50);
      expect(await replayed()).toBe(true);
      expect((await second.chatToCompletion("second question")).text).toBe("Second answer");
    } finally {
      await second.stop();
    }
    expect(await leftover(fake2)).toEqual([]);
  });
});

describe("acpAgent with a bad agent", () => {
  const node = process.execPath;
  const badAgent = (source: string) => {
    const root = mkdtempSync(join(tmpdir(), "acp-bad-"));
    scratch.push(root);
    const file = join(root, "agent.mjs");
    writeFileSync(file, source);
    return { file, root };
  };
  const start = (file: string, initializeTimeoutMs = 60_000) =>
    Agent.builder()
      .connection(acpAgent({ command: node, args: [file], cwd: dirname(file), initializeTimeoutMs }))
      .allowAll()
      .build()
      .start();

  it("exits at once: HarnessCrashed with its exit status and stderr tail, no process left", {
    timeout: TIMEOUT,
  }, async () => {
    const { file } = badAgent('process.stderr.write("cannot start: no config\\n"); process.exit(3);\n');
    const error = await start(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.HarnessCrashed);
    expect((error as SdkError).message).toContain("exited with code 3");
    expect((error as SdkError).message).toContain("cannot start: no config");
    expect(await leftover(file)).toEqual([]);
  });

  it("writes a malformed line: a typed error with the stderr tail, no process left", { timeout: TIMEOUT }, async () => {
    const { file } = badAgent(
      'process.stderr.write("about to misbehave\\n"); process.stdin.once("data", () => process.stdout.write("this is not json\\n")); setInterval(() => {}, 1000);\n',
    );
    const error = await start(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.ProtocolError);
    expect((error as SdkError).message).toContain('"this is not json"');
    expect((error as SdkError).message).toContain("about to misbehave");
    expect(await leftover(file)).toEqual([]);
  });

  it("never answers initialize: DeadlineExceeded after initializeTimeoutMs with the stderr tail, no process left", {
    timeout: TIMEOUT,
  }, async () => {
    const { file } = badAgent(
      'process.stderr.write("listening, silently\\n"); process.stdin.resume(); setInterval(() => {}, 1000);\n',
    );
    const error = await start(file, 2_000).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.DeadlineExceeded);
    expect((error as SdkError).message).toContain("listening, silently");
    expect(await leftover(file)).toEqual([]);
  });

  it("a command that does not exist: FailedPrecondition naming it, not retryable", { timeout: TIMEOUT }, async () => {
    const missing = join(tmpdir(), "no-such-acp-agent-binary");
    const error = await Agent.builder()
      .connection(acpAgent({ command: missing, cwd: tmpdir() }))
      .allowAll()
      .build()
      .start()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).message).toContain(missing);
    expect((error as SdkError).code, (error as SdkError).message).toBe(ErrorCode.FailedPrecondition);
    expect((error as SdkError).retryable).toBe(false); // the same start fails again until the command is fixed
  });
});
