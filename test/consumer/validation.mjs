// Arguments checked at runtime against the tool's zod schema: the scripted model calls `add` with
// { a: "two", b: 3 }; the tool must never run and the model must get the validation error.
import assert from "node:assert/strict";
import { Agent, defineTool } from "@antigravity-ts/node";
import { z } from "zod";

let ran = 0;
const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  call: ({ a, b }) => {
    ran += 1;
    return { sum: a + b };
  },
});

const agent = await Agent.builder().tool(add).confirmRunCommand().build().start({ timeoutMs: 30_000 });
try {
  const response = await agent.chatToCompletion("Please add with bad arguments", { timeoutMs: 30_000 });
  assert.equal(ran, 0, "the tool ran with invalid arguments");
  const answer = response.text.trim();
  // The scripted model quotes what the tool call answered: {"error": "..."} naming the bad field.
  assert.match(answer, /^The tool answered: \{"error":/, answer);
  assert.match(answer, /\ba\b/, `the error does not name the argument "a": ${answer}`);
  console.log(answer);
} finally {
  await agent.stop();
}
