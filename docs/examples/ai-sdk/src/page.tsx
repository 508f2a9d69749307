// The page: the AI SDK's own useChat and DefaultChatTransport, unchanged, talking to the route.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai";
import { useState } from "react";
import { createRoot } from "react-dom/client";

type Part = UIMessage["parts"][number];
type Answer = (answer: { id: string; approved: boolean }) => void;

function Chat() {
  const [input, setInput] = useState("");
  const { messages, sendMessage, addToolApprovalResponse, stop, status, error } = useChat({
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    // Post the messages again once the page answered every approval: the route resumes the turn.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const busy = status === "submitted" || status === "streaming";
  return (
    <main data-status={status}>
      {messages.map((message) => (
        <article key={message.id} className={message.role}>
          {message.parts.map((part, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts only grow at the end
            <MessagePart key={i} part={part} answer={addToolApprovalResponse} />
          ))}
          {message.role === "assistant" && <Usage metadata={message.metadata} />}
        </article>
      ))}
      {error && (
        <p id="error" role="alert">
          {error.message}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim() === "") return;
          void sendMessage({ text: input });
          setInput("");
        }}
      >
        <input id="prompt" aria-label="Prompt" value={input} onChange={(event) => setInput(event.target.value)} />
        <button type="submit" disabled={busy}>
          Send
        </button>
        {busy && (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        )}
      </form>
    </main>
  );
}

function MessagePart({ part, answer }: { part: Part; answer: Answer }) {
  if (part.type === "text") return <p className="text">{part.text}</p>;
  if (part.type === "reasoning") return <p className="reasoning">{part.text}</p>;
  if (part.type !== "dynamic-tool") return null; // step-start and the rest: nothing to draw
  return (
    <section className="tool" data-tool={part.toolName} data-state={part.state}>
      <strong>{part.toolName}</strong> <code>{JSON.stringify(part.input)}</code>
      {part.state === "approval-requested" && (
        <span>
          {" "}
          <button type="button" onClick={() => answer({ id: part.approval.id, approved: true })}>
            Approve
          </button>
          <button type="button" onClick={() => answer({ id: part.approval.id, approved: false })}>
            Deny
          </button>
        </span>
      )}
      {part.state === "output-available" && <pre className="output">{JSON.stringify(part.output)}</pre>}
      {part.state === "output-error" && <p className="output">Failed: {part.errorText}</p>}
      {part.state === "output-denied" && <p className="output">Denied</p>}
    </section>
  );
}

function Usage({ metadata }: { metadata: unknown }) {
  const usage = (metadata as { usage?: { totalTokenCount: number } } | undefined)?.usage;
  return usage ? <p className="usage">{usage.totalTokenCount} tokens</p> : null;
}

createRoot(document.getElementById("root") as HTMLElement).render(<Chat />);
