// The sessions behind the golden traces (test/traces/localharness/*.ndjson), written once for
// every runtime: Node records them against the reference harness (test/traces/record.ts, `npm run
// traces:update`), and each runtime suite (Node, Deno, workerd, Chromium) runs them again over
// `replayTransport`. A scenario throws when a behaviour a user relies on is not what it should
// be. Universal: only the SDK's own imports, no `node:` and no test framework.
import {
  Agent,
  ErrorCode,
  SdkError,
  allowAll,
  askUser,
  defineTool,
  deny,
  type ConnectionStrategy,
  type StartedAgent,
  type Transport,
} from "@antigravity-ts/sdk";
import { acpAgent } from "@antigravity-ts/sdk/acp";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";
import { replayFetch, replayStream, type JsonValue, type ReplayOptions, type Trace } from "@antigravity-ts/sdk/replay";

/** The workspace a golden trace names: the recorder writes the real one's path as this. */
export const TRACE_WORKSPACE = "/workspace";

/** What a scenario runs with. */
export interface ScenarioContext {
  /** The workspace to give the agent; {@link TRACE_WORKSPACE} on replay. */
  readonly workspace: string;
}

/** One session recorded as a golden trace, and what a user sees of it. */
export interface TraceScenario {
  /** The trace's file name without `.ndjson`. */
  readonly name: string;
  /** What the session does, for test names. */
  readonly description: string;
  /** Runs the session over `transport` and stops the agent; throws what went wrong. */
  run(transport: Transport, context: ScenarioContext): Promise<void>;
}

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
});

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/** Starts an agent, runs `body`, and always stops the agent. */
export async function session(
  agent: Promise<StartedAgent>,
  body: (agent: StartedAgent) => Promise<void>,
): Promise<void> {
  const started = await agent;
  try {
    await body(started);
  } finally {
    await started.stop();
  }
}

/** A client tool, a confirmed built-in tool, a cancelled turn and usage: the trace every runtime's user test replays. */
const toolConfirmationCancel: TraceScenario = {
  name: "tool-confirmation-cancel",
  description: "a client tool, a confirmation, a cancel and usage",
  run: (transport, { workspace }) => {
    const confirmed: string[] = [];
    const agent = Agent.builder()
      .transport(transport)
      .workspaces(workspace)
      .tool(add)
      .agentBehavior("interactive")
      .confirmRunCommand((call) => {
        confirmed.push(String((call.args as { CommandLine?: unknown }).CommandLine));
        return true;
      })
      .build()
      .start({ timeoutMs: 15_000 });
    return session(agent, async (agent) => {
      const sum = await agent.chatToCompletion("add the numbers", { timeoutMs: 15_000 });
      check(sum.text === "The sum is 5.", `the client tool's answer: ${JSON.stringify(sum.text)}`);
      const afterTool = await agent.conversation().totalUsage();
      check(
        afterTool.promptTokenCount > 0 && afterTool.candidatesTokenCount > 0,
        `usage after the tool turn: ${JSON.stringify(afterTool)}`,
      );

      const command = await agent.chatToCompletion("run the command", { timeoutMs: 15_000 });
      // A command without output: its progress updates would depend on timing, and a golden trace may not.
      check(
        command.text.startsWith("Command result: ") && command.text.includes('"exit_code":0'),
        `the confirmed command's answer: ${JSON.stringify(command.text)}`,
      );
      check(
        confirmed.length >= 1 && confirmed.every((line) => line === "true"),
        `confirmations asked: ${JSON.stringify(confirmed)}`,
      );

      const story = agent.chat("tell a long story", { timeoutMs: 15_000 });
      let firstChunk = "";
      let canceled: SdkError | undefined;
      try {
        for await (const chunk of story) {
          if (chunk.type !== "text") continue;
          firstChunk ||= chunk.text;
          await story.abort();
        }
      } catch (error) {
        canceled = SdkError.from(error);
      }
      check(canceled?.code === ErrorCode.Canceled, `the cancelled turn ended with ${canceled?.code ?? "no error"}`);
      check(firstChunk === "Once upon a time ", `the story's first chunk: ${JSON.stringify(firstChunk)}`);
      const outcome = await story.outcome();
      check(
        outcome.sent && outcome.error?.code === ErrorCode.Canceled,
        `the cancelled turn's outcome: ${outcome.error?.code ?? "none"}`,
      );

      const total = await agent.conversation().totalUsage();
      check(
        total.totalTokenCount > afterTool.totalTokenCount,
        `usage grows over turns: ${afterTool.totalTokenCount} then ${total.totalTokenCount}`,
      );
      check(
        total.totalTokenCount >= total.promptTokenCount + total.candidatesTokenCount,
        `usage adds up: ${JSON.stringify(total)}`,
      );
    });
  },
};

