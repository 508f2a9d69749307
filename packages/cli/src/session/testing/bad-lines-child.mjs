// A hostile NDJSON child for ndjson-streaming-session.test.ts: answers each user_message with bad
// lines (not JSON, 3 MiB long, a text line without text, an init of another version, an unknown
// type) and then a proper receipt, text, turnComplete and result. Exits 0 at end of input.
import { createInterface } from "node:readline";

const write = (line) => process.stdout.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`);
write({
  type: "init",
  version: 2,
  conversationId: "fake",
  capabilities: { streamingInput: { supported: true, semantics: "queue" } },
});
let turn = 0;
for await (const raw of createInterface({ input: process.stdin })) {
  const input = JSON.parse(raw);
  if (input.type !== "user_message") continue;
  const usage = { totalTokenCount: 1 };
  write("not json{");
  write("x".repeat(3 * 1024 * 1024));
  write({ type: "text", stepIndex: 1 });
  write({ type: "init", version: 3, conversationId: "fake", capabilities: {} });
  write({ type: "a_future_line_type", anything: true });
  write({ type: "receipt", id: input.id, messageIndex: turn, turnIndex: turn });
  write({ type: "text", stepIndex: 1, text: "still here" });
  write({ type: "turnComplete", turnIndex: turn, usage });
  write({ type: "result", turnIndex: turn, success: true, interrupted: false, usage });
  turn++;
}
