// Saves snapshots of one conversation in a loop, for the cross-process tests of the file store:
//   node --conditions=antigravity-source --import tsx save-loop.ts <directory> <conversationId> <writer 1..9> <count|forever>
// Snapshot k of writer w has turnCount w*1000+k and ~300 KB of text, so a torn or interleaved
// file cannot parse as any snapshot. Prints "saved <n>" after each save.
import { sampleSnapshot } from "@antigravity-ts/sdk/testing";
import { createFileConversationStore } from "../file-store.js";

const [directory, conversationId, writerText, countText] = process.argv.slice(2);
if (directory === undefined || conversationId === undefined || writerText === undefined || countText === undefined) {
  throw new Error("usage: save-loop.ts <directory> <conversationId> <writer> <count|forever>");
}
const writer = Number(writerText);
const count = countText === "forever" ? Number.POSITIVE_INFINITY : Number(countText);
const store = createFileConversationStore(directory);
for (let k = 1; k <= count; k++) {
  const snapshot = sampleSnapshot(conversationId, { turns: 3, padding: 100_000 });
  snapshot.turnCount = writer * 1000 + k;
  await store.save(snapshot);
  process.stdout.write(`saved ${k}\n`);
}
