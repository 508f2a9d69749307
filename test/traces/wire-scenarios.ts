// The sessions behind the golden traces of the other wires (test/traces/acp/*.ndjson,
// test/traces/interactions/*.ndjson): each runs over any connection — Node records it against
// the reference harness (`antigravity-harness --acp`, and its Interactions API emulator) with
// streamRecorder / recordingFetch (test/traces/record.ts), and the suites run it again over
// replayStream / replayFetch with no process and no server. Universal, like scenarios.ts.
import { Agent, allowAll, askUser, defineTool, type ConnectionStrategy } from "@antigravity-ts/sdk";
import { check, session, type ScenarioContext } from "./scenarios.js";

/** One session of another wire recorded as a golden trace. */
export interface WireScenario {
  /** The trace's file name without `.ndjson`, under test/traces/<wire>/. */
  readonly name: string;
  readonly wire: "acp" | "interactions";
  readonly description: string;
  /** Runs the session over `connection` and stops the agent; throws what went wrong. */
  run(connection: ConnectionStrategy, context: ScenarioContext): Promise<void>;
}

/** ACP: thinking and text streamed, then a command the agent asks permission for, allowed by the user. */
const acpTurns: WireScenario = {
  name: "acp-stream-and-permission",
  wire: "acp",
  description: "an ACP session: thinking and text streamed, then a permission asked and granted",
  run: (connection) => {
    const asked: string[] = [];
    const agent = Agent.builder()
      .connection(connection)
      .policies(
        // The harness's run_command, under its own name or its ACP kind.
        ...["run_command", "execute"].map((name) =>
          askUser(name, (call) => {
            asked.push(call.name);
            return true;
          }),
        ),
        allowAll(),
      )
      .build()
      .start({ timeoutMs: 30_000 });
    return session(agent, async (agent) => {
      const texts: string[] = [];
      const thoughts: string[] = [];
      for await (const chunk of agent.chat("hello there", { timeoutMs: 30_000 })) {
        if (chunk.type === "thought") thoughts.push(chunk.text);
        if (chunk.type === "text") texts.push(chunk.text);
      }
      check(thoughts.join("") === "A greeting. I greet back.", `thinking: ${JSON.stringify(thoughts)}`);
      check(texts.join("") === "Hello! This answer streams in chunks.", `text: ${JSON.stringify(texts)}`);
      const command = await agent.chatToCompletion("run the command", { timeoutMs: 30_000 });
      check(asked.length === 1, `the permission was asked once: ${JSON.stringify(asked)}`);
      check(command.text.startsWith("Command result:"), `the command's turn: ${JSON.stringify(command.text)}`);
    });
  },
};

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
});

/** Interactions: a turn streamed with thinking, then a client function answered in the next request. */
const hostedTurns: WireScenario = {
  name: "hosted-stream-and-client-tool",
  wire: "interactions",
  description: "a hosted session: thinking and text streamed, then a client function answered in the next request",
  run: (connection) =>
    session(
      Agent.builder().connection(connection).tool(add).allowAll().build().start({ timeoutMs: 30_000 }),
      async (agent) => {
        const hello = await agent.chatToCompletion("hello there", { timeoutMs: 30_000 });
        check(hello.text === "Hello! This answer streams in chunks.", `text: ${JSON.stringify(hello.text)}`);
        check(hello.thinking === "A greeting. I greet back.", `thinking: ${JSON.stringify(hello.thinking)}`);
        const sum = await agent.chatToCompletion("add the numbers", { timeoutMs: 30_000 });
        check(sum.text === "The sum is 5.", `the client function's answer: ${JSON.stringify(sum.text)}`);
        check(sum.usageMetadata.totalTokenCount > 0, `usage: ${JSON.stringify(sum.usageMetadata)}`);
      },
    ),
};

/** Every golden trace of the acp and interactions wires. */
export const WIRE_SCENARIOS: readonly WireScenario[] = [acpTurns, hostedTurns];
