import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { NDJSON_OUTPUT_FIELDS } from "../cli/ndjson-protocol.js";
import { REPO_ROOT, ensureScriptedReferenceHarness } from "@antigravity-ts/test-kit";
import { processAlive, processTree } from "./testing/process-tree.js";
import {
  spawnStreamingSession,
  type NdjsonSessionEvent,
  type NdjsonStreamingSession,
  type SpawnStreamingSessionOptions,
} from "./ndjson-streaming-session.js";

// StreamingSession over an NDJSON child process (issue 11 item 2, seed 003's shape): the real
// `antigravity` CLI with the bundled reference harness, and a fake child that writes bad lines.

const TURNS_SCRIPT = fileURLToPath(new URL("../../../../test/node/e2e/scripts/turns-script.json", import.meta.url));
const FAKE_CHILD = fileURLToPath(new URL("./testing/bad-lines-child.mjs", import.meta.url));
const EXITING_PARENT = fileURLToPath(new URL("./testing/exiting-parent.ts", import.meta.url));
const BOUND_MS = 30_000;

let harnessPath = "";
beforeAll(async () => {
  harnessPath = await ensureScriptedReferenceHarness();
}, 300_000);

const sessions: NdjsonStreamingSession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session[Symbol.asyncDispose]();
});

function cliSession(options: SpawnStreamingSessionOptions & { scripted?: boolean } = {}): NdjsonStreamingSession {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["GEMINI_API_KEY", "ANTIGRAVITY_HARNESS_PATH", "ANTIGRAVITY_MODEL_PROVIDER"]) delete env[name];
  if (options.scripted === true)
    Object.assign(env, { ANTIGRAVITY_MODEL_PROVIDER: "scripted", ANTIGRAVITY_SCRIPT: TURNS_SCRIPT });
  const session = spawnStreamingSession({
    midTurn: options.midTurn,
    args: ["--harness", harnessPath],
    env,
    cwd: REPO_ROOT,
  });
  sessions.push(session);
  return session;
}

