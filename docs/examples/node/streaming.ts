// The seed's streaming example (examples/streaming.rs) in TypeScript: thoughts and text as they
// arrive, tool calls as they are made. Runs against the bundled reference harness when no
// `localharness` is configured (set GEMINI_API_KEY for a real model).
//
//   npx tsx --conditions=antigravity-source docs/examples/node/streaming.ts
import { Agent } from "@antigravity-ts/node";

await using agent = await Agent.builder().model("gemini-3.5-flash").allowAll().build().start({ timeoutMs: 30_000 });
const conversation = agent.conversation();

const prompt = "Solve this riddle: I speak without a mouth and hear without ears. What am I?";
console.log(`User: ${prompt}\n`);

let lastStep: number | undefined; // the model call (step) the last text came from
for await (const chunk of conversation.chat(prompt)) {
  switch (chunk.type) {
    case "thought":
      process.stdout.write(chunk.text); // reasoning tokens as they arrive
      break;
    case "text":
      // A new model call starts a new paragraph: the text of two calls never runs together.
      if (lastStep !== undefined && chunk.stepIndex !== lastStep) process.stdout.write("\n\n");
      lastStep = chunk.stepIndex;
      process.stdout.write(chunk.text); // response tokens as they arrive
      break;
    case "toolCall":
      console.log(`\n[Tool Call: ${chunk.toolCall.name} with args: ${JSON.stringify(chunk.toolCall.args)}]`);
      break;
  }
}
console.log();
