// A Worker on the hosted agent, as docs/hosted.md's quick start writes one: the built SDK's
// hostedAgent (fetch + SSE) with the key from the Worker's environment. hosted.test.ts runs it in
// workerd against the reference harness's Interactions API emulator.
import { Agent, defineTool } from "@antigravity-ts/sdk";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";

interface Env {
  GEMINI_API_KEY: string;
  HOSTED_BASE_URL: string;
}

const runtime = defineTool({
  name: "runtime",
  description: "Which runtime runs the client",
  parameters: { type: "object", properties: {} },
  call: () => ({ userAgent: navigator.userAgent }),
});

export default {
  async fetch(_request: Request, env: Env): Promise<Response> {
    const agent = await Agent.builder()
      .connection(hostedAgent({ apiKey: env.GEMINI_API_KEY, baseUrl: env.HOSTED_BASE_URL }))
      .tool(runtime)
      .allowAll()
      .build()
      .start();
    try {
      const hello = await agent.chatToCompletion("hello");
      const listed = [];
      for await (const event of agent.chat("list the files").events())
        if (event.type === "toolResult") listed.push(event.result);
      const steps = [];
      const asked = agent.chat("which runtime?");
      for await (const step of asked.steps())
        if (step.stepIndex >= 50_000 && step.status === "DONE") steps.push(step.toolCalls[0]?.args);
      const askedText = (await asked.final()).text;
      const slow = agent.chat("slow please");
      for await (const chunk of slow) if (chunk.type === "text") break;
      await slow.abort();
      const cancelled = (await slow.outcome()).error?.code;
      const again = await agent.chatToCompletion("hello");
      return Response.json({
        hello: hello.text,
        thinking: hello.thinking,
        listed,
        tool: steps,
        askedText,
        cancelled,
        again: again.text,
        turns: await agent.conversation().turnCount(),
      });
    } finally {
      await agent.stop();
    }
  },
};
