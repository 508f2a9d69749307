// A hosted turn paused under Deno and resumed in a Node process (docs/hosted.md "Pause and
// resume"): the built SDK's hostedAgent pauses on a deferToUser client call against the built
// reference harness's Interactions API emulator (a child process); the continuation file is all
// that reaches test/node/hosted/fixtures/resume-paused.ts, run by Node, which reads the interaction
// back, runs the call and finishes the turn. Run: npx deno test -A --no-check test/deno/
import assert from "node:assert/strict";
import { Agent, allowAll, defineTool, deferToUser, type Continuation } from "@antigravity-ts/sdk";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";
import { startListeningHarness } from "./listening-harness.ts";

/** The secret of test/node/hosted/fixtures/pay-agent.ts, whose agent resumes. */
const SECRET = "hosted-pause-secret-0123456789abcdef";
const root = new URL("../../", import.meta.url);
const script = {
  turns: [
    {
      match: "buy",
      calls: [
        {
          toolCalls: [
            { name: "lookup", args: { item: "book" } },
            { name: "pay", args: { amount: 12 } },
          ],
        },
        { text: "Bought: {{results.pay.receipt}}." },
      ],
    },
  ],
};

Deno.test("a hosted turn paused under Deno is resumed by a Node process", async () => {
  const dir = await Deno.makeTempDir({ prefix: "antigravity-hosted-resume-deno-" });
  await Deno.mkdir(`${dir}/ws`);
  await Deno.writeTextFile(`${dir}/script.json`, JSON.stringify(script));
  const harness = await startListeningHarness({
    args: ["--interactions-api", "--workspace", `${dir}/ws`, "--script", `${dir}/script.json`],
  });
  try {
    const ran: string[] = [];
    const tool = (name: string, result: unknown) =>
      defineTool({
        name,
        description: name,
        parameters: { type: "object", properties: {} },
        call: () => {
          ran.push(name);
          return result;
        },
      });
    const agent = await Agent.builder()
      .connection(hostedAgent({ apiKey: harness.apiKey, baseUrl: harness.url }))
      .tool(tool("lookup", { price: 12 }), tool("pay", { receipt: "paid under Deno" }))
      .policies(deferToUser("pay"), allowAll())
      .continuationSecret(SECRET)
      .build()
      .start();
    const paused = (await agent.chat("buy the book").final()).awaitingConfirmation;
    await agent.stop();
    assert.deepEqual(ran, ["lookup"]);
    const continuation = paused?.continuation as Continuation;
    assert.match(continuation.signature ?? "", /^hmac-sha256:/);
    await Deno.writeTextFile(`${dir}/continuation.json`, JSON.stringify(continuation));

    const child = await new Deno.Command(Deno.env.get("NODE_BINARY") ?? "node", {
      args: ["--conditions=antigravity-source", "--import", "tsx", "test/node/hosted/fixtures/resume-paused.ts"],
      cwd: root.pathname,
      env: {
        HOSTED_KEY: harness.apiKey,
        HOSTED_BASE_URL: harness.url,
        CONTINUATION_FILE: `${dir}/continuation.json`,
        DECISION: "approve",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(child.stdout);
    assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
    const resumed = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    assert.equal(resumed.error, undefined, JSON.stringify(resumed.error));
    assert.deepEqual(resumed.ran, [{ name: "pay", args: { amount: 12 } }]);
    assert.equal(resumed.text, "Bought: R-12.");
    assert.deepEqual(ran, ["lookup"]); // nothing ran twice, nothing ran here after the pause
  } finally {
    await harness.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
