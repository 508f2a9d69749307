import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "./bundle-worker.js";
import { startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// docs/examples/durable-object in real workerd (miniflare, SQLite-backed Durable Object storage)
// against the built reference harness: a room's conversation is restored and saved by each
// request, and survives a restart of workerd.

interface RoomTurn {
  conversationId: string;
  restoredTurns: number;
  turnCount: number;
  text: string;
}

let script: string;
let harness: ListeningHarness;
let persist: string;
const workers: Miniflare[] = [];

async function startWorker(): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-01",
    bindings: { HARNESS_URL: harness.url, HARNESS_API_KEY: harness.apiKey },
    durableObjects: { ROOMS: { className: "ConversationObject", useSQLite: true } },
    durableObjectsPersist: persist,
  });
  workers.push(mf);
  await mf.ready;
  return mf;
}

async function ask(mf: Miniflare, room: string, prompt: string): Promise<RoomTurn> {
  const response = await mf.dispatchFetch(`http://rooms.test/rooms/${room}`, {
    method: "POST",
    body: JSON.stringify({ prompt }),
  });
  const body = (await response.json()) as RoomTurn;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

beforeAll(async () => {
  script = await bundleWorker("docs/examples/durable-object/src/index.ts");
  harness = await startListeningHarness({ build: "dist" });
  persist = await mkdtemp(path.join(tmpdir(), "do-example-"));
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((mf) => mf.dispose()));
});

afterAll(async () => {
  await harness?.stop();
  await rm(persist, { recursive: true, force: true });
});

describe("the Durable Object example in workerd", () => {
  it("bundles without any Node builtin", () => {
    expect(script).not.toContain("node:");
  });

  it("each room continues its own conversation across requests and a restart of workerd", async () => {
    const mf = await startWorker();
    const first = await ask(mf, "lobby", "Hello from the lobby");
    expect(first).toMatchObject({ restoredTurns: 0, turnCount: 1 });
    expect(first.conversationId).toMatch(/^room-[0-9a-f]{64}$/);
    expect(first.text).not.toBe("");
    const other = await ask(mf, "kitchen", "Hello from the kitchen");
    expect(other).toMatchObject({ restoredTurns: 0, turnCount: 1 });
    expect(other.conversationId).not.toBe(first.conversationId);
    expect(await ask(mf, "lobby", "Still there?")).toMatchObject({
      conversationId: first.conversationId,
      restoredTurns: 1,
      turnCount: 2,
    });

    await Promise.all(workers.splice(0).map((w) => w.dispose()));
    const restarted = await startWorker();
    expect(await ask(restarted, "lobby", "After the restart")).toMatchObject({
      conversationId: first.conversationId,
      restoredTurns: 2,
      turnCount: 3,
    });
    expect(await ask(restarted, "kitchen", "Again")).toMatchObject({
      conversationId: other.conversationId,
      restoredTurns: 1,
      turnCount: 2,
    });
  });

  it("refuses a request without a prompt", async () => {
    const mf = await startWorker();
    const response = await mf.dispatchFetch("http://rooms.test/rooms/lobby", { method: "POST", body: "{}" });
    expect(response.status).toBe(400);
  });
});
