import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  BuiltinTool,
  allowAll,
  askUser,
  defineTool,
  deny,
  type AgentBuilder,
  type StartedAgent,
  type Step,
  type Transport,
  type Trigger,
} from "@antigravity-ts/sdk";
import { deferred } from "./deferred.js";
import { harnessEnv, killAllHarnesses } from "./harness-launcher.js";

/** What a transport factory gets: the scripted model's script, a workspace, suite-wide resources. */
export interface E2EContext {
  /** Path of the scripted-model script (e2e-script.json beside this file). */
  readonly script: string;
  /** A temporary workspace holding two files. */
  readonly workspace: string;
  /** Environment for a harness process: the scripted model with {@link script}. */
  readonly harnessEnv: Record<string, string>;
  /** Creates a resource once per suite (e.g. a listening harness), disposed after the suite. */
  shared<T>(key: string, create: () => Promise<T>, dispose: (value: T) => Promise<unknown>): Promise<T>;
}

/** Makes the transport of one test's agent. */
export type MakeTransport = (context: E2EContext) => Transport | Promise<Transport>;

const SCRIPT = fileURLToPath(new URL("./e2e-script.json", import.meta.url));
const START_TIMEOUT_MS = 30_000;

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
});

/**
 * The end-to-end suite against the reference harness (packages/harness, scripted model): every
 * feature a user relies on, over the transport `makeTransport` builds. Each transport runs it
 * with one line: `defineE2ESuite("name", (context) => transport)` — over a socket
 * (test/node/e2e/websocket.test.ts), a child process (subprocess.test.ts), the built packages
 * (test/built) and the harness in memory (packages/sdk/src/transport/reference-harness-in-memory.test.ts).
 */
