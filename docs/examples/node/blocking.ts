// The seed's blocking example (Conversation::chat_to_completion) in TypeScript: one call, the whole
// turn back, then the conversation's state. Runs against the bundled reference harness when no
// `localharness` is configured (set GEMINI_API_KEY for a real model).
//
//   npx tsx --conditions=antigravity-source docs/examples/node/blocking.ts
import { Agent } from "@antigravity-ts/node";

await using agent = await Agent.builder().allowAll().build().start({ timeoutMs: 30_000 });
const conversation = agent.conversation();

const response = await conversation.chatToCompletion("What is 2 + 2?");
// One paragraph per model call: `text` glues the calls' text together (as upstream), `textBlocks` keeps them apart.
console.log(`Response:\n${response.textBlocks.map((block) => block.text).join("\n\n")}`);
console.log(`Thinking: ${response.thinking}`);
console.log(`Steps: ${response.steps.length}`);
console.log(`Total tokens: ${response.usageMetadata.totalTokenCount}`);

const history = await conversation.history();
console.log(`Total steps: ${history.length}`);
console.log(`Turns completed: ${await conversation.turnCount()}`);
const total = await conversation.totalUsage();
console.log(
  `Session tokens: ${total.promptTokenCount} prompt, ${total.candidatesTokenCount} generated, ${total.totalTokenCount} total`,
);
const turn = await conversation.lastTurnUsage();
if (turn !== undefined) console.log(`Last turn: ${turn.thoughtsTokenCount} thinking tokens`);
const compactions = await conversation.compactionIndices();
if (compactions.length > 0) console.log(`History was compacted at step indices: ${compactions.join(", ")}`);
