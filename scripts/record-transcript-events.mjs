// Records what `ChatStream.events()` yields for the browser example's scripted turns, through the
// reference harness in a real subprocess, into the fixture the Transcript unit tests fold
// (packages/sdk/src/transcript/recorded-events.json). Run from the repository root:
//   node --conditions=antigravity-source --import tsx scripts/record-transcript-events.mjs
// Each turn is recorded with how its stream ended (`end`: nothing, or the error's code and message)
// and, last, the conversation's history and turn starts (for Transcript.restore()).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, defineTool } from "@antigravity-ts/node";

const root = join(import.meta.dirname, "..");
const out = join(root, "packages/sdk/src/transcript/recorded-events.json");
process.env.ANTIGRAVITY_SCRIPT = join(root, "test/browser/chat-script.json");

/** The browser example's read_page, over a fixed page: it throws for any selector but #notes. */
const readPage = defineTool({
  name: "read_page",
  description: "Reads the visible text of an element of the chat page, chosen by a CSS selector.",
  parameters: { type: "object", properties: { selector: { type: "string" } } },
  call: ({ selector = "#notes" }) => {
    if (selector !== "#notes") throw new Error(`no element matches ${selector}`);
    return { selector, text: "the launch window opens on Tuesday at 09:30" };
  },
});

const turns = [
  { name: "clientTool", prompt: "What do my notes say?", allow: true },
  { name: "clientToolThrows", prompt: "read a missing element please", allow: true },
  { name: "builtinApproved", prompt: "please run a command", allow: true },
  { name: "builtinDenied", prompt: "please run a command", allow: false },
  { name: "stopped", prompt: "tell me something slow", allow: true, stopAfterText: true },
];

let allow = true;
const agent = await Agent.builder()
  .tool(readPage)
  .workspaces(root)
  .confirmRunCommand(async () => allow)
  .build()
  .start();
const conversation = agent.conversation();
const recorded = {};
for (const turn of turns) {
  allow = turn.allow;
  const stream = conversation.chat(turn.prompt);
  const events = [];
  let end = null;
  try {
    for await (const event of stream.events()) {
      events.push(event);
      if (turn.stopAfterText && event.type === "text") void stream.abort(); // the user's Stop
    }
  } catch (error) {
    end = { code: error.code, message: error.message };
  }
  recorded[turn.name] = { prompt: turn.prompt, events, end };
}
recorded.history = { steps: await conversation.history(), turnStarts: await conversation.turnStartIndices() };
await agent.stop();
// No path of this machine in the repository: the workspace becomes "/workspace".
const json = JSON.stringify(recorded, null, 1).split(JSON.stringify(root).slice(1, -1)).join("/workspace");
writeFileSync(out, `${json}\n`);
console.log(`wrote ${out}`);
