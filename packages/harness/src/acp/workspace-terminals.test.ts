import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { Agent, allowAll, askUser, deny, StepStatus, StepType, type Policy, type ToolCall } from "@antigravity-ts/sdk";
import { acpAgent, MAX_TERMINALS_PER_SESSION } from "@antigravity-ts/sdk/acp";
import { argvGone, pidOfArgv } from "@antigravity-ts/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandboxStatus } from "../tools/command-launch.js";
import { workspaceTerminals } from "./workspace-terminals.js";

// The client's terminal/* served to an ACP agent made with the official library's agent side
// (Gemini CLI 0.61 never calls terminal/*: its bundle has the library's createTerminal but no
// caller). Each command runs as the reference harness's run_command does, allowed by the agent's
// policies; cwd confined to the workspace; output bounded; no process outlives the connection.

let root = "";
let ws = "";
let outside = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "acp-term-"));
  ws = path.join(root, "ws");
  outside = path.join(root, "outside");
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "TOP SECRET\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What the scripted agent does with one prompt (the prompt's text is this, as JSON). */
interface Play {
  create: Omit<acp.CreateTerminalRequest, "sessionId">;
  /** Leave the terminal running and unreleased when the turn ends. */
  keep?: boolean;
  kill?: boolean;
  /** Ask about this session instead of its own. */
  sessionId?: string;
  /** Ask for output of this terminal id instead of the created one. */
  terminalId?: string;
}

/** Answers each prompt by running its {@link Play} through the client's terminal/* and saying what came back, as JSON. */
function terminalAgent(stream: acp.Stream, seen: { capabilities?: acp.ClientCapabilities }) {
  return acp
    .agent({ name: "terminal-agent" })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      seen.capabilities = params.clientCapabilities ?? {};
      return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, authMethods: [] };
    })
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "s" }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const play = JSON.parse(params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("")) as Play;
      const sessionId = play.sessionId ?? "s";
      let said: unknown;
      try {
        const { terminalId } = await client.request(acp.methods.client.terminal.create, { sessionId, ...play.create });
        const id = { sessionId: "s", terminalId: play.terminalId ?? terminalId };
        if (play.keep) said = { terminalId };
        else {
          if (play.kill) await client.request(acp.methods.client.terminal.kill, id);
          const exit: acp.WaitForTerminalExitResponse = await client.request(
            acp.methods.client.terminal.waitForExit,
            id,
          );
          const output = await client.request(acp.methods.client.terminal.output, id);
          await client.request(acp.methods.client.terminal.release, id);
          said = { exit: { exitCode: exit.exitCode, signal: exit.signal }, output };
        }
      } catch (error) {
        said = { refused: (error as acp.RequestError).message, code: (error as acp.RequestError).code };
      }
      await client.notify(acp.methods.client.session.update, {
        sessionId: "s",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(said) } },
      });
      return { stopReason: "end_turn" };
    })
    .connect(stream);
}

function pair(): { client: acp.Stream; agent: acp.Stream } {
  const a = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  const b = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  return {
    client: { writable: a.writable, readable: b.readable },
    agent: { writable: b.writable, readable: a.readable },
  };
}

interface Said {
  exit?: { exitCode: number | null; signal: string | null };
  output?: acp.TerminalOutputResponse;
  refused?: string;
  code?: number;
  terminalId?: string;
}

const sandboxed = (await sandboxStatus()).available;
/** Digits no other process's argv has: `sleep 300.<marker>` is a valid duration that names the test's process. */
const uniqueMarker = () => `${process.pid}${Math.floor(Math.random() * 1e6)}`;

async function startWith(options: { sandbox?: false | { hidden: string[] }; policies?: Policy[] } = {}) {
  const { client, agent } = pair();
  const seen: { capabilities?: acp.ClientCapabilities } = {};
  const peer = terminalAgent(agent, seen);
  const terminals = await workspaceTerminals([ws], options.sandbox === undefined ? {} : { sandbox: options.sandbox });
  const started = await Agent.builder()
    .connection(acpAgent({ stream: client, cwd: ws, terminals }))
    .policies(...(options.policies ?? [allowAll()]))
    .build()
    .start();
  const play = async (p: Play) => {
    const response = await started.chatToCompletion(JSON.stringify(p));
    return { said: JSON.parse(response.text) as Said, steps: response.steps };
  };
  return { started, peer, seen, play };
}

