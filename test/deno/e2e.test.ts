// The end-to-end turn under Deno: the built SDK (node_modules mode resolves @antigravity-ts/sdk to
// packages/sdk/dist) against the built reference harness in a real child process, over Deno's own
// WebSocket with the key in a header. Run: npx deno test -A --no-check test/deno/
import assert from "node:assert/strict";
import { Agent, ErrorCode, SdkError, WebSocketTransport, defineTool, type StreamChunk } from "@antigravity-ts/sdk";
import { DenoWebSocket } from "../../docs/examples/deno/deno-websocket.ts";
import { startListeningHarness } from "./listening-harness.ts";

const denoInfo = defineTool({
  name: "deno_info",
  description: "Tells which Deno version runs the client.",
  parameters: { type: "object", properties: {} },
  call: () => ({ deno: Deno.version.deno }),
});

Deno.test("a full turn streams thinking, text and a client tool call over Deno's WebSocket with headers", async () => {
  const harness = await startListeningHarness();
  try {
    await using agent = await Agent.builder()
      .transport(new WebSocketTransport({ url: harness.url, apiKey: harness.apiKey, WebSocket: DenoWebSocket }))
      .tool(denoInfo)
      .confirmRunCommand()
      .build()
      .start({ timeoutMs: 15_000 });
    const chunks: StreamChunk[] = [];
    for await (const chunk of agent.chat("Hello from Deno", { timeoutMs: 30_000 })) chunks.push(chunk);

    const kinds = chunks.map((c) => c.type);
    assert.ok(kinds.includes("thought"), `no thought chunk in ${kinds.join(",")}`);
    assert.ok(kinds.indexOf("thought") < kinds.indexOf("text"), "thinking streams before the answer");
    const toolCalls = chunks.flatMap((c) => (c.type === "toolCall" ? [c.toolCall.name] : []));
    assert.ok(toolCalls.includes("deno_info"), `the model called ${toolCalls.join(",")}`);
    const text = chunks.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
    // The scripted model quotes the client tool's answer: proof the tool ran here, in Deno.
    assert.ok(text.includes(Deno.version.deno), `answer does not quote the tool result: ${text}`);

    const usage = await agent.conversation().totalUsage();
    assert.ok(
      usage.promptTokenCount > 0 && usage.candidatesTokenCount > 0,
      `usage was not reported: ${JSON.stringify(usage)}`,
    );
    assert.ok(usage.totalTokenCount >= usage.promptTokenCount + usage.candidatesTokenCount);
  } finally {
    await harness.stop();
  }
});

Deno.test("chatToCompletion works over the default WebSocket (isomorphic-ws) too", async () => {
  const harness = await startListeningHarness();
  try {
    await using agent = await Agent.builder()
      .transport(new WebSocketTransport({ url: harness.url, apiKey: harness.apiKey }))
      .confirmRunCommand()
      .build()
      .start({ timeoutMs: 15_000 });
    const first = await agent.chatToCompletion("first question", { timeoutMs: 30_000 });
    const second = await agent.chatToCompletion("second question", { timeoutMs: 30_000 });
    assert.ok(first.text.length > 0 && second.text.length > 0);
    assert.equal(await agent.conversation().turnCount(), 2);
    assert.ok(
      second.usageMetadata.totalTokenCount > first.usageMetadata.totalTokenCount,
      "usage accumulates over turns",
    );
  } finally {
    await harness.stop();
  }
});

Deno.test("a wrong key is refused with PermissionDenied", async () => {
  const harness = await startListeningHarness();
  try {
    const builder = Agent.builder()
      .transport(new WebSocketTransport({ url: harness.url, apiKey: "not-the-key", WebSocket: DenoWebSocket }))
      .confirmRunCommand();
    const error = await builder
      .build()
      .start({ timeoutMs: 15_000 })
      .then(
        () => assert.fail("start() succeeded with a wrong key"),
        (e: unknown) => e,
      );
    assert.ok(error instanceof SdkError, `not an SdkError: ${error}`);
    assert.equal(error.code, ErrorCode.PermissionDenied, error.message);
  } finally {
    await harness.stop();
  }
});

Deno.test("a harness that is gone is Unavailable", async () => {
  const harness = await startListeningHarness();
  await harness.stop();
  const error = await Agent.builder()
    .transport(new WebSocketTransport({ url: harness.url, apiKey: harness.apiKey, WebSocket: DenoWebSocket }))
    .confirmRunCommand()
    .build()
    .start({ timeoutMs: 15_000 })
    .then(
      () => assert.fail("start() succeeded without a harness"),
      (e: unknown) => e,
    );
  assert.ok(error instanceof SdkError);
  assert.equal(error.code, ErrorCode.Unavailable, error.message);
});

Deno.test("@antigravity-ts/node refuses to load outside Node, saying what to use instead", async () => {
  const error = await import("@antigravity-ts/node").then(
    () => assert.fail("imported"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof Error);
  assert.match(error.message, /only runs on Node\.js/);
  assert.match(error.message, /WebSocketTransport/);
});

Deno.test("the Deno example streams a turn from the command line", async () => {
  const harness = await startListeningHarness();
  try {
    const example = new URL("../../docs/examples/deno/chat.ts", import.meta.url);
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-check", "--allow-net", "--allow-env", "--allow-read", example.pathname, "Hello", "example"],
      env: { ANTIGRAVITY_HARNESS_URL: harness.url, ANTIGRAVITY_API_KEY: harness.apiKey, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, `exit ${output.code}\n${stdout}\n${stderr}`);
    assert.match(stdout, /\[tool deno_info/);
    assert.match(stdout, /tokens: \d+ total/);
  } finally {
    await harness.stop();
  }
});
