import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { allowAll, askUser, deferToUser, deny, ErrorCode, SdkError, type Continuation } from "@antigravity-ts/sdk";
import { ConsumedConfirmations, signContinuation } from "@antigravity-ts/sdk/continuation";
import { InteractionsClient } from "@antigravity-ts/sdk/hosted";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { payAgent, ran, SECRET } from "./fixtures/pay-agent.js";

// A hosted turn paused on requires_action: a client function's call that a policy defers to the
// user ends the turn with a signed continuation (the interaction id and its pending calls), and
// agent.resume continues it in another process, with nothing of the first but the continuation,
// the secret and a shared replay guard: the answer is the next create with
// previous_interaction_id (FunctionResultStep per call). A continuation whose calls are not the
// interaction's pending calls (read with interactions.get) is refused call-mismatch; a replay by
// the guard; a tampered one by its signature; one whose interaction no longer waits NotFound.

const KEY = "pause-test-key-0123456789";
const here = path.dirname(fileURLToPath(import.meta.url));

let root = "";
let emulator: InteractionsEmulator;
let client: InteractionsClient;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-pause-"));
  await mkdir(path.join(root, "ws"));
  const script = parseScript({
    turns: [
      {
        match: "buy",
        calls: [
          {
            toolCalls: [
              { name: "lookup", args: { item: "book" } },
              { name: "pay", args: { amount: 12 } },
            ],
          },
          { text: "Bought: {{results.pay}} after {{results.lookup}}." },
        ],
      },
    ],
  });
  emulator = await startInteractionsEmulator({
    apiKey: KEY,
    host: "127.0.0.1",
    port: 0,
    workspace: path.join(root, "ws"),
    script,
  });
  client = new InteractionsClient({ apiKey: KEY, baseUrl: emulator.url });
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  ran.length = 0;
});

const agent = (options: Partial<Parameters<typeof payAgent>[0]> = {}) =>
  payAgent({ apiKey: KEY, baseUrl: emulator.url, ...options });

/** A "buy" turn of a fresh agent, paused on `pay`: its continuation. */
async function paused(): Promise<Continuation> {
  const started = await agent().start();
  const final = await started.chat("buy the book").final();
  await started.stop();
  const continuation = final.awaitingConfirmation?.continuation;
  if (continuation === undefined) throw new Error("the turn did not pause");
  return continuation;
}

const awaitedId = (c: Continuation): string => c.payload.pendingToolCalls[c.payload.awaitingIndex]?.id as string;
const interactionOf = (stepId: string): string => stepId.slice(0, stepId.lastIndexOf(":"));