/** Thinking and text streamed chunk by chunk, a whole turn, usage. */
const streaming: TraceScenario = {
  name: "stream-thinking-text",
  description: "thinking and text streamed chunk by chunk, then a whole turn with usage",
  run: (transport, { workspace }) =>
    session(
      Agent.builder().transport(transport).workspaces(workspace).allowAll().build().start({ timeoutMs: 15_000 }),
      async (agent) => {
        const thoughts: string[] = [];
        const texts: string[] = [];
        for await (const chunk of agent.chat("hello there", { timeoutMs: 15_000 })) {
          if (chunk.type === "thought") thoughts.push(chunk.text);
          if (chunk.type === "text") texts.push(chunk.text);
        }
        check(thoughts.join("") === "A greeting. I greet back.", `thinking: ${JSON.stringify(thoughts)}`);
        check(
          texts.join("") === "Hello! This answer streams in chunks." && texts.length > 1,
          `text chunks: ${JSON.stringify(texts)}`,
        );
        const whole = await agent.chatToCompletion("hello again", { timeoutMs: 15_000 });
        check(
          whole.text === "Hello! This answer streams in chunks." && whole.thinking === "A greeting. I greet back.",
          `whole turn: ${JSON.stringify(whole.text)}`,
        );
        check(whole.usageMetadata.totalTokenCount > 0, `usage: ${JSON.stringify(whole.usageMetadata)}`);
        check(agent.conversationId !== "", "the harness named the conversation");
        check((await agent.conversation().turnCount()) === 2, "two turns in history");
      },
    ),
};

/** A policy that denies a built-in tool, and a PRE_TOOL hook that changes a client tool's arguments. */
const policiesAndHooks: TraceScenario = {
  name: "policy-and-hook",
  description: "a denying policy and a hook that rewrites a tool call",
  run: (transport, { workspace }) => {
    const seen: unknown[] = [];
    const agent = Agent.builder()
      .transport(transport)
      .workspaces(workspace)
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
      .policies(deny("run_command", "no shell in tests"), allowAll())
      .build()
      .start({ timeoutMs: 15_000 });
    return session(agent, async (agent) => {
      const denied = await agent.chatToCompletion("run the command", { timeoutMs: 15_000 });
      check(
        denied.steps.find((s) => s.toolCalls[0]?.name === "run_command")?.status === "ERROR",
        "the denied call is an ERROR step",
      );
      check(denied.text.includes("no shell in tests"), `the model saw the denial: ${JSON.stringify(denied.text)}`);
      const sum = await agent.chatToCompletion("add the numbers", { timeoutMs: 15_000 });
      check(sum.text === "The sum is 12.", `the hook's arguments reached the tool: ${JSON.stringify(sum.text)}`);
      check(JSON.stringify(seen) === JSON.stringify([{ a: 2, b: 10 }]), `the tool saw ${JSON.stringify(seen)}`);
    });
  },
};

/** Every golden trace's scenario. */
export const SCENARIOS: readonly TraceScenario[] = [toolConfirmationCancel, streaming, policiesAndHooks];

/** The scenario every runtime's user test replays (and replays again with one client frame changed). */
export const USER_SCENARIO = toolConfirmationCancel;

/**
 * `trace` with the first client frame of kind `kind` changed by `change` (which edits the parsed
 * frame in place): what a test does to show that a replay fails with a diff.
 */
export function changeClientFrame(
  trace: string,
  kind: string,
  change: (frame: { [key: string]: JsonValue }) => void,
): string {
  let done = false;
  return trace
    .split("\n")
    .map((line) => {
      if (done || line.trim() === "") return line;
      const event = JSON.parse(line) as { kind?: string; from?: string; frame?: { [key: string]: JsonValue } };
      if (event.kind !== "frame" || event.from !== "client" || event.frame === undefined || !(kind in event.frame))
        return line;
      change(event.frame);
      done = true;
      return JSON.stringify(event);
    })
    .join("\n");
}

/** The headline change: the trace's tool result says 6 where the client tool answers 5. */
export function withChangedToolResult(trace: string): string {
  return changeClientFrame(trace, "toolResponse", (frame) => {
    (frame["toolResponse"] as { responseJson: string }).responseJson = '{"sum":6}';
  });
}

// The other wires' golden traces (test/traces/acp/*.ndjson, test/traces/interactions/*.ndjson):
// the same sessions run over any connection — recorded by Node against `antigravity-harness --acp`
// and its Interactions API emulator (test/traces/record-wires.ts), replayed over replayStream /
// replayFetch with no process and no server (wireReplay).

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

/** The connection that replays `scenario`'s trace with no process and no server, and how to check it was all played. */
export function wireReplay(
  scenario: WireScenario,
  trace: string | Trace,
  options: ReplayOptions = {},
): { connection: ConnectionStrategy; verify(): void } {
  if (scenario.wire === "acp") {
    const replay = replayStream(trace, options);
    return { connection: acpAgent({ stream: replay.open, cwd: TRACE_WORKSPACE }), verify: () => replay.verify() };
  }
  const replay = replayFetch(trace, options);
  return {
    connection: hostedAgent({ apiKey: "replayed", baseUrl: "http://replay.invalid", fetch: replay.fetch }),
    verify: () => replay.verify(),
  };
}
