import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, WebSocketTransport, addUsage, emptyUsage, scaleUsage, sumUsage } from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 25 item 3: usage per turn and per session as upstream 0.1.16+ reports it (ChatResponse
// .usage_metadata is the turn's, conversation.total_usage the session's) and 0.1.17's arithmetic,
// against the reference harness's usage reports (usageUpdate frames, §14).

const SCRIPT = {
  turns: [
    { match: "short", calls: [{ text: "ok" }] },
    {
      match: "long",
      calls: [
        { thinking: "a first model call that thinks for a while", text: "then answers at some length" },
        { text: "and a second model call in the same turn" },
      ],
    },
  ],
};

describe("usage per turn and per session", () => {
  let root = "";
  let harness: ListeningHarness | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-usage-"));
    await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
    harness = await startListeningHarness({
      env: harnessEnv(path.join(root, "script.json")),
      workspace: root,
      apiKey: "usage-key-0123456789abcdef",
    });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  it("gives each turn its own usage, the session's after it, and sums that add up", async () => {
    const agent = await Agent.builder()
      .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness?.port ?? 0, apiKey: harness?.apiKey ?? "" }))
      .workspaces(root)
      .allowAll()
      .build()
      .start({ timeoutMs: 15_000 });
    try {
      const short = await agent.chatToCompletion("short please", { timeoutMs: 15_000 });
      const long = await agent.chatToCompletion("long please", { timeoutMs: 15_000 });
      expect(short.turnUsage.totalTokenCount).toBeGreaterThan(0);
      // Two model calls with more text, and a longer context: the second turn costs more.
      expect(long.turnUsage.candidatesTokenCount).toBeGreaterThan(short.turnUsage.candidatesTokenCount);
      expect(long.turnUsage.promptTokenCount).toBeGreaterThan(short.turnUsage.promptTokenCount);
      // The session's usage after each turn is what the turns so far add up to (a fresh session).
      expect(short.usageMetadata).toEqual(short.turnUsage);
      expect(long.usageMetadata).toEqual(addUsage(short.turnUsage, long.turnUsage));
      expect(sumUsage([short.turnUsage, long.turnUsage])).toEqual(await agent.conversation().totalUsage());
      expect(await agent.conversation().lastTurnUsage()).toEqual(long.turnUsage);
      expect(scaleUsage(long.usageMetadata, 2)).toEqual(addUsage(long.usageMetadata, long.usageMetadata));
      expect(scaleUsage(long.usageMetadata, 0)).toEqual(emptyUsage());
    } finally {
      await agent.stop();
    }
  });
});
