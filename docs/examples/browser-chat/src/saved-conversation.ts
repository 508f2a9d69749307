import { StepSource, type Step } from "@antigravity-ts/sdk";
import { createIndexedDbConversationStore } from "@antigravity-ts/sdk/storage";
import { AgentTurnView } from "./transcript.js";

/** Where this page keeps its conversations between reloads (seed 002: load never fails, saves are atomic). */
export const conversationStore = createIndexedDbConversationStore({ databaseName: "browser-chat" });

const ID_KEY = "browser-chat.conversationId";

/**
 * This tab's conversation id, kept in `sessionStorage`: a reload continues the conversation, a
 * new tab starts its own (one harness session per connection).
 */
export function tabConversationId(): string {
  let id = sessionStorage.getItem(ID_KEY);
  if (id === null) {
    id = crypto.randomUUID();
    sessionStorage.setItem(ID_KEY, id);
  }
  return id;
}

/**
 * Draws the turns of a restored history, each as the live view would have: the prompt (the
 * turn's SOURCE_USER step), then its steps. History holds each step's final state, so its whole
 * text is passed as the delta the chunk rules read.
 */
export function renderRestoredTurns(list: HTMLElement, history: readonly Step[], turnStarts: readonly number[], clientTools: ReadonlySet<string>): void {
  turnStarts.forEach((start, i) => {
    const steps = history.slice(start, turnStarts[i + 1] ?? history.length);
    const prompt = steps.find((step) => step.source === StepSource.User);
    const view = new AgentTurnView(list, prompt?.content ?? "", clientTools);
    for (const step of steps) if (step !== prompt) view.render({ ...step, contentDelta: step.content, thinkingDelta: step.thinking });
  });
}
