// One run of an agent whose conversation is persisted: the SDK side in a ConversationStore (the
// file store), the harness side under saveDir. Used by persistence-restart.test.ts, which kills
// this process mid-turn and starts it again.
//   node --conditions=antigravity-source --import tsx persisted-agent.ts <saveDir> <storeDir> <conversationId> <prompt>...
// Environment: ANTIGRAVITY_HARNESS_PATH, and the scripted model's ANTIGRAVITY_MODEL_PROVIDER / ANTIGRAVITY_SCRIPT.
// Prints one JSON line per event: {"event":"started",...}, {"event":"toolStarted"}, {"event":"turn",...}.
import {
  Agent,
  createFileConversationStore,
  defineTool,
  subprocessTransportFactory,
  type Step,
} from "@antigravity-ts/node";

const [saveDir, storeDir, conversationId, ...prompts] = process.argv.slice(2);
if (saveDir === undefined || storeDir === undefined || conversationId === undefined)
  throw new Error("usage: persisted-agent.ts <saveDir> <storeDir> <conversationId> <prompt>...");

const print = (event: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(event)}\n`);
const brief = (step: Step): Record<string, unknown> => ({
  id: step.id,
  type: step.type,
  source: step.source,
  status: step.status,
  error: step.error,
  content: step.content,
  calls: step.toolCalls.map((c) => c.id),
});

/** A client tool that runs until the process is killed (or its call is cancelled). */
const slowTool = defineTool({
  name: "slow_tool",
  description: "Takes its time",
  parameters: { type: "object", properties: { seconds: { type: "number" } } },
  call: async (_args: unknown, context) => {
    print({ event: "toolStarted" });
    await new Promise((_, reject) =>
      context.signal.addEventListener("abort", () => reject(context.signal.reason), { once: true }),
    );
    return "never";
  },
});

await using agent = await Agent.builder()
  .transport(subprocessTransportFactory({ saveDir }))
  .conversationId(conversationId)
  .sessionContinuationMode("createOrResume")
  .conversationStore(createFileConversationStore(storeDir))
  .tool(slowTool)
  .allowAll()
  .build()
  .start({ timeoutMs: 30_000 });
const conversation = agent.conversation();
print({
  event: "started",
  conversationId: agent.conversationId,
  turnCount: await conversation.turnCount(),
  turnStartIndices: await conversation.turnStartIndices(),
  history: (await conversation.history()).map(brief),
});
for (const prompt of prompts) {
  const response = await conversation.chatToCompletion(prompt, { timeoutMs: 30_000 });
  print({ event: "turn", text: response.text, turnCount: await conversation.turnCount() });
}
