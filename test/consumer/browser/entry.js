// A browser app's entry: bundled by the suite with esbuild (platform browser) from the installed package.
import { Agent, WebSocketTransport } from "@antigravity-ts/sdk";

export async function ask(url, prompt) {
  const agent = await Agent.builder().transport(new WebSocketTransport({ url })).confirmRunCommand().build().start();
  try {
    return (await agent.chatToCompletion(prompt)).text;
  } finally {
    await agent.stop();
  }
}
