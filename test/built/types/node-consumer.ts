// Compiled (never run) by test/built/declarations.test.ts against the bundled declarations, the way
// a Node user's project sees them.
import {
  Agent,
  SdkError,
  WebSocketTransport,
  createHarnessGateway,
  SubprocessTransport,
  type HarnessGateway,
  type StreamChunk,
} from "@antigravity-ts/node";
import { decodeOutputEvent, type OutputEvent } from "@antigravity-ts/sdk/wire";
import { createMockConnection } from "@antigravity-ts/sdk/testing";

export async function consume(): Promise<string> {
  await using agent = await Agent.builder()
    .transport(new SubprocessTransport())
    .confirmRunCommand()
    .build()
    .start({ timeoutMs: 1000 });
  const chunks: StreamChunk[] = [];
  for await (const chunk of agent.chat("hi")) chunks.push(chunk);
  const gateway: HarnessGateway = await createHarnessGateway({
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

// @ts-expect-error build() exists only once a policy was chosen: the type-level lifecycle survives bundling.
Agent.builder().build();
