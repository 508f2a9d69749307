// ESM consumer: a real turn with the bundled reference harness as a subprocess (the scripted model
// of script.json, set by the suite through ANTIGRAVITY_SCRIPT), with a client tool.
import assert from "node:assert/strict";
import { Agent, defineTool } from "@antigravity-ts/node";

let calls = 0;
const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  call: ({ a, b }) => {
    calls += 1;
    return { sum: a + b };
  },
});

const agent = await Agent.builder().tool(add).confirmRunCommand().build().start({ timeoutMs: 30_000 });
try {
  const response = await agent.chatToCompletion("Please add two and three", { timeoutMs: 30_000 });
  assert.equal(calls, 1, "the client tool ran once");
  assert.equal(response.text.trim(), "The sum is 5.");
  console.log(JSON.stringify({ answer: response.text.trim(), totalTokens: response.usageMetadata.totalTokenCount }));
} finally {
  await agent.stop();
}
