import { createIndexedDbConversationStore } from "@antigravity-ts/sdk/storage";

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
