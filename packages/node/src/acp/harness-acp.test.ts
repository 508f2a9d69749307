import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { spawn } from "node:child_process";
import * as acp from "@agentclientprotocol/sdk";
import { Agent } from "@antigravity-ts/sdk";
import { ensureReferenceHarness, processAlive, waitUntilGone } from "@antigravity-ts/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acpAgent } from "./index.js";

// `antigravity-harness --acp` as a real process: the SDK's acpAgent spawns it (a turn, then a new
// process resuming the session from --storage through session/load), and the official library's
// client drives it over its stdio.

const SCRIPT = {
  turns: [
    { match: "first", calls: [{ text: "First from the harness" }] },
    { match: "second", calls: [{ text: "Second from the harness" }] },
  ],
};

describe("antigravity-harness --acp", () => {
  let bin = "";
  let root = "";
  let args: string[] = [];
  beforeAll(async () => {
    bin = await ensureReferenceHarness();
    root = mkdtempSync(join(tmpdir(), "harness-acp-"));
    const script = join(root, "script.json");
    writeFileSync(script, JSON.stringify(SCRIPT));
    args = ["--acp", "--script", script, "--storage", join(root, "storage"), "--workspace", root];
  }, 300_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("acpAgent spawns it; a second process loads the session from --storage; no process is left", {
    timeout: 120_000,
  }, async () => {
    const pids: number[] = [];
    const onProcess = (agent: { pid: number }) => pids.push(agent.pid);
    const first = await Agent.builder()
      .connection(acpAgent({ command: bin, args, cwd: root, onProcess }))
      .allowAll()
      .build()
      .start();
    expect((await first.chatToCompletion("first")).text).toBe("First from the harness");
    const id = first.conversation().conversationId;
    expect(pids).toHaveLength(1);
    expect(processAlive(pids[0] ?? -1)).toBe(true);
    await first.stop();
    expect(await waitUntilGone(pids[0] ?? -1)).toBe(true);

    const second = await Agent.builder()
      .connection(acpAgent({ command: bin, args, cwd: root, onProcess }))
      .conversationId(id)
      .allowAll()
      .build()
      .start();
    expect((await second.conversation().history()).some((s) => s.content === "First from the harness")).toBe(true);
    expect((await second.chatToCompletion("second")).text).toBe("Second from the harness");
    await second.stop();
    expect(pids).toHaveLength(2);
    expect(await waitUntilGone(pids[1] ?? -1)).toBe(true);
  });

  it("the official client over its stdio", { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    const updates: acp.SessionUpdate[] = [];
    try {
      const stream = acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
      );
      const response = await acp
        .client({ name: "official" })
        .onNotification(acp.methods.client.session.update, ({ params }) => {
          updates.push(params.update);
        })
        .connectWith(stream, async (ctx) => {
          await ctx.request(acp.methods.agent.initialize, {
            protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: {},
          });
          const session = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
          return ctx.request(acp.methods.agent.session.prompt, {
            sessionId: session.sessionId,
            prompt: [{ type: "text", text: "first" }],
          });
        });
      expect(response.stopReason).toBe("end_turn");
      expect(
        updates
          .flatMap((u) =>
            u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [],
          )
          .join(""),
      ).toBe("First from the harness");
    } finally {
      child.stdin.end();
    }
    const exit = await new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    expect(exit).toBe(0);
  });
});
