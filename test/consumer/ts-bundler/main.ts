// Typechecked (never run) against the installed declarations, as a bundled browser app sees them.
import {
  Agent,
  SdkError,
  WebSocketTransport,
  defineTool,
  type ChatResponse,
  type StreamChunk,
} from "@antigravity-ts/sdk";
import { decodeOutputEvent } from "@antigravity-ts/sdk/wire";

const clock = defineTool({
  name: "clock",
  description: "The page's local time",
  call: () => ({ now: new Date().toISOString() }),
});

export async function ask(url: string, prompt: string, onChunk: (chunk: StreamChunk) => void): Promise<ChatResponse> {
  const agent = await Agent.builder()
    .transport(new WebSocketTransport({ url }))
    .tool(clock)
    .confirmRunCommand()
    .build()
    .start();
  try {
    for await (const chunk of agent.chat(prompt)) onChunk(chunk);
    return await agent.chatToCompletion("and once more");
  } catch (error) {
    throw error instanceof SdkError ? new Error(`${error.code}: ${error.message}`) : error;
  } finally {
    await agent.stop();
  }
}

void decodeOutputEvent;
