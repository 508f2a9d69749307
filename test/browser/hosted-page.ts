// A page on the hosted agent without a key: hostedAgent({ baseUrl }) at its server's
// createInteractionsRoute, which adds the key (hosted.spec.ts). Bundled from the built SDK.
import { Agent, defineTool } from "@antigravity-ts/sdk";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";

const runtime = defineTool({
  name: "runtime",
  description: "Which runtime runs the client",
  parameters: { type: "object", properties: {} },
  call: () => ({ userAgent: navigator.userAgent }),
});

async function run(): Promise<Record<string, unknown>> {
  const agent = await Agent.builder()
    .connection(hostedAgent({ baseUrl: `${location.origin}/gemini/` }))
    .tool(runtime)
    .allowAll()
    .build()
    .start();
  try {
    const hello = await agent.chatToCompletion("hello");
    const listed: unknown[] = [];
    for await (const event of agent.chat("list the files").events())
      if (event.type === "toolResult") listed.push(event.result);
    const tool: unknown[] = [];
    const asked = agent.chat("which runtime?");
    for await (const step of asked.steps())
      if (step.stepIndex >= 50_000 && step.status === "DONE") tool.push(step.toolCalls[0]?.args);
    const askedText = (await asked.final()).text;
    const slow = agent.chat("slow please");
    for await (const chunk of slow) if (chunk.type === "text") break;
    await slow.abort();
    const cancelled = (await slow.outcome()).error?.code;
    const again = await agent.chatToCompletion("hello");
    return {
      hello: hello.text,
      thinking: hello.thinking,
      listed,
      tool,
      askedText,
      cancelled,
      again: again.text,
      turns: await agent.conversation().turnCount(),
    };
  } finally {
    await agent.stop();
  }
}

(window as unknown as { hostedTest: unknown }).hostedTest = { run };
document.body.dataset["ready"] = "true";
