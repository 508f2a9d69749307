// The same route in a Cloudflare Worker. A Worker keeps nothing between requests (a WebSocket
// opened by one request cannot serve the next), so each request starts its own agent and stops
// it when the turn is over; the page's answer to a paused turn resumes it in whichever request
// brings it. (A chat's later prompts start new conversations here; keep the chat's agent in a
// Durable Object to share one.) The Workers module format needs the default export.
import {
  Agent,
  SdkError,
  WebSocketTransport,
  allowAll,
  defineTool,
  deferToUser,
  fetchUpgradeWebSocket,
} from "@antigravity-ts/sdk";
import { approvalFromUIMessages } from "@antigravity-ts/sdk/continuation";
import type { UIMessage } from "ai";
import { PAGE } from "./page-html.js";
import { lastUserText } from "./route.js";

interface Env {
  HARNESS_URL: string;
  HARNESS_API_KEY: string;
  CONTINUATION_SECRET: string;
  /** The bundle of page.tsx. */
  PAGE_SCRIPT: string;
}

/** Workers' `ExecutionContext`, as far as this Worker uses it. */
interface Context {
  waitUntil(promise: Promise<unknown>): void;
}

const getWeather = defineTool({
  name: "get_weather",
  description: "The weather of a city",
  call: ({ city }: { city: string }) => ({ city, sky: "sunny", celsius: 21 }),
});

function newAgent(env: Env): Agent {
  return Agent.builder()
    .transport(
      new WebSocketTransport({ url: env.HARNESS_URL, apiKey: env.HARNESS_API_KEY, connect: fetchUpgradeWebSocket }),
    )
    .tool(getWeather)
    .policies(deferToUser("run_command"), allowAll())
    .continuationSecret(env.CONTINUATION_SECRET)
    .build();
}

async function chat(request: Request, env: Env, context: Context): Promise<Response> {
  const { messages } = (await request.json()) as { messages: UIMessage[] };
  try {
    const approval = approvalFromUIMessages(messages);
    if (approval !== undefined) {
      const { agent, stream } = await newAgent(env).resume(approval.continuation, approval.decision);
      context.waitUntil(stream.outcome().then(() => agent.stop()));
      return await stream.toUIMessageStreamResponse({ resumed: approval.decision });
    }
    const agent = await newAgent(env).start();
    const stream = agent.chat(lastUserText(messages));
    context.waitUntil(stream.outcome().then(() => agent.stop()));
    return await stream.toUIMessageStreamResponse();
  } catch (error) {
    return new Response(`the agent could not answer: ${SdkError.from(error).code}`, { status: 409 });
  }
}

export default {
  fetch(request: Request, env: Env, context: Context): Promise<Response> | Response {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && pathname === "/")
      return new Response(PAGE, { headers: { "content-type": "text/html" } });
    if (request.method === "GET" && pathname === "/page.js")
      return new Response(env.PAGE_SCRIPT, { headers: { "content-type": "text/javascript" } });
    if (request.method === "POST" && pathname === "/api/chat") return chat(request, env, context);
    return new Response("not found", { status: 404 });
  },
};
