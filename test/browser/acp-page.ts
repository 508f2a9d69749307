// A page driving an ACP agent that runs on its server: the core SDK's acpAgent over
// acpWebSocketStream, through createAcpBridge of @antigravity-ts/node (acp.spec.ts). The page holds
// a bridge token, never the agent's key, and names no command: the server chose them.
import { Agent, allowAll, askUser } from "@antigravity-ts/sdk";
import { acpAgent, acpWebSocketStream } from "@antigravity-ts/sdk/acp";

/** The bridge's URL and token come from the page's own URL (`?bridge=…&token=…`), as a server would hand them out. */
function bridge(): { url: string; token: string } {
  const query = new URLSearchParams(location.search);
  return { url: query.get("bridge") ?? "", token: query.get("token") ?? "" };
}

/** Starts an agent on the bridge; `authMethodId` when the server's agent needs one (its key stays on the server). */
async function start(authMethodId?: string, asked: string[] = []) {
  const { url, token } = bridge();
  return Agent.builder()
    .connection(
      acpAgent({
        stream: () => acpWebSocketStream(url, { protocols: [`antigravity.token.${token}`] }),
        // The page cannot know the server's directories: the bridge replaces this with its own.
        cwd: "/",
        ...(authMethodId === undefined ? {} : { authMethodId }),
      }),
    )
    .policies([
      askUser("run_command", (call) => {
        asked.push(call.name);
        return true;
      }),
      allowAll(),
    ])
    .build()
    .start();
}

/** A streamed text turn, a tool call the page's policy allows, a cancel, another turn. The agent stays open: the spec closes the page. */
async function harnessTurns(): Promise<Record<string, unknown>> {
  const asked: string[] = [];
  const agent = await start(undefined, asked);
  const chunks: string[] = [];
  const hello = agent.chat("hello");
  for await (const chunk of hello) if (chunk.type === "text") chunks.push(chunk.text);
  const ran = await agent.chatToCompletion("run it");
  const tools = ran.steps.flatMap((step) => step.toolCalls.map((call) => call.name));
  const slow = agent.chat("slow please");
  for await (const chunk of slow) if (chunk.type === "text") break;
  await slow.abort();
  const cancelled = (await slow.outcome()).error?.code;
  const again = await agent.chatToCompletion("hello");
  return {
    chunks,
    text: (await hello.final()).text,
    asked,
    tools,
    ranText: ran.text,
    cancelled,
    again: again.text,
    turns: await agent.conversation().turnCount(),
  };
}

/** One text turn; the agent stays open. */
async function oneTurn(authMethodId?: string): Promise<string> {
  const agent = await start(authMethodId);
  return (await agent.chatToCompletion("hello")).text;
}

/** What a page gets when it asks for what the bridge refuses: its own error, typed. */
async function refused(): Promise<{ code: string; message: string }> {
  const { url, token } = bridge();
  try {
    await Agent.builder()
      .connection(
        acpAgent({
          stream: () => acpWebSocketStream(url, { protocols: [`antigravity.token.${token}`] }),
          cwd: "/",
          authMethodId: "oauth-personal",
        }),
      )
      .allowAll()
      .build()
      .start();
    return { code: "none", message: "started" };
  } catch (error) {
    return { code: String((error as { code?: unknown }).code), message: String((error as Error).message) };
  }
}

(window as unknown as { acpTest: unknown }).acpTest = { harnessTurns, oneTurn, refused };
document.body.dataset["ready"] = "true";
