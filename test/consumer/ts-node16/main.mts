// Typechecked (never run) against the installed declarations, as a Node ESM project sees them.
import {
  Agent,
  SdkError,
  SubprocessTransport,
  WebSocketTransport,
  createHarnessGateway,
  defineTool,
  type StreamChunk,
} from "@antigravity-ts/node";
import { decodeOutputEvent, type OutputEvent } from "@antigravity-ts/sdk/wire";
import { createMockConnection } from "@antigravity-ts/sdk/testing";

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
});

export async function consume(): Promise<string> {
  const agent = await Agent.builder()
    .transport(new SubprocessTransport())
    .tool(add)
    .confirmRunCommand()
    .build()
    .start({ timeoutMs: 1000 });
  const chunks: StreamChunk[] = [];
  for await (const chunk of agent.chat("hi")) chunks.push(chunk);
  await agent.stop();
  const gateway = await createHarnessGateway({
    target: { url: "ws://127.0.0.1:1/", apiKey: "k" },
    allowedOrigins: [],
    token: "t",
    session: { workspaces: ["/srv/agent"], deny: ["run_command"] },
  });
  await gateway.close();
  const event: OutputEvent = decodeOutputEvent("{}");
  void event;
  void createMockConnection;
  void new WebSocketTransport({ url: "ws://127.0.0.1:1/" });
  return chunks.length > 0 ? "ok" : SdkError.from("none").code;
}

// @ts-expect-error build() exists only once a policy was chosen.
Agent.builder().build();
