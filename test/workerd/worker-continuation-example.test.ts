import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { signContinuation, type Continuation } from "@antigravity-ts/sdk/continuation";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "./bundle-worker.js";
import { harnessEnv, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// docs/examples/worker-continuation in real workerd (miniflare, SQLite-backed Durable Object
// storage) against the built reference harness on its offline scripted model: a turn pauses on
// run_command in one request, workerd is restarted, and the next request resumes it from the
// continuation kept in the Durable Object; tampered and replayed envelopes are refused.

const SCRIPT = fileURLToPath(new URL("../node/e2e/scripts/continuation-script.json", import.meta.url));
const SECRET = "worker-continuation-secret-0123456789abcdef";

interface Envelope {
  version: number;
  payload: {
    conversationId: string;
    awaitingIndex: number;
    pendingToolCalls: { id: string; name: string; args: unknown }[];
  };
  signature: string;
}

interface TurnBody {
  conversationId: string;
  text: string;
  awaiting?: { toolCall: { id: string; name: string; args: unknown }; continuationId: string };
  continuation?: Envelope;
  error?: { code: string; message: string; reason: string | null };
}

let script: string;
let harness: ListeningHarness;
let persist: string;
let workspace: string;
const workers: Miniflare[] = [];

async function startWorker(target: ListeningHarness = harness): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-01",
    bindings: { HARNESS_URL: target.url, HARNESS_API_KEY: target.apiKey, CONTINUATION_SECRET: SECRET },
    durableObjects: { PENDING: { className: "PendingConfirmation", useSQLite: true } },
    durableObjectsPersist: persist,
  });
  workers.push(mf);
  await mf.ready;
  return mf;
}

async function restart(): Promise<Miniflare> {
  await Promise.all(workers.splice(0).map((w) => w.dispose()));
  return startWorker();
}

async function post(mf: Miniflare, route: string, body: unknown): Promise<{ status: number; body: TurnBody }> {
  const response = await mf.dispatchFetch(`http://approvals.test${route}`, {
    method: "POST",
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as TurnBody };
}

function log(): Promise<string> {
  return readFile(path.join(workspace, "log.txt"), "utf8").catch(() => "");
}

beforeAll(async () => {
  script = await bundleWorker("docs/examples/worker-continuation/src/index.ts");
  workspace = await mkdtemp(path.join(tmpdir(), "worker-continuation-ws-"));
  persist = await mkdtemp(path.join(tmpdir(), "worker-continuation-do-"));
  harness = await startListeningHarness({ build: "dist", args: ["--workspace", workspace], env: harnessEnv(SCRIPT) });
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((mf) => mf.dispose()));
});

