import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  allowAll,
  deferToUser,
  type ChatEvent,
  type ChatResponse,
  type Continuation,
} from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 11 item 3 against the reference harness: a deferred confirmation pauses the turn with a
// signed continuation; another process resumes it (and pauses again on the next call of the same
// turn); a tampered or replayed continuation is refused; a harness that forgot the turn says so.

const SCRIPT = fileURLToPath(new URL("./scripts/continuation-script.json", import.meta.url));
const CHILD = fileURLToPath(new URL("./scripts/resume-child.ts", import.meta.url));
const SECRET = "continuation-secret-0123456789abcdef";
const BOUND_MS = 30_000;

let workspace = "";
let harness: ListeningHarness | undefined;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "antigravity-continuations-"));
  harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "continuation-key-0123456789" });
});

afterAll(async () => {
  await killAllHarnesses();
  await rm(workspace, { recursive: true, force: true });
});

function agent(): Agent {
  const h = harness as ListeningHarness;
  return new Agent({
    transport: new WebSocketTransport({ host: "127.0.0.1", port: h.port, apiKey: h.apiKey }),
    workspaces: [workspace],
    policies: [deferToUser("run_command"), allowAll()],
    continuationSecret: SECRET,
  });
}

async function failure(promise: Promise<unknown>): Promise<SdkError> {
  const error = await promise.then(
    () => new Error("expected a failure"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

/** Resumes in a child node process; returns what it printed. */
function resumeInChild(
  continuation: Continuation,
  approved: boolean,
): Promise<{
  text?: string;
  awaiting?: { toolCall: { id: string; name: string }; continuation: Continuation } | null;
  error?: { code: string; message: string };
}> {
  const h = harness as ListeningHarness;
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const input = {
    port: h.port,
    apiKey: h.apiKey,
    secret: SECRET,
    continuation,
    approved,
    toolCallId: continuation.payload.pendingToolCalls[continuation.payload.awaitingIndex]?.id,
  };
  const child = spawn(process.execPath, ["--conditions=antigravity-source", "--import", tsx, CHILD], {
    env: { ...process.env, RESUME_INPUT: JSON.stringify(input) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the resuming child did not finish within ${BOUND_MS} ms: ${err}`));
    }, BOUND_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      const line = out.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(line) as never);
      } catch {
        reject(new Error(`the resuming child (exit ${String(code)}) printed no result: ${out}\n${err}`));
      }
    });
  });
}

async function pause(prompt = "two commands please"): Promise<ChatResponse> {
  const started = await agent().start();
  const stream = started.chat(prompt);
  const events: ChatEvent[] = [];
  for await (const event of stream.events()) events.push(event);
  const final = await stream.final();
  // The pause is also an event, just before turnComplete.
  expect(events.slice(-2).map((e) => e.type)).toEqual(["awaitingConfirmation", "turnComplete"]);
  expect(events.at(-2)).toMatchObject({ toolCall: { id: final.awaitingConfirmation?.toolCall.id } });
  await started.stop();
  return final;
}

describe("continuations against the reference harness", () => {
  it("pauses, refuses a tampered envelope, resumes in another process, pauses again in the same turn, refuses a replay, and resumes the second pause here", async () => {
    const first = await pause();
    const awaiting = first.awaitingConfirmation;
    expect(awaiting?.toolCall.name).toBe("run_command");
    const continuation = awaiting?.continuation as Continuation;
    expect(continuation.signature).toMatch(/^hmac-sha256:/);
    expect(continuation.payload).toMatchObject({ awaitingIndex: 0, completedResults: [], stopReason: null });
    expect(continuation.payload.pendingToolCalls[0]).toMatchObject({
      name: "run_command",
      args: { CommandLine: "echo one >> log.txt" },
    });
    expect(continuation.payload.responseContent).toContain("I will run two commands.");
    // Nothing ran while paused.
    await expect(readFile(path.join(workspace, "log.txt"), "utf8")).rejects.toThrow();

    // A page that alters the call it approves is refused before anything is sent.
    const tampered = structuredClone(continuation);
    (tampered.payload.pendingToolCalls[0] as { args: unknown }).args = { CommandLine: "echo pwned >> log.txt" };
    const id = awaiting?.toolCall.id as string;
    expect((await failure(agent().resume(tampered, { toolCallId: id, approved: true }))).code).toBe(
      ErrorCode.PermissionDenied,
    );
    expect((await failure(agent().resume(continuation, { toolCallId: "someone-else", approved: true }))).code).toBe(
      ErrorCode.InvalidArgument,
    );

    // Another process approves: the first command runs, the second call pauses the same turn again.
    const child = await resumeInChild(continuation, true);
    expect(child.error).toBeUndefined();
    expect(await readFile(path.join(workspace, "log.txt"), "utf8")).toBe("one\n");
    const second = child.awaiting?.continuation as Continuation;
    expect(child.awaiting?.toolCall.name).toBe("run_command");
    expect(second.payload.conversationId).toBe(continuation.payload.conversationId);
    expect(second.payload.pendingToolCalls[second.payload.awaitingIndex]).toMatchObject({
      args: { CommandLine: "echo two >> log.txt" },
    });

    // The first continuation again: the harness no longer waits on that step (replay), and this process then refuses it outright.
    const replay = await failure(agent().resume(continuation, { toolCallId: id, approved: true }));
    expect(replay.code).toBe(ErrorCode.NotFound);
    expect((await failure(agent().resume(continuation, { toolCallId: id, approved: true }))).details["reason"]).toBe(
      "replayed",
    );

    // The second pause, refused here: the turn ends, the first command is not run again.
    const secondCall = second.payload.pendingToolCalls[second.payload.awaitingIndex]?.id as string;
    const { agent: resumed, stream } = await agent().resume(
      second,
      { toolCallId: secondCall, approved: false },
      { timeoutMs: BOUND_MS },
    );
    const last = await stream.final();
    expect(last.awaitingConfirmation).toBeUndefined();
    expect(last.text).toContain("all done");
    expect(
      last.steps.find((s) => s.stepIndex === second.payload.pendingToolCalls[second.payload.awaitingIndex]?.stepIndex)
        ?.error,
    ).toContain("denied by user");
    expect(await readFile(path.join(workspace, "log.txt"), "utf8")).toBe("one\n");
    // The conversation goes on.
    expect((await resumed.chatToCompletion("ping")).text).toBe("pong");
    await resumed.stop();
  }, 180_000);

  it("says NotFound when the harness forgot the paused turn (restarted without storage), and the harness serves new sessions", async () => {
    const paused = await pause();
    const continuation = paused.awaitingConfirmation?.continuation as Continuation;
    const h = harness as ListeningHarness;
    await h.stop();
    harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: h.apiKey });
    const error = await failure(
      agent().resume(
        continuation,
        { toolCallId: paused.awaitingConfirmation?.toolCall.id as string, approved: true },
        { timeoutMs: BOUND_MS },
      ),
    );
    expect(error.code).toBe(ErrorCode.NotFound);
    const fresh = await agent().start();
    expect((await fresh.chatToCompletion("ping")).text).toBe("pong");
    await fresh.stop();
  }, 120_000);
});
