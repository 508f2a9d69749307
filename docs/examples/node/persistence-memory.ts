// A conversation saved in memory and continued by a second agent session in the same process:
// `conversationStore()` saves it after every turn and restores it at `start()`; the harness keeps
// the model's side of the session in `saveDir`, so both halves continue. Then a snapshot as JSON.
//
//   npx tsx --conditions=antigravity-source docs/examples/node/persistence-memory.ts
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, parseConversationSnapshot, subprocessTransportFactory } from "@antigravity-ts/node";
import { createMemoryConversationStore } from "@antigravity-ts/sdk/storage";

const store = createMemoryConversationStore();
const saveDir = await mkdtemp(join(tmpdir(), "antigravity-example-"));
const conversationId = crypto.randomUUID();
const startAgent = () =>
  Agent.builder()
    .conversationId(conversationId)
    .sessionContinuationMode("createOrResume")
    .transport(subprocessTransportFactory({ saveDir }))
    .conversationStore(store)
    .allowAll()
    .build()
    .start({ timeoutMs: 30_000 });

try {
  {
    await using agent = await startAgent();
    const response = await agent.conversation().chatToCompletion("What is 2 + 2?");
    console.log(`First session:\n${response.textBlocks.map((block) => block.text).join("\n\n")}`); // a paragraph per model call
  } // the agent stops here; its conversation was saved when the turn ended

  const stored = await store.load(conversationId);
  console.log(
    `Stored: ${stored?.format} version ${stored?.version}, ${stored?.steps.length} steps, ${stored?.turnCount} turn(s)`,
  );

  {
    await using agent = await startAgent();
    const conversation = agent.conversation();
    console.log(
      `Second session restored ${await conversation.turnCount()} turn(s), ${(await conversation.history()).length} steps`,
    );
    await conversation.chatToCompletion("And 3 + 3?");
    console.log(`Turns now: ${await conversation.turnCount()}`);

    // A snapshot is plain JSON: keep it anywhere, check it when it comes back.
    const json = JSON.stringify(await conversation.snapshot());
    const snapshot = parseConversationSnapshot(JSON.parse(json)); // InvalidArgument if it is not one
    console.log(
      `Snapshot: ${json.length} characters, ${snapshot.turnCount} turns, ${snapshot.usage.total.totalTokenCount} tokens`,
    );
  }
} finally {
  await rm(saveDir, { recursive: true, force: true });
}
