import { randomInt } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, WebSocketTransport, allowAll, type StartedAgent } from "@antigravity-ts/node";
import {
  harnessEnv,
  killAllHarnesses,
  pidOfArgv,
  startListeningHarness,
  waitUntilGone,
  type ListeningHarness,
} from "@antigravity-ts/test-kit";

// The schedule and manage_task tools (upstream 0.1.18: on by default, manage_task paired with
// run_command and schedule, CHANGELOG.md @1493021) through the SDK and the reference harness
// process: a timer the model sets starts a turn of its own, which the conversation records; a
// daemon command (enableDaemonCommands, IsDaemon) runs in the background and is killed when the
// agent stops.

const SLEEP = ["sleep", `${5000 + randomInt(1, 999)}.${randomInt(100_000, 999_999)}`];
const SCRIPT = {
  turns: [
    {
      match: "remind me",
      calls: [
        { toolCalls: [{ name: "schedule", args: { prompt: "stretch your legs", delay_seconds: 1 } }] },
        { text: "set {{result.task_id}}" },
      ],
    },
    { match: "stretch your legs", calls: [{ text: "stretched" }] },
    {
      match: "serve",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: SLEEP.join(" "), IsDaemon: true } }] },
        { toolCalls: [{ name: "manage_task", args: { action: "list" } }] },
        { text: "{{result.tasks.0.status}}" },
      ],
    },
  ],
};
const BOUND_MS = 30_000;

let root = "";
let harness: ListeningHarness;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-schedule-"));
  await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
  harness = await startListeningHarness({ env: harnessEnv(path.join(root, "script.json")), workspace: root });
});

afterAll(async () => {
  await killAllHarnesses();
  await rm(root, { recursive: true, force: true });
});

function start(daemons = false): Promise<StartedAgent> {
  return new Agent({
    transport: new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey }),
    workspaces: [root],
    ...(daemons ? { capabilities: { runCommand: { enableDaemonCommands: true } } } : {}),
    policies: [allowAll()],
  }).start({ timeoutMs: BOUND_MS });
}

describe("schedule and manage_task through the SDK", () => {
  it("a timer the model sets starts a turn the conversation records", async () => {
    const agent = await start();
    try {
      const conversation = agent.conversation();
      const turns = conversation.turns({ signal: AbortSignal.timeout(BOUND_MS) })[Symbol.asyncIterator]();
      expect((await conversation.chatToCompletion("remind me to stretch")).text).toBe("set task-1");
      const ours = await turns.next();
      expect((await ours.value?.final())?.text).toBe("set task-1");
      const fired = await turns.next();
      expect((await fired.value?.final())?.text).toBe("stretched");
      await turns.return?.();
      const history = (await conversation.history()).map((step) => step.content);
      expect(history).toContain("[automated trigger] [scheduled task task-1] stretch your legs");
    } finally {
      await agent.stop();
    }
  });

  it("a daemon command runs in the background and dies when the agent stops", async () => {
    const agent = await start(true);
    let pid = 0;
    try {
      expect((await agent.chatToCompletion("serve it")).text).toBe("running");
      pid = await pidOfArgv(SLEEP);
    } finally {
      await agent.stop();
    }
    expect(await waitUntilGone(pid)).toBe(true);
  });
});
