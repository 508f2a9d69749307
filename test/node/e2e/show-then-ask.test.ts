import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, WebSocketTransport, askUser } from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 26 item 7 at the SDK's level, against the reference harness over a real socket: an
// askUser handler runs after a `for await` over the turn's stream was given the call's toolCall
// chunk, so an app that prints each chunk asks about a call it has already shown — every time, not
// by luck of the scheduling (the REPL and NDJSON front ends also order it themselves).

const SCRIPT = {
  turns: [
    {
      match: "build",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: "echo built" } }] },
        { text: "done: {{results.run_command}}" },
      ],
    },
  ],
};

describe("show the call, then ask about it", () => {
  let root = "";
  let harness: ListeningHarness | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-show-then-ask-"));
    await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
    harness = await startListeningHarness({
      env: harnessEnv(path.join(root, "script.json")),
      workspace: root,
      apiKey: "show-then-ask-key-0123456789",
    });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  it("yields the toolCall chunk before the askUser handler runs, in each of eight turns", async () => {
    const log: string[] = [];
    await using agent = await Agent.builder()
      .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness?.port ?? 0, apiKey: harness?.apiKey ?? "" }))
      .workspaces(root)
      .policies(
        askUser("run_command", (call) => {
          log.push(`asked ${call.name}`);
          return true;
        }),
      )
      .build()
      .start();
    for (let turn = 0; turn < 8; turn++) {
      log.length = 0;
      for await (const chunk of agent.chat("build it"))
        if (chunk.type === "toolCall") log.push(`shown ${chunk.toolCall.name}`);
      expect(log.filter((line) => line.endsWith("run_command"))).toEqual(["shown run_command", "asked run_command"]);
    }
  });
});
