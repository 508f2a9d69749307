import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  allowAll,
  deferToUser,
  type Continuation,
} from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Security issue item 1: a continuation approves only the call it was signed for. The harness
// restarts without storage and forgets conversation ID; a second client re-creates ID and pauses
// at the same step on another command (or another tool). The stale continuation must not approve
// it: FailedPrecondition naming the part that differs, nothing sent, nothing run.

const SCRIPT = fileURLToPath(new URL("./scripts/stale-continuation-script.json", import.meta.url));
const SECRET = "binding-secret-0123456789abcdef-0123";
const ID = "00000000-0000-4000-8000-0000000057a1";
const BOUND_MS = 30_000;

let workspace = "";
let harness: ListeningHarness;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "antigravity-binding-"));
});

afterAll(async () => {
  await killAllHarnesses();
  await rm(workspace, { recursive: true, force: true });
});

function agent(conversationId = ID): Agent {
  return new Agent({
    transport: new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey }),
    workspaces: [workspace],
    conversationId,
    policies: [deferToUser("run_command"), deferToUser("create_file"), allowAll()],
    continuationSecret: SECRET,
  });
}

/** Chats `prompt` on conversation ID and returns the continuation the turn paused with. */
async function pausedOn(prompt: string, conversationId = ID): Promise<Continuation> {
  const started = await agent(conversationId).start({ timeoutMs: BOUND_MS });
  const final = await started.chat(prompt).final();
  await started.stop();
  const continuation = final.awaitingConfirmation?.continuation;
  if (continuation === undefined) throw new Error(`"${prompt}" did not pause`);
  return continuation;
}

async function restartHarness(): Promise<void> {
  await harness.stop();
  harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "binding-key-0123456789" });
}

async function refusal(continuation: Continuation): Promise<SdkError> {
  const awaited = continuation.payload.pendingToolCalls[continuation.payload.awaitingIndex];
  const error = await agent(continuation.payload.conversationId)
    .resume(continuation, { toolCallId: awaited?.id as string, approved: true }, { timeoutMs: BOUND_MS })
    .then(
      () => new Error("the stale continuation was accepted"),
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

describe("a continuation approves only the call it was signed for", () => {
  it("refuses a re-created conversation that pauses at the same step on another command, and runs nothing", async () => {
    harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "binding-key-0123456789" });
    const stale = await pausedOn("safe please");
    const signed = stale.payload.pendingToolCalls[stale.payload.awaitingIndex];
    expect(signed).toMatchObject({ id: `${ID}:${signed?.stepIndex}`, args: { CommandLine: "echo SAFE >> stale.txt" } });

    await restartHarness();
    const evil = await pausedOn("evil please");
    expect(evil.payload.pendingToolCalls[evil.payload.awaitingIndex]?.id).toBe(signed?.id);

    const error = await refusal(stale);
    expect(error.code).toBe(ErrorCode.FailedPrecondition);
    expect(error.details).toMatchObject({ reason: "call-mismatch", part: "arguments", stepIndex: signed?.stepIndex });
    expect(error.message).toContain("echo EVIL");
    await expect(readFile(path.join(workspace, "stale.txt"), "utf8")).rejects.toThrow();

    // The held call is still waiting: its own continuation resumes it (denied here), so the
    // refusal above sent nothing.
    const evilCall = evil.payload.pendingToolCalls[evil.payload.awaitingIndex]?.id as string;
    const { agent: resumed, stream } = await agent().resume(
      evil,
      { toolCallId: evilCall, approved: false },
      { timeoutMs: BOUND_MS },
    );
    expect((await stream.final()).text).toContain("evil done");
    await resumed.stop();
    await expect(readFile(path.join(workspace, "stale.txt"), "utf8")).rejects.toThrow();
  }, 120_000);

  it("refuses a re-created conversation that pauses at the same step on another tool", async () => {
    await restartHarness();
    const id = "00000000-0000-4000-8000-0000000057a2";
    const stale = await pausedOn("safe please", id);
    await restartHarness();
    const swap = await pausedOn("swap please", id);
    expect(swap.payload.pendingToolCalls[swap.payload.awaitingIndex]?.id).toBe(
      stale.payload.pendingToolCalls[stale.payload.awaitingIndex]?.id,
    );
    const error = await refusal(stale);
    expect(error.code).toBe(ErrorCode.FailedPrecondition);
    expect(error.details).toMatchObject({
      reason: "call-mismatch",
      part: "tool",
      stepIndex: stale.payload.pendingToolCalls[stale.payload.awaitingIndex]?.stepIndex,
    });
    expect(error.message).toContain("create_file");
    await expect(readFile(path.join(workspace, "stale.txt"), "utf8")).rejects.toThrow();
  }, 120_000);
});
