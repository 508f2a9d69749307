/**
 * One agent turn from Deno, streamed to the terminal, against a harness that is already listening
 * (for example `ANTIGRAVITY_API_KEY=dev-key npx antigravity-harness --listen 127.0.0.1:8765`).
 *
 *   ANTIGRAVITY_HARNESS_URL=ws://127.0.0.1:8765/ ANTIGRAVITY_API_KEY=dev-key \
 *     deno run --allow-net --allow-env docs/examples/deno/chat.ts "What is in my workspace?"
 *
 * Outside this repository, import from "npm:@antigravity-ts/sdk".
 */
import { Agent, ErrorCode, SdkError, WebSocketTransport, defineTool } from "@antigravity-ts/sdk";
import { DenoWebSocket } from "./deno-websocket.ts";

/** A client tool that runs in this Deno process. */
const denoInfo = defineTool({
  name: "deno_info",
  description: "Tells which Deno version and OS this agent's client runs on.",
  parameters: { type: "object", properties: {} },
  call: () => ({ deno: Deno.version.deno, os: Deno.build.os }),
});

const url = Deno.env.get("ANTIGRAVITY_HARNESS_URL") ?? "ws://127.0.0.1:8000/";
const apiKey = Deno.env.get("ANTIGRAVITY_API_KEY");
const prompt = Deno.args.join(" ").trim() || "Hello from Deno!";
if (apiKey === undefined) {
  console.error("set ANTIGRAVITY_API_KEY to the key the harness expects");
  Deno.exit(2);
}

const encoder = new TextEncoder();
const print = (text: string) => Deno.stdout.writeSync(encoder.encode(text));

try {
  await using agent = await Agent.builder()
    .transport(new WebSocketTransport({ url, apiKey, WebSocket: DenoWebSocket }))
    .tool(denoInfo)
    .confirmRunCommand() // no shell commands from this example
    .build()
    .start({ timeoutMs: 15_000 });
  for await (const chunk of agent.chat(prompt, { timeoutMs: 60_000 })) {
    if (chunk.type === "thought") print(`\x1b[2m${chunk.text}\x1b[0m`);
    else if (chunk.type === "text") print(chunk.text);
    else print(`\n[tool ${chunk.toolCall.name} ${JSON.stringify(chunk.toolCall.args)}]\n`);
  }
  const usage = await agent.conversation().totalUsage();
  print(
    `\n\ntokens: ${usage.totalTokenCount} total (${usage.promptTokenCount} in, ${usage.candidatesTokenCount} out)\n`,
  );
} catch (error) {
  const sdkError = SdkError.from(error);
  console.error(`\n${sdkError.code}: ${sdkError.message}`);
  Deno.exit(sdkError.code === ErrorCode.PermissionDenied ? 3 : 1);
}
