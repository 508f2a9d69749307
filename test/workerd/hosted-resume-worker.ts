// A Worker that resumes a hosted turn another runtime paused (docs/hosted.md "Pause and resume"):
// POST a continuation, get the rest of the turn. The agent is built as the one that paused
// (test/node/hosted/fixtures/pay-agent.ts): the same tools, policies and secret; nothing else of
// it reaches this isolate. hosted-resume.test.ts pauses in Node and resumes here, in workerd.
import { Agent, SdkError, allowAll, defineTool, deferToUser, type Continuation } from "@antigravity-ts/sdk";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";

interface Env {
  GEMINI_API_KEY: string;
  HOSTED_BASE_URL: string;
  CONTINUATION_SECRET: string;
}

const ran: { name: string; args: unknown }[] = [];

const lookup = defineTool({
  name: "lookup",
  description: "Looks an item up",
  parameters: { type: "object", properties: { item: { type: "string" } }, required: ["item"] } as const,
  call: (args) => {
    ran.push({ name: "lookup", args });
    return { price: 12 };
  },
});
const pay = defineTool({
  name: "pay",
  description: "Pays an amount",
  parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] } as const,
  call: (args) => {
    ran.push({ name: "pay", args });
    return { receipt: `R-${args.amount}`, userAgent: navigator.userAgent };
  },
});

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const continuation = (await request.json()) as Continuation;
    const agent = Agent.builder()
      .connection(hostedAgent({ apiKey: env.GEMINI_API_KEY, baseUrl: env.HOSTED_BASE_URL }))
      .tool(lookup, pay)
      .policies(deferToUser("pay"), allowAll())
      .continuationSecret(env.CONTINUATION_SECRET)
      .build();
    const toolCallId = continuation.payload.pendingToolCalls[continuation.payload.awaitingIndex]?.id ?? "";
    ran.length = 0;
    try {
      const { agent: resumed, stream } = await agent.resume(continuation, { toolCallId, approved: true });
      const final = await stream.final();
      await resumed.stop();
      return Response.json({ text: final.text, ran });
    } catch (error) {
      const e = SdkError.from(error);
      return Response.json({ ran, error: { code: e.code, details: e.details } });
    }
  },
};
