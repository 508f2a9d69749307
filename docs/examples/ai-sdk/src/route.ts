// The route `useChat` posts to: a new prompt starts (or continues) the chat's agent and streams the
// turn back; the page's answer to a paused turn (addToolApprovalResponse) resumes it. A web-standard
// `(request: Request) => Promise<Response>`: mount it in a Node server (server.ts), a Worker's fetch,
// a Next.js route handler (`export const POST = chatRoute(newAgent)`), Deno.serve or Hono.
import type { Agent, ChatStream, StartedAgent } from "@antigravity-ts/sdk";
import { SdkError } from "@antigravity-ts/sdk";
import { approvalFromUIMessages } from "@antigravity-ts/sdk/continuation";
import type { UIMessage } from "ai";

/** What `DefaultChatTransport` posts: the chat's id and its messages. */
interface ChatRequest {
  id: string;
  messages: UIMessage[];
}

/** A route that keeps one started agent per chat (one conversation), made by `newAgent`. */
export function chatRoute(newAgent: () => Agent): (request: Request) => Promise<Response> {
  const chats = new Map<string, StartedAgent>();

  /** A turn that pauses stops its agent (docs/continuations.md): the resume starts a new one. */
  function track(chatId: string, agent: StartedAgent, stream: ChatStream): void {
    chats.set(chatId, agent);
    stream.final().then(
      (response) => {
        if (response.awaitingConfirmation !== undefined && chats.get(chatId) === agent) chats.delete(chatId);
      },
      () => undefined, // a failed or stopped turn leaves the agent usable
    );
  }

  return async (request) => {
    const { id, messages } = (await request.json()) as ChatRequest;
    try {
      const approval = approvalFromUIMessages(messages);
      if (approval !== undefined) {
        // The page approved or denied the paused call: resume the turn with that answer.
        const { agent, stream } = await newAgent().resume(approval.continuation, approval.decision);
        track(id, agent, stream);
        return await stream.toUIMessageStreamResponse({ resumed: approval.decision });
      }
      const agent = chats.get(id) ?? (await newAgent().start());
      const stream = agent.chat(lastUserText(messages));
      track(id, agent, stream);
      return await stream.toUIMessageStreamResponse();
    } catch (error) {
      // useChat shows a failed request's body as its error (a refused resume: replayed, gone, forged).
      console.error("chat route:", error);
      return new Response(`the agent could not answer: ${SdkError.from(error).code}`, { status: 409 });
    }
  };
}

/** The text of the last user message: the prompt. */
export function lastUserText(messages: readonly UIMessage[]): string {
  const last = messages.findLast((message) => message.role === "user");
  return last?.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n") ?? "";
}
