import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessEnv, harnessExecutable } from "@antigravity-ts/test-kit";
import { ProcessWatch } from "./process-watch.js";

// Seed 002's durable conversation across processes: a Node process runs an agent whose
// conversation is persisted (the SDK's file store + the harness's saveDir), is SIGKILLed in the
// middle of a turn, and a new process continues the same conversation.

const tsxLoader = createRequire(import.meta.url).resolve("tsx");
const AGENT = fileURLToPath(new URL("./persisted-agent.ts", import.meta.url));
const SCRIPT = fileURLToPath(new URL("./scripts/persist-script.json", import.meta.url));
const ID = "restart-0123456789abcdef0123456789abcdef";
const OTHER_ID = "restart-both-0123456789abcdef0123456789ab";

interface Event {
  event: string;
  [key: string]: unknown;
}

interface BriefStep {
  id: string;
  type: string;
  source: string;
  status: string;
  error: string;
  content: string;
  calls: string[];
}

let root: string;
let harnessPath: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "persist-restart-"));
  harnessPath = await harnessExecutable("source");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(path.dirname(harnessPath), { recursive: true, force: true });
});

/** Starts persisted-agent.ts with `prompts`; `events` fills as it prints. */
function runAgent(
  prompts: string[],
  id = ID,
): {
  child: ChildProcess;
  events: Event[];
  waitFor(name: string): Promise<Event>;
  exited: Promise<number | null>;
  stderr(): string;
} {
  const env = { ...harnessEnv(SCRIPT), ANTIGRAVITY_HARNESS_PATH: harnessPath };
  const child = spawn(
    process.execPath,
    [
      "--conditions=antigravity-source",
      "--import",
      tsxLoader,
      AGENT,
      path.join(root, "harness"),
      path.join(root, "sdk"),
      id,
      ...prompts,
    ],
    {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const events: Event[] = [];
  let stderr = "";
  let buffer = "";
  const waiters: { name: string; resolve: (e: Event) => void }[] = [];
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const event = JSON.parse(buffer.slice(0, nl)) as Event;
      buffer = buffer.slice(nl + 1);
      events.push(event);
      for (const waiter of waiters.filter((w) => w.name === event.event)) waiter.resolve(event);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    events,
    exited,
    stderr: () => stderr,
    waitFor: (name) =>
      new Promise<Event>((resolve, reject) => {
        const found = events.find((e) => e.event === name);
        if (found !== undefined) return resolve(found);
        waiters.push({ name, resolve });
        void exited.then((code) =>
          reject(new Error(`the agent process exited (${code}) before "${name}":\n${stderr}`)),
        );
      }),
  };
}

/** Every tool call of the history has a result: no TOOL_CALL step is left ACTIVE or WAITING_FOR_USER. */
function unfinished(history: BriefStep[]): BriefStep[] {
  return history.filter((s) => s.status === "ACTIVE" || s.status === "WAITING_FOR_USER");
}

describe("a persisted conversation survives its process being killed mid-turn", () => {
  it("SIGKILL during a client tool call; a new process continues the same conversation with a well-formed history and the right turn count", async () => {
    const watch = new ProcessWatch();
    // Process 1: a whole turn (saved by the SDK's store at its end), then a turn killed in its tool call.
    const first = runAgent(["ping one", "wait for the slow tool"]);
    expect((await first.waitFor("started"))["turnCount"]).toBe(0);
    expect(await first.waitFor("turn")).toMatchObject({ text: "pong to ping one", turnCount: 1 });
    await first.waitFor("toolStarted");
    watch.sample(); // the harness of process 1 is running now
    first.child.kill("SIGKILL");
    await first.exited;
    // Its harness sees its stdin close, ends the session (the running turn's steps as failed) and saves it.
    expect(await watch.leftovers()).toEqual([]);
    expect(await readdir(path.join(root, "sdk"))).toEqual([`${ID}.json`]);

    // Process 2: same ids, same directories.
    const second = runAgent(["ping two"]);
    const started = await second.waitFor("started");
    const history = started["history"] as BriefStep[];
    expect(started["conversationId"]).toBe(ID);
    expect(started["turnCount"]).toBe(2);
    expect(history.filter((s) => s.source === "USER").map((s) => s.content)).toEqual([
      "ping one",
      "wait for the slow tool",
    ]);
    expect(started["turnStartIndices"]).toEqual(history.flatMap((s, i) => (s.source === "USER" ? [i] : [])));
    expect(unfinished(history)).toEqual([]);
    const calls = history.filter((s) => s.type === "TOOL_CALL");
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((s) => s.status === "DONE" || (s.status === "ERROR" && s.error !== ""))).toBe(true);
    expect(history.find((s) => s.content === "pong to ping one")?.status).toBe("DONE");

    expect(await second.waitFor("turn")).toMatchObject({ text: "pong to ping two", turnCount: 3 });
    expect(await second.exited).toBe(0);
    expect(await watch.leftovers()).toEqual([]);

    // Process 3: nothing killed this time; everything from both runs is there.
    const third = runAgent([]);
    const last = await third.waitFor("started");
    expect(last["turnCount"]).toBe(3);
    expect((last["history"] as BriefStep[]).filter((s) => s.source === "USER").map((s) => s.content)).toEqual([
      "ping one",
      "wait for the slow tool",
      "ping two",
    ]);
    expect(unfinished(last["history"] as BriefStep[])).toEqual([]);
    expect(await third.exited).toBe(0);
  });

  it("SIGKILL of the process and its harness together: both sides resume from the last whole turn, in agreement", async () => {
    const watch = new ProcessWatch();
    const first = runAgent(["ping one", "wait for the slow tool"], OTHER_ID);
    await first.waitFor("toolStarted");
    const everyone = [...watch.sample().keys()]; // the agent process and its harness (its own process group)
    expect(everyone.length).toBeGreaterThanOrEqual(2);
    // Frozen first, so that neither gets to notice the other's death and save; then killed.
    for (const pid of everyone) process.kill(pid, "SIGSTOP");
    for (const pid of everyone) process.kill(pid, "SIGKILL");
    expect(await watch.leftovers()).toEqual([]);

    // Neither side saved the killed turn: the SDK at its turn ends, the harness at turn ends and on close.
    const second = runAgent(["ping two"], OTHER_ID);
    const started = await second.waitFor("started");
    expect(started["conversationId"]).toBe(OTHER_ID);
    expect(started["turnCount"]).toBe(1);
    expect((started["history"] as BriefStep[]).map((s) => s.content)).toEqual(["ping one", "pong to ping one"]);
    expect(await second.waitFor("turn")).toMatchObject({ text: "pong to ping two", turnCount: 2 });
    expect(await second.exited).toBe(0);
    expect(await watch.leftovers()).toEqual([]);
  });
});
