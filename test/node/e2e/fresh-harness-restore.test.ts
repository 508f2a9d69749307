import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, subprocessTransportFactory, type Step } from "@antigravity-ts/node";
import { createMemoryConversationStore } from "@antigravity-ts/sdk/storage";
import { harnessExecutable, killAllHarnesses } from "@antigravity-ts/test-kit";

// Seed 002: a conversation persisted in a store continues on a harness that lost its own storage
// (a new machine, a wiped saveDir). That harness replays no history and numbers the steps from 0
// again under the same trajectory id; the restored steps must stay as they were, and the new ones
// come after them. Three sessions: each on a fresh harness save directory.

const SCRIPT = fileURLToPath(new URL("./scripts/persist-script.json", import.meta.url));
const ID = "fresh-restore-0123456789abcdef0123456789ab";
const BOUND_MS = 30_000;

describe("a stored conversation restored onto a harness without its storage", () => {
  let root = "";
  let harnessPath = "";

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-fresh-restore-"));
    harnessPath = await harnessExecutable();
  });

  afterAll(async () => {
    await killAllHarnesses();
    await rm(root, { recursive: true, force: true });
  });

  it("keeps every earlier step and appends the new ones under ids of their own, across two restarts", async () => {
    const store = createMemoryConversationStore();
    const session = async (
      name: string,
      prompt: string,
    ): Promise<{ history: Step[]; turnStarts: number[]; chunkIds: string[] }> => {
      const saveDir = await mkdtemp(path.join(root, `${name}-`));
      await using agent = await Agent.builder()
        .transport(
          subprocessTransportFactory({
            harnessPath,
            saveDir,
            env: { ANTIGRAVITY_MODEL_PROVIDER: "scripted", ANTIGRAVITY_SCRIPT: SCRIPT },
          }),
        )
        .conversationId(ID)
        .sessionContinuationMode("createOrResume")
        .conversationStore(store)
        .allowAll()
        .build()
        .start({ timeoutMs: BOUND_MS });
      const response = await agent.chatToCompletion(prompt, { timeoutMs: BOUND_MS });
      const conversation = agent.conversation();
      return {
        history: await conversation.history(),
        turnStarts: await conversation.turnStartIndices(),
        chunkIds: response.steps.map((step) => step.id),
      };
    };

    const first = await session("a", "ping one");
    expect(first.history.map((step) => step.content)).toEqual(["ping one", "pong to ping one"]);

    const second = await session("b", "ping two");
    expect(second.history.map((step) => step.content)).toEqual([
      "ping one",
      "pong to ping one",
      "ping two",
      "pong to ping two",
    ]);
    expect(second.turnStarts).toEqual([0, 2]);
    const [oldUser, oldModel] = first.history.map((step) => step.id);
    expect(second.history.map((step) => step.id)).toEqual([oldUser, oldModel, `${oldUser}~1`, `${oldModel}~1`]);
    // The turn's own steps (what a UI drew from the stream) carry the same ids as history.
    expect(second.chunkIds).toEqual([`${oldUser}~1`, `${oldModel}~1`]);

    const third = await session("c", "ping three");
    expect(third.history.map((step) => step.content)).toEqual([
      "ping one",
      "pong to ping one",
      "ping two",
      "pong to ping two",
      "ping three",
      "pong to ping three",
    ]);
    expect(new Set(third.history.map((step) => step.id)).size).toBe(6);
    expect(third.history.slice(4).map((step) => step.id)).toEqual([`${oldUser}~2`, `${oldModel}~2`]);
  }, 120_000);
});
