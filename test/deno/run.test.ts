// The core's run() under Deno: the built SDK against the built reference harness in a real child
// process, over Deno's own WebSocket. Deno.test's sanitizers fail a test that leaves an op or a
// resource (a socket, a timer) open: that is the leak check.
import assert from "node:assert/strict";
import { ErrorCode, SdkError, WebSocketTransport, readOnly, run, type ChatEvent } from "@antigravity-ts/sdk";
import { DenoWebSocket } from "../../docs/examples/deno/deno-websocket.ts";
import { startListeningHarness } from "./listening-harness.ts";

Deno.test("run() starts, streams one turn's events, answers final() and stops, leaving nothing open", async () => {
  const harness = await startListeningHarness();
  try {
    const result = run("Hello from Deno", {
      transport: new WebSocketTransport({ url: harness.url, apiKey: harness.apiKey, WebSocket: DenoWebSocket }),
      policies: [readOnly()],
      timeoutMs: 30_000,
    });
    const events: ChatEvent[] = [];
    for await (const event of result) events.push(event);
    assert.ok(events.some((e) => e.type === "thought"));
    assert.equal(events.at(-1)?.type, "turnComplete");
    const response = await result.final();
    assert.ok(response.text.includes("scripted demo model"), response.text);
    assert.ok(response.usageMetadata.totalTokenCount > 0);
  } finally {
    await harness.stop();
  }
});

Deno.test("run() without a policy is refused before anything opens", async () => {
  const result = run("Hello", {
    transport: new WebSocketTransport({ url: "ws://127.0.0.1:9/" }),
  } as unknown as Parameters<typeof run>[1]);
  const error = await result.final().then(
    () => assert.fail("ran without a policy"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof SdkError);
  assert.equal(error.code, ErrorCode.InvalidArgument);
});
