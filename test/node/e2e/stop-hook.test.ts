import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SubprocessTransport } from "@antigravity-ts/node";
import { Agent, BuiltinTool, DEFAULT_TOOLS, type Hook, type StartedAgent, type StopArgs } from "@antigravity-ts/sdk";
import { harnessEnv, harnessExecutable, killAllHarnesses } from "@antigravity-ts/test-kit";

// The STOP hook and hook state scopes through the public Agent API, against the reference
// harness as a real subprocess with the scripted model.

const SCRIPT = {
  turns: [
    // Plays only when the CONTINUE's reason is the latest message the model sees.
    { match: "write the tests too", calls: [{ text: "continued after: {{prompt}}" }] },
    {
      match: "list",
      calls: [{ toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] }, { text: "listed" }],
    },
    { match: "answer", calls: [{ text: "first answer" }] },
  ],
};

describe("STOP hook and hook state, end to end", () => {
  let root = "";
  let harnessPath = "";
  const running: StartedAgent[] = [];
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-stop-hook-"));
    await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
    harnessPath = await harnessExecutable();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((agent) => agent.stop()));
  });
  afterAll(async () => {
    await killAllHarnesses();
    await rm(root, { recursive: true, force: true });
  });

  async function start(...hooks: Hook[]): Promise<StartedAgent> {
    const transport = new SubprocessTransport({ harnessPath, env: harnessEnv(path.join(root, "script.json")) });
    // The script lists a directory: list_directory is no default since upstream 0.1.19 (issue 25 item 3).
    let builder = Agent.builder()
      .transport(transport)
      .workspaces(root)
      .enabledTools(...DEFAULT_TOOLS, BuiltinTool.ListDirectory)
      .allowAll();
    for (const hook of hooks) builder = builder.hook(hook);
    const agent = await builder.build().start({ timeoutMs: 30_000 });
    running.push(agent);
    return agent;
  }

  it("CONTINUE makes a second model call whose context holds the reason; ALLOW_STOP ends the turn", async () => {
    const seen: StopArgs[] = [];
    const agent = await start({
      stop: (args) => {
        seen.push(args);
        return args.continuationCount === 0
          ? { decision: "CONTINUE", reason: "write the tests too" }
          : { decision: "ALLOW_STOP" };
      },
    });
    const response = await agent.chatToCompletion("answer me");
    // The turn's text is both model calls' text; the second answered the reason.
    expect(response.text).toBe("first answer" + "continued after: [system message] write the tests too");
    expect(seen.map((s) => [s.responseText, s.continuationCount])).toEqual([
      ["first answer", 0],
      ["continued after: [system message] write the tests too", 1],
    ]);
    expect(seen[0]?.trajectoryId).toBe(response.steps[0]?.trajectoryId);
  });

  it("a STOP hook that returns nothing or throws lets the turn end after one model call", async () => {
    let calls = 0;
    const agent = await start(
      { stop: () => void calls++ },
      {
        stop: () => {
          calls++;
          throw new Error("hook bug");
        },
      },
    );
    const response = await agent.chatToCompletion("answer me");
    expect(response.text).toBe("first answer");
    expect(calls).toBe(2);
    expect(response.steps.filter((s) => s.source === "MODEL" && s.content !== "").map((s) => s.content)).not.toContain(
      "continued after",
    );
  });

  it("scopes hook state: the turn's state reaches tool and STOP hooks, an operation's stays in its call, the session's spans turns", async () => {
    const log: string[] = [];
    type State = { turnId: number; turns: number; callNote: string };
    const hook: Hook = {
      preTurn: (_prompt, _where, untyped) => {
        const ctx = untyped.typed<State>();
        ctx.setState(
          "turnId",
          ctx.updateState("turns", (n) => n + 1, 0),
        );
        ctx.parent?.setState("turns", ctx.getState("turns", 0));
      },
      preToolCall: (call, untyped) => {
        const ctx = untyped.typed<State>();
        log.push(`pre ${call.name} turn=${String(ctx.getState("turnId"))} scope=${ctx.scope}`);
        ctx.setState("callNote", `note for ${call.id}`);
      },
      postToolCall: (result, ctx) => {
        log.push(`post ${result.name} same-op=${String(ctx.getState("callNote") === `note for ${result.id}`)}`);
      },
      stop: (_args, ctx) => {
        log.push(
          `stop turn=${String(ctx.getState("turnId"))} note=${String(ctx.getState("callNote"))} scope=${ctx.scope}`,
        );
      },
      postTurn: (_text, _where, ctx) => {
        log.push(`post-turn turns=${String(ctx.getState("turns"))}`);
      },
    };
    const agent = await start(hook);
    await agent.chatToCompletion("list it");
    await agent.chatToCompletion("answer me");
    expect(log).toEqual([
      "pre list_directory turn=1 scope=operation",
      "post list_directory same-op=true",
      "stop turn=1 note=undefined scope=turn",
      "post-turn turns=1",
      "stop turn=2 note=undefined scope=turn",
      "post-turn turns=2",
    ]);
  });
});
