// Type test: the examples of seed 000 (Rust), written in their TypeScript form, compile as
// shown; the `@ts-expect-error` lines are misuses that must not compile. Checked by
// `tsc -p packages/sdk/tsconfig.test.json`; never executed.
import { Conversation, DEFAULT_MAX_HISTORY_SIZE, ErrorCode, SdkError, StepType } from "@antigravity-ts/sdk";
import type {
  ChatResponse,
  Connection,
  ConversationOptions,
  Step,
  StreamChunk,
  UsageMetadata,
} from "@antigravity-ts/sdk";
import { createMockConnection, mockStep } from "@antigravity-ts/sdk/testing";
import type { MockConnection, MockTurn } from "@antigravity-ts/sdk/testing";

declare const connection: Connection;
declare function print(text: string): void;

// Conversation::new(conn, Some(5000)) / Some(0) / None
const conversation = new Conversation(connection, { maxHistorySize: 5000 });
const unlimited = new Conversation(connection, { maxHistorySize: 0 });
const withDefault = new Conversation(connection, { maxHistorySize: undefined });
const alsoDefault = new Conversation(connection);
const size: number = DEFAULT_MAX_HISTORY_SIZE;
const options: ConversationOptions = {};
void [unlimited, withDefault, alsoDefault, size, options];
// @ts-expect-error maxHistorySize is a number
new Conversation(connection, { maxHistorySize: "100" });
// @ts-expect-error a Conversation needs a connection
new Conversation();

// examples/streaming.rs: the chunk loop with a match on the variant.
async function streaming(): Promise<void> {
  const prompt = "Solve this riddle: I speak without a mouth and hear without ears. What am I?";
  print(`User: ${prompt}\n`);
  for await (const chunk of conversation.chat(prompt)) {
    switch (chunk.type) {
      case "thought":
        print(chunk.text); // reasoning tokens
        break;
      case "text":
        print(`${chunk.text} (step ${chunk.stepIndex})`);
        break;
      case "toolCall":
        print(`\n[Tool Call: ${chunk.toolCall.name} with args: ${JSON.stringify(chunk.toolCall.args)}]`);
        // @ts-expect-error a toolCall chunk has no text
        print(chunk.text);
        // @ts-expect-error nor a stepIndex
        print(String(chunk.stepIndex));
        break;
      default: {
        const unreachable: never = chunk; // the switch is exhaustive
        void unreachable;
      }
    }
  }
}

function noNarrowing(chunk: StreamChunk): string {
  // @ts-expect-error `.text` needs narrowing on chunk.type first
  return chunk.text;
}

async function notSyncIterable(): Promise<void> {
  // @ts-expect-error chat() is an async stream: `for await`, not `for`
  for (const chunk of conversation.chat("x")) void chunk;
  // @ts-expect-error chat() needs a prompt
  conversation.chat();
  // @ts-expect-error timeoutMs is a number of milliseconds
  conversation.chat("x", { timeoutMs: "5s" });
  conversation.chat([{ text: "Describe this" }, { media: { mimeType: "image/png", data: new Uint8Array() } }], {
    timeoutMs: 30_000,
  });
}

// chat_to_completion
async function completion(): Promise<void> {
  const response: ChatResponse = await conversation.chatToCompletion("What is 2 + 2?", {
    signal: AbortSignal.timeout(60_000),
  });
  print(`Response: ${response.text}`);
  print(`Thinking: ${response.thinking}`);
  print(`Steps: ${response.steps.length}`);
  print(`Total tokens: ${response.usageMetadata.totalTokenCount}`);
  const structured: unknown = response.structuredOutput;
  const stop: string | undefined = response.stopReason;
  void [structured, stop];
  // @ts-expect-error with noUncheckedIndexedAccess a step may be missing
  print(response.steps[0].id);
  const first: Step | undefined = response.steps[0];
  if (first?.type === StepType.ToolCall) print(first.toolCalls.map((c) => c.name).join());
}

// State methods are async (they take the lock), as in Rust.
async function state(): Promise<void> {
  const history: Step[] = await conversation.history();
  print(`Total steps: ${history.length}`);
  print(`Turns completed: ${await conversation.turnCount()}`);
  const total: UsageMetadata = await conversation.totalUsage();
  print(
    `Session tokens: ${total.promptTokenCount} prompt, ${total.candidatesTokenCount} generated, ${total.totalTokenCount} total`,
  );
  const turn = await conversation.lastTurnUsage();
  if (turn !== undefined) print(`Last turn: ${turn.thoughtsTokenCount} thinking tokens`);
  const compactions: number[] = await conversation.compactionIndices();
  if (compactions.length > 0) print(`History was compacted at step indices: ${compactions.join(", ")}`);
  const last: string = await conversation.lastResponse();
  await conversation.clearHistory();
  void last;
  // @ts-expect-error turnCount() is async: await it
  const count: number = conversation.turnCount();
  // @ts-expect-error lastTurnUsage() is undefined before the first turn ends
  const usage: UsageMetadata = await conversation.lastTurnUsage();
  void [count, usage];
}

// send / receive_steps / receive_chunks, accessors, disconnect.
async function raw(): Promise<void> {
  await conversation.send("Explain monads", { timeoutMs: 5_000 });
  for await (const step of conversation.receiveSteps()) print(`${step.type} ${step.status}`);
  await conversation.send("And functors?");
  for await (const chunk of conversation.receiveChunks({ signal: new AbortController().signal }))
    if (chunk.type === "text") print(chunk.text);
  const id: string = conversation.conversationId;
  const idle: boolean = conversation.isIdle;
  const conn: Connection = conversation.connection;
  void [id, idle, conn];
  // @ts-expect-error conversationId is read-only
  conversation.conversationId = "other";
  await conversation.disconnect();
}

// Errors and cancellation.
async function cancellation(): Promise<void> {
  const controller = new AbortController();
  try {
    for await (const chunk of conversation.chat("long task", { signal: controller.signal }))
      if (chunk.type === "text") controller.abort();
  } catch (e) {
    if (SdkError.from(e).code === ErrorCode.Canceled) print("stopped");
  }
  await using scoped = new Conversation(connection);
  void scoped;
}

// The mock connection, for tests.
async function mock(): Promise<void> {
  const turns: MockTurn[] = [
    {
      steps: [{ content: "Hi!" }, { type: StepType.Finish, structuredOutput: { ok: true } }],
      usage: { totalTokenCount: 12 },
    },
  ];
  const mockConnection: MockConnection = createMockConnection({ conversationId: "c", turns });
  const c = new Conversation(mockConnection);
  await c.chatToCompletion("Hello");
  const prompts: readonly unknown[] = mockConnection.sent.prompts;
  const step: Step = mockStep({ content: "x" });
  void [prompts, step];
  // @ts-expect-error steps are Partial<Step>: unknown fields are refused
  createMockConnection({ turns: [{ steps: [{ text: "Hi" }] }] });
}

void [streaming, noNarrowing, notSyncIterable, completion, state, raw, cancellation, mock];