export function defineE2ESuite(name: string, makeTransport: MakeTransport): void {
  describe(`end to end over ${name}`, () => {
    let workspace = "";
    const resources = new Map<string, { value: Promise<unknown>; dispose: () => Promise<void> }>();
    const running: StartedAgent[] = [];
    const context = (): E2EContext => ({
      script: SCRIPT,
      workspace,
      harnessEnv: harnessEnv(SCRIPT),
      shared: <T>(key: string, create: () => Promise<T>, dispose: (value: T) => Promise<unknown>): Promise<T> => {
        let entry = resources.get(key);
        if (entry === undefined) {
          const value = create();
          entry = { value, dispose: async () => void (await dispose(await value)) };
          resources.set(key, entry);
        }
        return entry.value as Promise<T>;
      },
    });

    beforeAll(async () => {
      workspace = await mkdtemp(path.join(tmpdir(), "antigravity-e2e-ws-"));
      await writeFile(path.join(workspace, "notes.txt"), "remember the milk\n");
      await writeFile(path.join(workspace, "todo.md"), "- ship it\n");
    });

    afterEach(async () => {
      await Promise.all(running.splice(0).map((agent) => agent.stop()));
    });

    afterAll(async () => {
      for (const entry of resources.values()) await entry.dispose().catch(() => undefined);
      await killAllHarnesses();
      if (workspace !== "") await rm(workspace, { recursive: true, force: true });
    });

    async function start(configure: (builder: AgentBuilder<false>) => AgentBuilder<true>): Promise<StartedAgent> {
      const transport = await makeTransport(context());
      const agent = await configure(Agent.builder().transport(transport).workspaces(workspace))
        .build()
        .start({ timeoutMs: START_TIMEOUT_MS });
      running.push(agent);
      return agent;
    }

    async function turn(agent: StartedAgent, prompt: string): Promise<Step[]> {
      const conversation = agent.conversation();
      await conversation.send(prompt);
      const steps: Step[] = [];
      for await (const step of conversation.receiveSteps()) steps.push(step);
      return steps;
    }

    it("streams thoughts and text chunk by chunk", async () => {
      const agent = await start((b) => b.allowAll());
      const thoughts: string[] = [];
      const texts: string[] = [];
      for await (const chunk of agent.chat("hello there")) {
        if (chunk.type === "thought") thoughts.push(chunk.text);
        if (chunk.type === "text") texts.push(chunk.text);
      }
      expect(thoughts.join("")).toBe("The user greets me. I should greet back.");
      expect(texts.join("")).toBe("Hello! I am the scripted model, streaming this answer in chunks.");
      expect(texts.length).toBeGreaterThan(1);
    });

    it("returns a whole turn from chat(): text, thinking, steps and usage", async () => {
      const agent = await start((b) => b.allowAll());
      const response = await agent.chatToCompletion("hello again");
      expect(response.text).toBe("Hello! I am the scripted model, streaming this answer in chunks.");
      expect(response.thinking).toBe("The user greets me. I should greet back.");
      expect(response.steps.some((s) => s.isCompleteResponse && s.content === response.text)).toBe(true);
      expect(response.usageMetadata.totalTokenCount).toBeGreaterThan(0);
      expect(response.usageMetadata).toEqual(agent.connection.usage.total);
      expect(agent.conversationId).not.toBe("");
    });

    it("runs a client tool and shows it as synthetic steps from 50,000", async () => {
      const agent = await start((b) => b.tool(add).allowAll());
      const steps = await turn(agent, "add the numbers");
      const synthetic = steps.filter((s) => s.stepIndex >= 50_000);
      expect(synthetic.map((s) => [s.stepIndex, s.status, s.type, s.source, s.target])).toEqual([
        [50_000, "ACTIVE", "TOOL_CALL", "MODEL", "ENVIRONMENT"],
        [50_000, "DONE", "TOOL_CALL", "MODEL", "ENVIRONMENT"],
      ]);
      expect(synthetic[0]?.toolCalls[0]).toMatchObject({ name: "add", args: { a: 2, b: 3 } });
      expect(synthetic[1]?.toolCalls[0]?.args).toEqual({ sum: 5 });
      expect(synthetic[0]?.trajectoryId).toBe(steps[0]?.trajectoryId);
      // The harness's own customTool step carries the same call (§7.1), so chat() shows it once.
      expect(steps.some((s) => s.stepIndex < 50_000 && s.toolCalls[0]?.name === "add")).toBe(true);
      expect(await agent.conversation().lastResponse()).toBe("The sum is 5.");
    });

    it("runs a built-in tool in the workspace", async () => {
      // list_directory is off by default since upstream 0.1.19: enabled by name, it runs.
      const agent = await start((b) => b.allowAll().enabledTools(BuiltinTool.ListDirectory));
      const response = await agent.chatToCompletion("list the workspace");
      expect(response.text).toBe("The workspace has 2 entries.");
      const listing = response.steps.find((s) => s.toolCalls[0]?.name === "list_directory");
      expect(listing?.status).toBe("DONE");
    });

    it("reports a call denied by a policy and never runs it", async () => {
      const agent = await start((b) => b.policies(deny("run_command", "no shell in tests"), allowAll()));
      const response = await agent.chatToCompletion("run the command");
      const denied = response.steps.find((s) => s.toolCalls[0]?.name === "run_command");
      expect(denied?.status).toBe("ERROR");
      expect(response.text).toContain("no shell in tests");
      expect(response.text).not.toContain("e2e-ran\n");
    });

    it("asks the user through an askUser policy, then runs or refuses the call", async () => {
      const asked: unknown[] = [];
      let approve = true;
      const agent = await start((b) =>
        b.policies(
          askUser("run_command", (call) => {
            asked.push(call.args);
            return approve;
          }),
          allowAll(),
        ),
      );
      const approved = await agent.chatToCompletion("run the command");
      expect(approved.text).toContain("e2e-ran");
      approve = false;
      const refused = await agent.chatToCompletion("run the command again");
      expect(refused.text).not.toContain("e2e-ran");
      expect(refused.steps.find((s) => s.toolCalls[0]?.name === "run_command")?.status).toBe("ERROR");
      expect(asked).toEqual([{ CommandLine: "echo e2e-ran" }, { CommandLine: "echo e2e-ran" }]);
    });

    it("answers a built-in confirmation once although the harness repeats it", async () => {
      const asked: string[] = [];
      const agent = await start((b) =>
        b.agentBehavior("interactive").confirmRunCommand((call) => {
          asked.push(call.name);
          return true;
        }),
      );
      const steps = await turn(agent, "run the command");
      expect(steps.filter((s) => s.status === "WAITING_FOR_USER")).toHaveLength(1);
      expect(steps.find((s) => s.toolCalls[0]?.name === "run_command" && s.status === "DONE")).toBeDefined();
      expect(asked.length).toBeGreaterThanOrEqual(1);
      expect(await agent.conversation().lastResponse()).toContain("e2e-ran");
    });

    it("lets a PRE_TOOL hook change a call's arguments", async () => {
      const seen: unknown[] = [];
      const agent = await start((b) =>
        b
          .tool(
            defineTool({
              ...add,
              call: (args: { a: number; b: number }, ctx) => {
                seen.push(args);
                return add.call(args, ctx);
              },
            }),
          )
          .hook({ preToolCall: (call) => (call.name === "add" ? { allow: true, modifiedArgs: { b: 10 } } : undefined) })
          .allowAll(),
      );
      const response = await agent.chatToCompletion("add the numbers");
      expect(response.text).toBe("The sum is 12.");
      expect(seen).toEqual([{ a: 2, b: 10 }]);
    });

    it("delivers a trigger's message as a turn", async () => {
      const answered = deferred<string>();
      const ping: Trigger = { run: (ctx, signal) => ctx.sendTrigger("ping", { delivery: "whenIdle", signal }) };
      await start((b) =>
        b
          .trigger(ping)
          .hook({ postTurn: (text) => answered.resolve(text) })
          .allowAll(),
      );
      expect(await answered.promise).toBe("pong from the trigger");
    });

    it("records a trigger's turn and a turn nobody read in history; views of a turn agree", async () => {
      const ping: Trigger = { run: (ctx, signal) => ctx.sendTrigger("ping", { delivery: "whenIdle", signal }) };
      const agent = await start((b) => b.trigger(ping).allowAll());
      const conversation = agent.conversation();
      for await (const turn of conversation.turns({ signal: AbortSignal.timeout(START_TIMEOUT_MS) })) {
        expect((await turn.final()).text).toBe("pong from the trigger");
        break;
      }
      agent.chat("hello, unread"); // recorded although nobody reads it
      const stream = agent.chat("hello, read");
      const [chunks, response] = await Promise.all([
        (async () => {
          const out = [];
          for await (const c of stream) out.push(c);
          return out;
        })(),
        stream.final(),
      ]);
      expect(chunks.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("")).toBe(response.text);
      expect((await conversation.history()).filter((s) => s.isCompleteResponse).map((s) => s.content)).toEqual([
        "pong from the trigger",
        response.text,
        response.text,
      ]);
      expect(await conversation.turnCount()).toBe(3);
    });

    it("returns structured output for a response schema", async () => {
      const schema = {
        type: "object",
        properties: { answer: { type: "number" }, unit: { type: "string" } },
        required: ["answer"],
      };
      const agent = await start((b) => b.responseSchema(schema).allowAll());
      const response = await agent.chatToCompletion("give me structured output");
      expect(response.structuredOutput).toEqual({ answer: 42, unit: "widgets" });
    });

    it("runs two turns in a row with growing usage totals", async () => {
      const agent = await start((b) => b.allowAll());
      const first = await agent.chatToCompletion("hello one");
      const second = await agent.chatToCompletion("hello two");
      expect(second.text).toBe(first.text);
      expect(second.usageMetadata.totalTokenCount).toBeGreaterThan(first.usageMetadata.totalTokenCount);
      expect(second.usageMetadata.promptTokenCount).toBeGreaterThan(first.usageMetadata.promptTokenCount);
      const conversation = agent.conversation();
      expect(await conversation.turnCount()).toBe(2);
      expect(await conversation.totalUsage()).toEqual(agent.connection.usage.total);
      expect((await conversation.lastTurnUsage())?.totalTokenCount).toBe(
        second.usageMetadata.totalTokenCount - first.usageMetadata.totalTokenCount,
      );
    });
  });
}