describe("terminal/* over ACP with workspaceTerminals", () => {
  it("off by default: terminal not advertised, terminal/create answered method-not-found", async () => {
    const { client, agent } = pair();
    const seen: { capabilities?: acp.ClientCapabilities } = {};
    const peer = terminalAgent(agent, seen);
    const started = await Agent.builder()
      .connection(acpAgent({ stream: client, cwd: ws }))
      .allowAll()
      .build()
      .start();
    expect(seen.capabilities?.terminal ?? false).toBe(false);
    const response = await started.chatToCompletion(JSON.stringify({ create: { command: "echo hi" } }));
    expect(JSON.parse(response.text)).toMatchObject({ code: -32601 });
    await started.stop();
    peer.close();
  });

  it("advertised; runs a command line in the workspace (args literal), its exit and output come back; a run_command step", async () => {
    const { started, peer, seen, play } = await startWith({ sandbox: false });
    expect(seen.capabilities?.terminal).toBe(true);
    const { said, steps } = await play({
      create: { command: "printf '%s|' \"$PWD\"; echo", args: ["a b", "$HOME", "'q'"] },
    });
    expect(said.exit).toEqual({ exitCode: 0, signal: null });
    expect(said.output?.output).toBe(`${ws}|a b $HOME 'q'\n`);
    expect(said.output?.truncated).toBe(false);
    expect(said.output?.exitStatus).toEqual({ exitCode: 0, signal: null });
    const step = steps.find((s) => s.type === StepType.ToolCall);
    expect(step?.toolCalls[0]?.name).toBe("run_command");
    expect(step?.status).toBe(StepStatus.Done);
    const failing = await play({ create: { command: "echo out; echo err >&2; exit 3" } });
    expect(failing.said.exit).toEqual({ exitCode: 3, signal: null });
    expect(failing.said.output?.output).toBe("out\nerr\n");
    expect(failing.steps.find((s) => s.type === StepType.ToolCall)?.status).toBe(StepStatus.Error);
    await started.stop();
    peer.close();
  });

  it("the agent's policies decide: deny(run_command) refuses and nothing runs; askUser sees the command line", async () => {
    const marker = path.join(ws, "ran.txt");
    const denied = await startWith({ sandbox: false, policies: [deny("run_command"), allowAll()] });
    const refused = await denied.play({ create: { command: `touch ${marker}` } });
    expect(refused.said.refused).toMatch(/refused the command/);
    expect(refused.steps.find((s) => s.type === StepType.ToolCall)?.status).toBe(StepStatus.Error);
    await expect(readFile(marker)).rejects.toThrow();
    await denied.started.stop();
    denied.peer.close();

    const asked: ToolCall[] = [];
    const asking = await startWith({
      sandbox: false,
      policies: [
        askUser("run_command", (call) => {
          asked.push(call);
          return false;
        }),
      ],
    });
    expect((await asking.play({ create: { command: "touch", args: [marker] } })).said.refused).toMatch(/refused/);
    expect(asked[0]?.args).toEqual({ CommandLine: `touch ${marker}`, Cwd: ws });
    await expect(readFile(marker)).rejects.toThrow();
    await asking.started.stop();
    asking.peer.close();
  });

  it("cwd must be inside the workspace: .., an absolute path elsewhere, a symlink out, a file are refused", async () => {
    await symlink(outside, path.join(ws, "out-link"));
    await writeFile(path.join(ws, "file.txt"), "x");
    const { started, peer, play } = await startWith({ sandbox: false });
    for (const cwd of [path.join(ws, ".."), outside, path.join(ws, "out-link"), path.join(ws, "file.txt")]) {
      const { said } = await play({ create: { command: "cat secret.txt", cwd } });
      expect(said.code).toBe(-32602);
      expect(said.refused).toMatch(/outside the workspace|symlink|not a directory/);
    }
    await started.stop();
    peer.close();
  });

  it("a session's terminals only: another session id, an unknown terminal id refused", async () => {
    const { started, peer, play } = await startWith({ sandbox: false });
    expect((await play({ create: { command: "true" }, sessionId: "other" })).said.code).toBe(-32002);
    const unknown = await play({ create: { command: "true" }, terminalId: "terminal-999" });
    expect(unknown.said.code).toBe(-32002);
    await started.stop();
    peer.close();
  });

  it("output is bounded: outputByteLimit drops the start at a character boundary; the host's cap wins over a bigger one", async () => {
    const { started, peer, play } = await startWith({ sandbox: false });
    // "é" is 2 bytes: 7 bytes of "aéééé\n" cut the first "é" in half.
    const { said } = await play({
      create: { command: "printf 'a\\303\\251\\303\\251\\303\\251\\303\\251\\n'", outputByteLimit: 6 },
    });
    expect(said.output).toMatchObject({ output: "éé\n", truncated: true });
    const big = await play({ create: { command: "head -c 3000000 /dev/zero | tr '\\0' x", outputByteLimit: 1e9 } });
    expect(big.said.output?.output.length).toBe(1024 * 1024);
    expect(big.said.output?.truncated).toBe(true);
    await started.stop();
    peer.close();
  });

  it("kill ends the command and what it started; the harness's credentials never reach it", async () => {
    const marker = uniqueMarker();
    const { started, peer, play } = await startWith({ sandbox: false });
    const { said } = await play({ create: { command: `sleep 300.${marker} & sleep 301.${marker}` }, kill: true });
    expect(said.exit?.signal).toBe("SIGKILL");
    expect(await argvGone(["sleep", `300.${marker}`])).toBe(true);
    const env = await play({
      create: {
        command: 'echo "[$GEMINI_API_KEY][$MINE]"',
        env: [
          { name: "GEMINI_API_KEY", value: "k" },
          { name: "MINE", value: "v" },
        ],
      },
    });
    expect(env.said.output?.output).toBe("[][v]\n");
    await started.stop();
    peer.close();
  });

  it("no process outlives the connection: stop() ends an unreleased terminal and its background job", async () => {
    const marker = uniqueMarker();
    const { started, peer, play } = await startWith({ sandbox: false });
    const { said } = await play({ create: { command: `sleep 400.${marker} & exec sleep 401.${marker}` }, keep: true });
    expect(said.terminalId).toBe("terminal-1");
    await pidOfArgv(["sleep", `400.${marker}`]);
    await pidOfArgv(["sleep", `401.${marker}`]);
    await started.stop();
    expect(await argvGone(["sleep", `400.${marker}`])).toBe(true);
    expect(await argvGone(["sleep", `401.${marker}`])).toBe(true);
    peer.close();
  });

  it(`at most ${MAX_TERMINALS_PER_SESSION} live terminals per session`, async () => {
    const { started, peer, play } = await startWith({ sandbox: false });
    for (let i = 0; i < MAX_TERMINALS_PER_SESSION; i++) {
      expect((await play({ create: { command: "true" }, keep: true })).said.terminalId).toBeDefined();
    }
    expect((await play({ create: { command: "true" }, keep: true })).said.refused).toMatch(/at most/);
    await started.stop();
    peer.close();
  });

  it.skipIf(!sandboxed)(
    "sandboxed by default: outside the workspace is read only, hidden paths and the network gone",
    async () => {
      const { started, peer, play } = await startWith({ sandbox: { hidden: [path.join(outside, "secret.txt")] } });
      const read = await play({ create: { command: `cat ${path.join(outside, "secret.txt")}` } });
      expect(read.said.output?.output).not.toContain("TOP SECRET");
      // The scratch directories live in /tmp, which the sandbox replaces by its own: probe the read-only rest in $HOME.
      const probe = path.join(homedir(), `.acp-terminal-probe-${uniqueMarker()}`);
      const write = await play({ create: { command: `echo planted > ${probe}` } });
      expect(write.said.exit?.exitCode).not.toBe(0);
      expect(write.said.output?.output).toMatch(/Read-only file system/);
      await expect(readFile(probe)).rejects.toThrow();
      const inside = await play({ create: { command: "echo kept > inside.txt && cat inside.txt" } });
      expect(inside.said.output?.output).toBe("kept\n");
      // /proc/net/dev lists the interfaces of the command's network namespace: two header lines, then only `lo`.
      const net = await play({ create: { command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '" } });
      expect(net.said.output?.output).toBe("lo\n");
      await started.stop();
      peer.close();
    },
  );
});
