// Deno consumer, run with --allow-net and --allow-read only (no --allow-env): the installed
// @antigravity-ts/sdk (node_modules) with its default WebSocket (Deno's own, never `ws`), against
// a listening harness; the key travels in the upgrade's header.
//   deno run --allow-net=127.0.0.1 --allow-read=. deno/chat.ts ws://127.0.0.1:PORT/ KEY_FILE
import { Agent, WebSocketTransport } from "@antigravity-ts/sdk";

const [url, keyFile] = Deno.args;
if (url === undefined || keyFile === undefined) throw new Error("usage: chat.ts <harness url> <key file>");
const apiKey = (await Deno.readTextFile(keyFile)).trim();
const agent = await Agent.builder()
  .transport(new WebSocketTransport({ url, apiKey }))
  .confirmRunCommand()
  .build()
  .start({ timeoutMs: 15_000 });
try {
  const response = await agent.chatToCompletion("hello from Deno", { timeoutMs: 30_000 });
  console.log(JSON.stringify({ answer: response.text, deno: Deno.version.deno }));
} finally {
  await agent.stop();
}
