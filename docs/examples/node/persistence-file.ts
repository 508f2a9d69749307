// One conversation continued across runs of this script: the SDK keeps its history as JSON files
// (`createFileConversationStore`), the harness keeps the model's context in `saveDir`. Run it twice
// and the second run knows the first.
//
//   npx tsx --conditions=antigravity-source docs/examples/node/persistence-file.ts [directory]
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Agent, createFileConversationStore, subprocessTransportFactory } from "@antigravity-ts/node";

const directory = process.argv[2] ?? ".antigravity-example";
await mkdir(directory, { recursive: true });
// The conversation id is ours to choose (at least 32 letters, digits or "-"); keep it to come back.
const idFile = join(directory, "conversation-id");
const conversationId = await readFile(idFile, "utf8").catch(() => crypto.randomUUID());
await writeFile(idFile, conversationId);

await using agent = await Agent.builder()
  .conversationId(conversationId)
  .sessionContinuationMode("createOrResume")
  .transport(subprocessTransportFactory({ saveDir: join(directory, "harness") }))
  .conversationStore(createFileConversationStore(join(directory, "conversations")))
  .allowAll()
  .build()
  .start({ timeoutMs: 30_000 });
const conversation = agent.conversation();

const before = await conversation.turnCount();
console.log(`Conversation ${agent.conversationId}: ${before} turn(s) so far`);
const response = await conversation.chatToCompletion(`This is run number ${before + 1}.`);
console.log(`Response:\n${response.textBlocks.map((block) => block.text).join("\n\n")}`); // a paragraph per model call
console.log(`Turns now: ${await conversation.turnCount()}`);