afterAll(async () => {
  await harness?.stop();
  await rm(persist, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

describe("the continuation Worker example in workerd", () => {
  it("bundles without any Node builtin", () => {
    expect(script).not.toContain("node:");
  });

  it("pauses in one request, resumes after a restart of workerd, pauses again in the same turn, refuses tampering and replays", async () => {
    const first = await post(await startWorker(), "/chat", { prompt: "two commands please" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.awaiting).toMatchObject({
      toolCall: { name: "run_command", args: { CommandLine: "echo one >> log.txt" } },
      continuationId: first.body.conversationId,
    });
    expect(first.body.text).toContain("I will run two commands.");
    const envelope = first.body.continuation as Envelope;
    expect(envelope.signature).toMatch(/^hmac-sha256:/);
    expect(envelope.payload.conversationId).toBe(first.body.conversationId);
    expect(await log()).toBe(""); // nothing ran while paused

    // A fresh workerd: nothing of request 1 survives but the Durable Object's storage.
    let mf = await restart();
    const tampered = structuredClone(envelope);
    (tampered.payload.pendingToolCalls[0] as { args: unknown }).args = { CommandLine: "echo pwned >> log.txt" };
    const refused = await post(mf, "/approve", { continuation: tampered, approved: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "PermissionDenied", reason: "bad-signature" });
    const unsigned = await post(mf, "/approve", {
      continuation: { version: envelope.version, payload: envelope.payload },
      approved: true,
    });
    expect(unsigned.status).toBe(403);
    expect(unsigned.body.error).toMatchObject({ code: "PermissionDenied", reason: "unsigned" });
    expect(await log()).toBe("");

    // Approved by id: the first command runs and the same turn pauses at the second.
    const second = await post(mf, "/approve", { continuationId: first.body.awaiting?.continuationId, approved: true });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(await log()).toBe("one\n");
    expect(second.body.conversationId).toBe(first.body.conversationId);
    expect(second.body.awaiting?.toolCall).toMatchObject({
      name: "run_command",
      args: { CommandLine: "echo two >> log.txt" },
    });
    expect(second.body.continuation?.payload.awaitingIndex).toBe(1);

    // Replays of the first pause, by envelope and by id, in yet another workerd: refused, nothing runs again.
    mf = await restart();
    const replay = await post(mf, "/approve", { continuation: envelope, approved: true });
    expect(replay.status).toBe(409);
    expect(replay.body.error?.code).toBe("FailedPrecondition");

    // The second pause, denied with the envelope as a page would send it: the turn ends.
    const last = await post(mf, "/approve", { continuation: second.body.continuation, approved: false });
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body.awaiting).toBeUndefined();
    expect(last.body.text).toContain("all done");
    expect(await log()).toBe("one\n");
    const again = await post(mf, "/approve", { continuationId: first.body.conversationId, approved: true });
    expect(again.status).toBe(409);
    expect(await log()).toBe("one\n");
  });

  it("answers a turn that needs no decision at once and refuses bad requests", async () => {
    const mf = await startWorker();
    const pong = await post(mf, "/chat", { prompt: "ping" });
    expect(pong.status, JSON.stringify(pong.body)).toBe(200);
    expect(pong.body).toMatchObject({ text: "pong" });
    expect(pong.body.awaiting).toBeUndefined();
    expect((await post(mf, "/chat", {})).status).toBe(400);
    expect((await post(mf, "/approve", { continuationId: "x" })).status).toBe(400);
    expect((await post(mf, "/approve", { continuationId: "never-paused", approved: true })).status).toBe(409);
    const page = await mf.dispatchFetch("http://approvals.test/");
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain('id="approve"');
  });

  it("lets exactly one of two racing approvals resume, and refuses an envelope signed with another secret or malformed", async () => {
    const mf = await startWorker();
    const paused = await post(mf, "/chat", { prompt: "two commands please" });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const envelope = paused.body.continuation as Envelope;
    const before = await log();

    const forged = await signContinuation(envelope as unknown as Continuation, "someone-elses-secret-0123456789abcdef");
    const wrongSecret = await post(mf, "/approve", { continuation: forged, approved: true });
    expect(wrongSecret.status).toBe(403);
    expect(wrongSecret.body.error).toMatchObject({ code: "PermissionDenied", reason: "bad-signature" });
    const malformed = await post(mf, "/approve", {
      continuation: { version: 1, payload: { conversationId: 7 }, signature: envelope.signature },
      approved: true,
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error?.code).toBe("InvalidArgument");
    expect(await log()).toBe(before);

    const racing = await Promise.all([
      post(mf, "/approve", { continuationId: paused.body.conversationId, approved: true }),
      post(mf, "/approve", { continuation: envelope, approved: true }),
    ]);
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await log()).toBe(`${before}one\n`); // the approved command ran once
    const winner = racing.find((r) => r.status === 200) as { body: TurnBody };
    expect(winner.body.awaiting?.toolCall.name).toBe("run_command");
    const done = await post(mf, "/approve", { continuationId: winner.body.awaiting?.continuationId, approved: false });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.awaiting).toBeUndefined();
  });

  it("says NotFound when the harness forgot the paused turn (restarted), and the pause is then consumed", async () => {
    const forgetful = await startListeningHarness({
      build: "dist",
      args: ["--workspace", workspace],
      env: harnessEnv(SCRIPT),
    });
    try {
      const paused = await post(await startWorker(forgetful), "/chat", { prompt: "two commands please" });
      expect(paused.status, JSON.stringify(paused.body)).toBe(200);
      expect(paused.body.awaiting).toBeDefined();
      await forgetful.stop();
      const replacement = await startListeningHarness({
        build: "dist",
        args: ["--workspace", workspace],
        env: harnessEnv(SCRIPT),
      });
      try {
        await Promise.all(workers.splice(0).map((w) => w.dispose()));
        const mf = await startWorker(replacement);
        const gone = await post(mf, "/approve", { continuationId: paused.body.conversationId, approved: true });
        expect(gone.status, JSON.stringify(gone.body)).toBe(404);
        expect(gone.body.error?.code).toBe("NotFound");
        expect(
          (await post(mf, "/approve", { continuationId: paused.body.conversationId, approved: true })).status,
        ).toBe(409);
      } finally {
        await replacement.stop();
      }
    } finally {
      await forgetful.stop();
    }
  });
});