/** Reads events until one matches (bounded); returns every event read. */
async function until(
  session: NdjsonStreamingSession,
  match: (event: NdjsonSessionEvent) => boolean,
  what: string,
): Promise<NdjsonSessionEvent[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${BOUND_MS} ms`)), BOUND_MS)),
  );
  const reading = (async () => {
    const seen: NdjsonSessionEvent[] = [];
    for (;;) {
      const event = await session.nextEvent();
      if (event === undefined)
        throw new Error(`the session ended before ${what}: ${JSON.stringify(seen.map((e) => e.type))}`);
      seen.push(event);
      if (match(event)) return seen;
    }
  })();
  return Promise.race([reading, timeout]).finally(() => clearTimeout(timer));
}

const text = (events: NdjsonSessionEvent[]): string =>
  events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");
const results = (events: NdjsonSessionEvent[]) => events.flatMap((e) => (e.type === "result" ? [e] : []));

describe("spawnStreamingSession over the antigravity CLI (a real child process)", () => {
  it("runs two turns, each ending with turnComplete then result; approves a confirmation; closeInput → wait() gives exit 0 and nextEvent() undefined", async () => {
    const session = cliSession();
    expect(session.capabilities.streamingInput).toEqual({ supported: true, semantics: "queue" });
    const [init] = await until(session, (e) => e.type === "init", "init");
    expect(init).toMatchObject({ type: "init", capabilities: { streamingInput: { semantics: "queue" } } });

    expect(await session.sendUserMessage("What is the weather in Oslo?")).toEqual({ messageIndex: 0, turnIndex: 0 });
    const first = await until(session, (e) => e.type === "result", "the first result");
    expect(first.at(-2)).toMatchObject({ type: "turnComplete", turnIndex: 0 });
    expect(first.at(-1)).toMatchObject({ type: "result", turnIndex: 0, success: true, interrupted: false });
    expect(first.some((e) => e.type === "toolCall" && e.toolCall.name === "get_weather")).toBe(true);

    const second = session.sendUserMessage("please run the tests");
    const asked = await until(session, (e) => e.type === "confirmationRequest", "the confirmation request");
    const request = asked.at(-1);
    if (request?.type !== "confirmationRequest") throw new Error("unreachable");
    expect(request.toolCall.name).toBe("run_command");
    session.approve(request.requestId);
    expect(await second).toEqual({ messageIndex: 1, turnIndex: 1 });
    const turn = await until(session, (e) => e.type === "result", "the second result");
    expect(turn.some((e) => e.type === "toolResult" && e.toolCall.name === "run_command")).toBe(true);
    expect(turn.at(-2)).toMatchObject({ type: "turnComplete", turnIndex: 1 });
    expect(turn.at(-1)).toMatchObject({ type: "result", turnIndex: 1, success: true });

    session.closeInput();
    await expect(session.sendUserMessage("too late")).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    expect(await session.wait()).toEqual({ code: 0, signal: null });
    expect(await session.nextEvent()).toBeUndefined();
  });

  it("queue: a message sent mid-turn waits; the running turn completes in full, then the message's turn runs", async () => {
    const session = cliSession({ midTurn: "queue", scripted: true });
    await session.sendUserMessage("slow please");
    await until(session, (e) => e.type === "text", "the slow turn's first text");
    const queued = session.sendUserMessage("hello there");
    const events = await until(session, (e) => e.type === "result" && e.turnIndex === 1, "the queued turn's result");
    expect(await queued).toEqual({ messageIndex: 1, turnIndex: 1 });
    expect(results(events).map((r) => [r.turnIndex, r.success, r.interrupted])).toEqual([
      [0, true, false],
      [1, true, false],
    ]);
    expect(text(events)).toContain("word199");
    expect(text(events.slice(events.findIndex((e) => e.type === "result") + 1))).toBe(
      "Hello! Streaming this answer in chunks.",
    );
  });

  it("interrupt: a message sent mid-turn halts the turn (partial output kept); interrupt() halts one and resolves after its result", async () => {
    const session = cliSession({ midTurn: "interrupt", scripted: true });
    expect(session.capabilities.streamingInput.semantics).toBe("interrupt");
    await session.sendUserMessage("slow please");
    const before = await until(session, (e) => e.type === "text", "the slow turn's first text");
    const newer = session.sendUserMessage("hello there");
    const events = [
      ...before,
      ...(await until(session, (e) => e.type === "result" && e.turnIndex === 1, "the newer message's result")),
    ];
    expect(await newer).toEqual({ messageIndex: 1, turnIndex: 1 });
    const [halted, next] = results(events);
    expect(halted).toMatchObject({ turnIndex: 0, success: false, interrupted: true });
    expect(halted?.error).toBeInstanceOf(SdkError);
    expect(halted?.error?.code).toBe(ErrorCode.Canceled);
    const partial = text(events.slice(0, events.indexOf(halted as NdjsonSessionEvent)));
    expect(partial.startsWith("word0")).toBe(true);
    expect(partial).not.toContain("word199");
    expect(next).toMatchObject({ turnIndex: 1, success: true });

    await session.sendUserMessage("slow again");
    await until(session, (e) => e.type === "text", "the third turn's first text");
    await session.interrupt();
    const rest = await until(session, (e) => e.type === "result", "the interrupted third turn's result");
    expect(rest.at(-1)).toMatchObject({ type: "result", turnIndex: 2, interrupted: true });
  });

  it("between-turns-only: a mid-turn message is refused with FailedPrecondition and the running turn completes", async () => {
    const session = cliSession({ midTurn: "between-turns-only", scripted: true });
    await session.sendUserMessage("slow please");
    await until(session, (e) => e.type === "text", "the slow turn's first text");
    await expect(session.sendUserMessage("hello there")).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    const events = await until(session, (e) => e.type === "result", "the slow turn's result");
    expect(events.at(-1)).toMatchObject({ turnIndex: 0, success: true });
    expect(await session.sendUserMessage("hello there")).toEqual({ messageIndex: 1, turnIndex: 1 });
  });

  it("await using mid-turn ends the CLI and its harness: no process of the tree is left (ps)", async () => {
    let tree: number[] = [];
    {
      await using session = cliSession({ scripted: true });
      await session.sendUserMessage("slow please");
      await until(session, (e) => e.type === "text", "the slow turn's first text");
      tree = processTree(session.pid ?? -1);
      expect(tree.length).toBeGreaterThanOrEqual(2); // the CLI and its harness
    }
    expect(tree.filter(processAlive)).toEqual([]);
  });

  it.each(["exit", "kill"])(
    "a parent that ends mid-turn (%s) leaves no process of the session's tree behind (ps)",
    async (how) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ANTIGRAVITY_MODEL_PROVIDER: "scripted",
        ANTIGRAVITY_SCRIPT: TURNS_SCRIPT,
      };
      for (const name of ["GEMINI_API_KEY", "ANTIGRAVITY_HARNESS_PATH"]) delete env[name];
      const parent = spawn(
        process.execPath,
        ["--conditions=antigravity-source", "--import", "tsx", EXITING_PARENT, harnessPath, how],
        { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      parent.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
      await new Promise((resolve) => parent.once("exit", resolve));
      const tree = (JSON.parse(out) as { tree: number[] }).tree;
      expect(tree.length).toBeGreaterThanOrEqual(2); // the CLI and its harness, seen by the parent before it ended
      // Liveness bound: a child left without its parent must notice (signal or end of input) and go.
      for (let waited = 0; tree.some(processAlive) && waited < BOUND_MS; waited += 200) await sleep(200);
      expect(tree.filter(processAlive)).toEqual([]);
    },
  );
});

describe("spawnStreamingSession over a hostile child", () => {
  it("turns malformed, over-long and incomplete lines into ProtocolError events, ignores unknown types, and goes on", async () => {
    const session = spawnStreamingSession({ command: process.execPath, args: [FAKE_CHILD] });
    sessions.push(session);
    const receipt = session.sendUserMessage("hi");
    const events = await until(session, (e) => e.type === "result", "the fake turn's result");
    expect(await receipt).toEqual({ messageIndex: 0, turnIndex: 0 });
    const errors = events.flatMap((e) => (e.type === "error" ? [e.error] : []));
    expect(errors.map((e) => e.code)).toEqual([
      ErrorCode.ProtocolError,
      ErrorCode.ProtocolError,
      ErrorCode.ProtocolError,
      ErrorCode.ProtocolError,
    ]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/not JSON/),
      expect.stringMatching(/3145728 characters; the limit is 1048576/),
      expect.stringMatching(/a text line needs a string "text"/),
      expect.stringMatching(/version 3 is not supported/),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      "init",
      "error",
      "error",
      "error",
      "error",
      "text",
      "turnComplete",
      "result",
    ]);
    expect(text(events)).toBe("still here");
    session.closeInput();
    expect(await session.wait()).toEqual({ code: 0, signal: null });
    expect(await session.nextEvent()).toBeUndefined();
  });

  it("reports a child whose init declares other mid-turn semantics than the session's with a FailedPrecondition error event", async () => {
    const session = spawnStreamingSession({ command: process.execPath, args: [FAKE_CHILD], midTurn: "interrupt" });
    sessions.push(session);
    expect(await session.nextEvent()).toMatchObject({
      type: "init",
      capabilities: { streamingInput: { semantics: "queue" } },
    });
    const mismatch = await session.nextEvent();
    expect(mismatch).toMatchObject({ type: "error", error: { code: ErrorCode.FailedPrecondition } });
    expect(mismatch?.type === "error" ? mismatch.error.message : "").toMatch(
      /declares mid-turn semantics "queue", but the session was opened with "interrupt"/,
    );
    session.closeInput();
    expect(await session.wait()).toEqual({ code: 0, signal: null });
  });

  it("rejects a receipt with ConnectionClosed when the child dies without answering", async () => {
    const dying = spawnStreamingSession({ command: process.execPath, args: ["-e", "process.exit(3)"] });
    await expect(dying.sendUserMessage("anyone?")).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    expect(await dying.wait()).toEqual({ code: 3, signal: null });
  });

  // Issue 26: the same mapping as a missing harness binary (spawn-errors.ts): configuration, never retryable.
  it("a missing command is an error event with FailedPrecondition, not retryable, naming the path and what to do", async () => {
    const missing = spawnStreamingSession({ command: "/nonexistent/ndjson-agent" });
    const event = await missing.nextEvent();
    if (event?.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(event)}`);
    expect(event.error.code).toBe(ErrorCode.FailedPrecondition);
    expect(event.error.retryable).toBe(false);
    expect(event.error.message).toBe(
      "NDJSON agent command not found at /nonexistent/ndjson-agent: install it, or point spawnStreamingSession's command option at the program (a full path or one on PATH)",
    );
    expect(event.error.details).toMatchObject({ binaryPath: "/nonexistent/ndjson-agent", errno: "ENOENT" });
    expect(await missing.nextEvent()).toBeUndefined();
    expect(await missing.wait()).toEqual({ code: null, signal: null });
  });

  it.skipIf(process.platform === "win32")(
    "a command that is not executable is PermissionDenied, not retryable, saying chmod +x",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "ndjson-noexec-"));
      const script = join(dir, "agent.sh");
      await writeFile(script, "#!/bin/sh\necho never\n", { mode: 0o644 });
      try {
        const event = await spawnStreamingSession({ command: script }).nextEvent();
        if (event?.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(event)}`);
        expect(event.error.code).toBe(ErrorCode.PermissionDenied);
        expect(event.error.retryable).toBe(false);
        expect(event.error.message).toContain(`NDJSON agent command at ${script} cannot be executed (EACCES)`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe("the output line format", () => {
  it("requires what docs/ndjson.schema.json requires, for every output type", () => {
    type Branch = { properties: { type: { const?: string; enum?: string[] } }; required: string[] };
    const schema = JSON.parse(
      readFileSync(new URL("../../../../docs/ndjson.schema.json", import.meta.url), "utf8"),
    ) as { $defs: { output: { oneOf: Branch[] } } };
    const fromSchema: Record<string, string[]> = {};
    for (const branch of schema.$defs.output.oneOf) {
      for (const type of branch.properties.type.enum ?? [branch.properties.type.const ?? ""])
        fromSchema[type] = branch.required.filter((k) => k !== "type").sort();
    }
    const fromCode = Object.fromEntries(
      Object.entries(NDJSON_OUTPUT_FIELDS).map(([type, fields]) => [type, Object.keys(fields).sort()]),
    );
    expect(fromCode).toEqual(fromSchema);
  });
});
