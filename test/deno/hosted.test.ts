// The hosted agent under Deno: the built SDK's hostedAgent (fetch + SSE, nothing else) against the
// built reference harness's Interactions API emulator in a real child process
// (`antigravity-harness --listen 127.0.0.1:0 --interactions-api`): text and thinking, a hosted
// tool, a client tool run here, a cancel, and a conversation of three turns restored from a store
// onto a new connection. Run: npx deno test -A --no-check test/deno/
import assert from "node:assert/strict";
import { Agent, ErrorCode, defineTool } from "@antigravity-ts/sdk";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";
import { createMemoryConversationStore } from "@antigravity-ts/sdk/storage";
import { startListeningHarness } from "./listening-harness.ts";

const SLOW = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
const script = {
  turns: [
    { match: "hello", calls: [{ thinking: "Short.", text: "Hello from the emulator." }] },
    {
      match: "list",
      calls: [{ toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] }, { text: "Listed." }],
    },
    { match: "runtime", calls: [{ toolCalls: [{ name: "$client", args: {} }] }, { text: "Asked the runtime." }] },
    { match: "slow", calls: [{ text: SLOW, chunkWords: 1, chunkDelayMs: 50 }] },
    { match: "first", calls: [{ text: "One." }] },
    { match: "second", calls: [{ text: "Two." }] },
    { match: "third", calls: [{ text: "Three." }] },
  ],
};

Deno.test("hostedAgent runs text, a hosted tool, a client tool, a cancel and a restored conversation under Deno", async () => {
  const dir = await Deno.makeTempDir({ prefix: "antigravity-hosted-deno-" });
  await Deno.mkdir(`${dir}/ws`);
  await Deno.writeTextFile(`${dir}/ws/notes.txt`, "hi\n");
  await Deno.writeTextFile(`${dir}/script.json`, JSON.stringify(script));
  const harness = await startListeningHarness({
    args: ["--interactions-api", "--workspace", `${dir}/ws`, "--script", `${dir}/script.json`],
  });
  const strategy = () => hostedAgent({ apiKey: harness.apiKey, baseUrl: harness.url });
  try {
    await using agent = await Agent.builder()
      .connection(strategy())
      .tool(
        defineTool({
          name: "deno_version",
          description: "Which Deno runs the client",
          parameters: { type: "object", properties: {} },
          call: () => ({ deno: Deno.version.deno }),
        }),
      )
      .allowAll()
      .build()
      .start();
    const hello = await agent.chatToCompletion("hello");
    assert.equal(hello.text, "Hello from the emulator.");
    assert.equal(hello.thinking, "Short.");

    const events = [];
    for await (const event of agent.chat("list the files").events()) events.push(event);
    const result = events.find((e) => e.type === "toolResult");
    assert.ok(
      JSON.stringify(result?.type === "toolResult" ? result.result : undefined).includes("notes.txt"),
      "the hosted tool's result names notes.txt",
    );

    const steps = [];
    const runtime = agent.chat("which runtime?");
    for await (const step of runtime.steps()) steps.push(step);
    assert.equal((await runtime.final()).text, "Asked the runtime.");
    const done = steps.find((s) => s.stepIndex >= 50_000 && s.status === "DONE");
    assert.deepEqual(done?.toolCalls[0]?.args, { deno: Deno.version.deno });

    const slow = agent.chat("slow please");
    let seen = "";
    for await (const chunk of slow) {
      if (chunk.type === "text") seen += chunk.text;
      if (seen.includes("w3")) break;
    }
    await slow.abort();
    assert.equal((await slow.outcome()).error?.code, ErrorCode.Canceled);

    const store = createMemoryConversationStore();
    const conversationId = crypto.randomUUID();
    {
      await using first = await Agent.builder()
        .connection(strategy())
        .conversationId(conversationId)
        .sessionContinuationMode("createOrResume")
        .conversationStore(store)
        .allowAll()
        .build()
        .start();
      assert.equal((await first.chatToCompletion("first")).text, "One.");
      assert.equal((await first.chatToCompletion("second")).text, "Two.");
      await first.conversation().save();
    }
    await using restored = await Agent.builder()
      .connection(strategy())
      .conversationId(conversationId)
      .sessionContinuationMode("resume")
      .conversationStore(store)
      .allowAll()
      .build()
      .start();
    assert.equal((await restored.chatToCompletion("third")).text, "Three.");
    assert.equal(await restored.conversation().turnCount(), 3);
  } finally {
    await harness.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
