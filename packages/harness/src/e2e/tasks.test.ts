import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pidOfArgv, waitUntilGone, type ListeningHarness } from "@antigravity-ts/test-kit";
import { useHarnessFixture } from "../test-support/fixture.js";
import { TestClient, allTools, finalSteps, harnessConfig, type Frame } from "../test-support/ws-client.js";

// schedule, manage_task and run_command's daemon commands (upstream 0.1.18: HarnessSideTools
// schedule = 17 / manage_task = 16, RunCommandConfig.enable_daemons; CHANGELOG.md @1493021)
// against the harness process: a real timer starts a turn of its own; a daemon command runs in
// the background, contained like run_command, and dies when cancelled, when the session ends and
// with the harness (SIGTERM or SIGKILL), found by its argv (test-kit pid helpers).

const SUITE = String(randomInt(100_000, 999_999));
let counter = 0;
/** A sleep no other process runs: `sleep <n>.<suite>`. */
const sleeper = (): string[] => ["sleep", `${4000 + ++counter}.${SUITE}`];

const SCRIPT = {
  turns: [
    {
      match: "remind me",
      calls: [
        {
          toolCalls: [{ name: "schedule", args: { prompt: "check the oven", delay_seconds: 1, description: "oven" } }],
        },
        { text: "timer {{result.task_id}} set for {{result.next_run}}" },
      ],
    },
    { match: "check the oven", calls: [{ text: "oven checked" }] },
    {
      regex: "^daemon (?<command>.*)$",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: "{{match.command}}", IsDaemon: true } }] },
        { text: "{{result}}" },
      ],
    },
    {
      regex: "^task (?<action>\\w+) ?(?<id>.*)$",
      calls: [
        { toolCalls: [{ name: "manage_task", args: { action: "{{match.action}}", task_id: "{{match.id}}" } }] },
        { text: "{{result}}" },
      ],
    },
  ],
};

const TOOLS: Frame = {
  harnessSideTools: allTools({
    runCommand: { enabled: true, maxTimeoutMs: 0, enableDaemonCommands: true },
    schedule: { enabled: true },
    manageTask: { enabled: true },
  }),
};

/** The text of the turn's last text step. */
function answer(frames: readonly Frame[]): string {
  return (
    finalSteps(frames)
      .filter((step) => typeof step["text"] === "string")
      .at(-1)?.["text"] ?? ""
  );
}

async function say(client: TestClient, prompt: string): Promise<string> {
  client.prompt(prompt);
  return answer(await client.turn());
}

describe("schedule, manage_task and daemon commands", () => {
  const fixture = useHarnessFixture({ name: "tasks", script: SCRIPT, config: TOOLS });

  it("a one-shot timer starts a turn of its own with its prompt", async () => {
    const client = await fixture.connect();
    expect(await say(client, "remind me in a second")).toMatch(/^timer task-1 set for \d{4}-\d\d-\d\dT/);
    const fired = await client.turn();
    expect(finalSteps(fired)[0]?.["text"]).toBe("[automated trigger] [scheduled task task-1: oven] check the oven");
    expect(answer(fired)).toBe("oven checked");
    expect(JSON.parse(await say(client, "task list"))).toMatchObject({
      tasks: [{ task_id: "task-1", kind: "timer", status: "done", runs: 1, prompt: "check the oven" }],
    });
    client.close();
  });

  it("runs a daemon in the background, shows its output, and kills it on cancel", async () => {
    const client = await fixture.connect();
    const argv = sleeper();
    expect(JSON.parse(await say(client, `daemon echo up; ${argv.join(" ")}`))).toMatchObject({
      task_id: "task-1",
      status: "running",
    });
    const pid = await pidOfArgv(argv);
    // The output reaches the harness through a pipe read on its own schedule: ask until it is there (bounded).
    let status: Frame = {};
    for (let asked = 0; asked < 50 && !String(status["output"] ?? "").includes("up"); asked++)
      status = JSON.parse(await say(client, "task status task-1"));
    expect(status).toMatchObject({ task_id: "task-1", kind: "command", status: "running", output: "up\n" });
    expect(JSON.parse(await say(client, "task cancel task-1"))).toMatchObject({ status: "cancelled" });
    expect(await waitUntilGone(pid)).toBe(true);
    expect(JSON.parse(await say(client, "task status task-9")).error).toMatch(/no task "task-9"; tasks: task-1/);
    client.close();
  });

  it("refuses IsDaemon when the session did not enable daemon commands, and offers no task tools when off", async () => {
    const client = await fixture.connect({ harnessSideTools: allTools() });
    expect(await say(client, "daemon sleep 1")).toMatch(/IsDaemon needs daemon commands/);
    expect(await say(client, "task list")).toMatch(/not a tool of this session/);
    client.close();
  });

  it("kills a daemon when its session ends", async () => {
    const client = await fixture.connect();
    const argv = sleeper();
    await say(client, `daemon ${argv.join(" ")}`);
    const pid = await pidOfArgv(argv);
    client.close();
    expect(await waitUntilGone(pid)).toBe(true);
  });

  for (const ending of ["SIGTERM", "SIGKILL"] as const) {
    it(`kills a daemon when the harness gets ${ending}`, async () => {
      const own: ListeningHarness = await fixture.start();
      const client = await TestClient.connect(own.port, own.apiKey);
      await client.init(harnessConfig(fixture.workspace, TOOLS));
      const argv = sleeper();
      await say(client, `daemon ${argv.join(" ")}`);
      const pid = await pidOfArgv(argv);
      own.child.kill(ending);
      await own.exited;
      expect(await waitUntilGone(pid)).toBe(true);
    });
  }
});