interface ChildResult {
  text?: string;
  ran: { name: string; args: unknown }[];
  paused?: boolean;
  lastStep?: string;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

/** Resumes `continuation` in a new Node process (tsx, the SDK's sources). */
async function resumeInChild(continuation: Continuation, decision: "approve" | "deny", guardDir?: string) {
  const file = path.join(root, `continuation-${crypto.randomUUID()}.json`);
  await writeFile(file, JSON.stringify(continuation));
  const require = createRequire(import.meta.url);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      "--conditions=antigravity-source",
      "--import",
      pathToFileURL(require.resolve("tsx")).href,
      path.join(here, "fixtures/resume-paused.ts"),
    ],
    {
      env: {
        ...process.env,
        HOSTED_KEY: KEY,
        HOSTED_BASE_URL: emulator.url,
        CONTINUATION_FILE: file,
        DECISION: decision,
        ...(guardDir === undefined ? {} : { GUARD_DIR: guardDir }),
      },
      timeout: 120_000,
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ChildResult;
}

/** Resumes in this process with a fresh agent and guard (nothing live of the paused one). */
async function refusal(continuation: unknown, toolCallId: string): Promise<SdkError> {
  const error = await agent({ guard: new ConsumedConfirmations() })
    .resume(continuation, { toolCallId, approved: true })
    .then(
      () => new Error("the continuation was accepted"),
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

describe("a hosted turn paused on requires_action", () => {
  it("pauses on a deferred call with a signed continuation of the interaction, and resumes in another process", async () => {
    const continuation = await paused();
    const { payload } = continuation;
    // The allowed call ran (answered in an interaction of its own: the emulator's harness runs a
    // model response's calls one after another); the deferred one did not.
    expect(ran).toEqual([{ name: "lookup", args: { item: "book" } }]);
    expect(continuation.signature).toMatch(/^hmac-sha256:/);
    const interactionId = payload.pendingToolCalls[0]?.trajectoryId as string;
    expect(payload.pendingToolCalls).toEqual([
      expect.objectContaining({ name: "pay", args: { amount: 12 }, trajectoryId: interactionId }),
    ]);
    expect(payload.awaitingIndex).toBe(0);
    expect(payload.completedResults).toEqual([]);
    // The step of the call: `<interaction id>:<index>`, the FunctionCallStep at that index of the interaction.
    const waiting = await client.get(interactionId);
    expect(waiting["status"]).toBe("requires_action");
    const steps = waiting["steps"] as Record<string, unknown>[];
    expect(steps[payload.pendingToolCalls[0]?.stepIndex as number]).toEqual({
      type: "function_call",
      id: awaitedId(continuation),
      name: "pay",
      arguments: { amount: 12 },
    });

    const guardDir = path.join(root, `guard-${crypto.randomUUID()}`);
    await mkdir(guardDir);
    const child = await resumeInChild(continuation, "approve", guardDir);
    expect(child.error).toBeUndefined();
    expect(child.ran).toEqual([{ name: "pay", args: { amount: 12 } }]);
    expect(child.text).toBe('Bought: {"receipt":"R-12"} after {"price":12}.');
    // The answer was the next create: previous_interaction_id = the paused interaction, a
    // FunctionResultStep for its call.
    const next = await new InteractionsClient({ apiKey: KEY, baseUrl: emulator.url }).get(
      interactionOf(child.lastStep ?? ""),
    );
    expect(next["previous_interaction_id"]).toBe(interactionId);
    const withInput = await (
      await fetch(`${emulator.url}v1beta/interactions/${interactionOf(child.lastStep ?? "")}?include_input=true`, {
        headers: { "x-goog-api-key": KEY },
      })
    ).json();
    expect(withInput.input).toEqual([
      { type: "function_result", call_id: awaitedId(continuation), name: "pay", result: { receipt: "R-12" } },
    ]);

    // A replay in a third process is refused by the shared guard before anything runs or is sent.
    const replay = await resumeInChild(continuation, "approve", guardDir);
    expect(replay.ran).toEqual([]);
    expect(replay.error).toMatchObject({ code: ErrorCode.FailedPrecondition, details: { reason: "replayed" } });
  }, 180_000);

  it("resumes a refusal: the call does not run and the model reads it denied", async () => {
    const continuation = await paused();
    ran.length = 0;
    const { agent: resumed, stream } = await agent().resume(continuation, {
      toolCallId: awaitedId(continuation),
      approved: false,
    });
    expect((await stream.final()).text).toContain("denied by user");
    await resumed.stop();
    expect(ran).toEqual([]);
  });

  it("refuses a replay in the same process with the agent's guard", async () => {
    const continuation = await paused();
    const guard = new ConsumedConfirmations();
    const first = await agent({ guard }).resume(continuation, { toolCallId: awaitedId(continuation), approved: true });
    await first.stream.final();
    await first.agent.stop();
    await expect(
      agent({ guard }).resume(continuation, { toolCallId: awaitedId(continuation), approved: true }),
    ).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition, details: { reason: "replayed" } });
    expect(ran.filter((call) => call.name === "pay")).toHaveLength(1);
  });

  it("refuses, before anything is sent, continuations whose calls are not the interaction's pending calls", async () => {
    const continuation = await paused();
    const { payload } = continuation;
    const pay = payload.pendingToolCalls[0] as (typeof payload.pendingToolCalls)[number];
    const resign = (calls: (typeof payload.pendingToolCalls)[number][]) =>
      signContinuation({ ...continuation, payload: { ...payload, pendingToolCalls: calls } }, SECRET);
    ran.length = 0;

    const otherArguments = await resign([{ ...pay, args: { amount: 9000 } }]);
    expect((await refusal(otherArguments, pay.id)).details).toMatchObject({
      reason: "call-mismatch",
      part: "arguments",
      trajectoryId: pay.trajectoryId,
      stepIndex: pay.stepIndex,
    });
    const otherTool = await resign([{ ...pay, name: "lookup" }]);
    expect((await refusal(otherTool, pay.id)).details).toMatchObject({ reason: "call-mismatch", part: "tool" });
    const otherCall = await resign([{ ...pay, id: "call-forged" }]);
    expect((await refusal(otherCall, "call-forged")).details).toMatchObject({ reason: "call-mismatch", part: "call" });
    // A call that the interaction does not hold, signed beside the awaited one.
    const extra = await resign([pay, { ...pay, id: "call-extra", stepIndex: pay.stepIndex + 1 }]);
    expect((await refusal(extra, pay.id)).details).toMatchObject({ reason: "call-mismatch", part: "session" });
    expect(ran).toEqual([]);

    // Nothing was sent: the interaction still waits, and its own continuation resumes it.
    expect((await client.get(pay.trajectoryId))["status"]).toBe("requires_action");
    const { agent: resumed, stream } = await agent().resume(continuation, {
      toolCallId: awaitedId(continuation),
      approved: true,
    });
    expect((await stream.final()).text).toContain("R-12");
    await resumed.stop();
    expect(ran).toEqual([{ name: "pay", args: { amount: 12 } }]);
  });

  it("refuses a tampered or unsigned continuation by its signature", async () => {
    const continuation = await paused();
    const tampered = {
      ...continuation,
      payload: {
        ...continuation.payload,
        pendingToolCalls: continuation.payload.pendingToolCalls.map((call) =>
          call.name === "pay" ? { ...call, args: { amount: 1 } } : call,
        ),
      },
    };
    expect(await refusal(tampered, awaitedId(continuation))).toMatchObject({
      code: ErrorCode.PermissionDenied,
      details: { reason: "bad-signature" },
    });
    const { signature: _, ...unsigned } = continuation;
    expect(await refusal(unsigned, awaitedId(continuation))).toMatchObject({
      code: ErrorCode.PermissionDenied,
      details: { reason: "unsigned" },
    });
    expect(ran.filter((call) => call.name === "pay")).toEqual([]);
  });

  it("says NotFound when the interaction no longer waits (cancelled) or is gone (deleted)", async () => {
    const cancelled = await paused();
    await client.cancel(cancelled.payload.pendingToolCalls[0]?.trajectoryId as string);
    expect(await refusal(cancelled, awaitedId(cancelled))).toMatchObject({
      code: ErrorCode.NotFound,
      details: { reason: "confirmation-gone" },
    });
    const deleted = await paused();
    await fetch(`${emulator.url}v1beta/interactions/${deleted.payload.pendingToolCalls[0]?.trajectoryId}`, {
      method: "DELETE",
      headers: { "x-goog-api-key": KEY },
    });
    expect(await refusal(deleted, awaitedId(deleted))).toMatchObject({
      code: ErrorCode.NotFound,
      details: { reason: "confirmation-gone" },
    });
    expect(ran.filter((call) => call.name === "pay")).toEqual([]);
  });

  it("pauses again on the next deferred call of the resumed turn", async () => {
    const policies = [deferToUser("lookup"), deferToUser("pay"), allowAll()];
    const started = await agent({ policies }).start();
    const first = (await started.chat("buy the book").final()).awaitingConfirmation?.continuation as Continuation;
    await started.stop();
    expect(first.payload.pendingToolCalls[first.payload.awaitingIndex]?.name).toBe("lookup");
    expect(ran).toEqual([]);
    const one = await agent({ policies }).resume(first, { toolCallId: awaitedId(first), approved: true });
    const again = (await one.stream.final()).awaitingConfirmation?.continuation as Continuation;
    await one.agent.stop();
    expect(again.payload.pendingToolCalls[again.payload.awaitingIndex]?.name).toBe("pay");
    // The next interaction of the same turn: it went on from the answered one.
    const next = await client.get(again.payload.pendingToolCalls[0]?.trajectoryId as string);
    expect(next["previous_interaction_id"]).toBe(first.payload.pendingToolCalls[0]?.trajectoryId);
    const two = await agent({ policies }).resume(again, { toolCallId: awaitedId(again), approved: true });
    expect((await two.stream.final()).text).toBe('Bought: {"receipt":"R-12"} after {"price":12}.');
    await two.agent.stop();
    expect(ran.map((call) => call.name)).toEqual(["lookup", "pay"]);
  });

  it("decides client calls with the agent's policies: deny and askUser handlers, no pause", async () => {
    const asked: string[] = [];
    const policies = [
      deny("lookup"),
      askUser("pay", (call) => {
        asked.push(call.name);
        return true;
      }),
      allowAll(),
    ];
    await using started = await agent({ policies }).start();
    const final = await started.chat("buy the book").final();
    expect(final.awaitingConfirmation).toBeUndefined();
    expect(asked).toEqual(["pay"]);
    expect(ran).toEqual([{ name: "pay", args: { amount: 12 } }]);
    expect(final.text).toContain("denied by the agent's policies");
  });

  it("refuses at start() an ask-user policy for a tool that is not a client tool", async () => {
    for (const policy of [deferToUser("run_command"), deferToUser("*"), askUser("view_file", () => true)]) {
      await expect(agent({ policies: [policy, allowAll()] }).start()).rejects.toMatchObject({
        code: ErrorCode.Unsupported,
        details: { wire: "interactions", option: expect.stringContaining(policy.name) },
      });
    }
  });
});
