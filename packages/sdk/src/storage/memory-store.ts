import type { ConversationSnapshot } from "../conversation/conversation-snapshot.js";
import type { ConversationStore, ConversationStoreOptions } from "../conversation/conversation-store.js";
import { assertStorableConversationId, encodeSnapshot, loadOrMoveAside } from "./store-contract.js";

/** Options of {@link createMemoryConversationStore}. */
export interface MemoryConversationStoreOptions extends ConversationStoreOptions {
  /** The map to keep snapshots in (conversation id → JSON text); default a new one. Share it to share the store. */
  entries?: Map<string, unknown>;
}

/** A {@link ConversationStore} in memory, with its maps open for inspection. */
export interface MemoryConversationStore extends ConversationStore {
  /** Conversation id → stored JSON text. */
  readonly entries: Map<string, unknown>;
  /** Entries `load` found unusable, under `"<id>#<n>"` (n counts from 1). */
  readonly movedAside: Map<string, unknown>;
  delete(conversationId: string): Promise<void>;
}

/**
 * Keeps conversations in memory for the life of the process (tests, a server that reconnects
 * sessions, a cache in front of a slower store). Snapshots are stored as JSON text, so what
 * `load` returns is a fresh copy that later changes to the saved object never reach. Works in
 * every runtime.
 *
 * @example
 * const store = createMemoryConversationStore();
 * await store.save(conversation.snapshot());
 * const again = Conversation.restore(connection, (await store.load(conversation.conversationId))!);
 */
export function createMemoryConversationStore(options: MemoryConversationStoreOptions = {}): MemoryConversationStore {
  const entries = options.entries ?? new Map<string, unknown>();
  const movedAside = new Map<string, unknown>();
  return {
    entries,
    movedAside,
    async load(conversationId) {
      assertStorableConversationId(conversationId);
      return loadOrMoveAside<unknown>(
        conversationId,
        {
          where: "memory",
          read: async () =>
            entries.has(conversationId)
              ? { value: entries.get(conversationId), token: entries.get(conversationId) }
              : undefined,
          moveAside: async (token) => {
            if (!entries.has(conversationId) || entries.get(conversationId) !== token) return undefined;
            let n = 1;
            while (movedAside.has(`${conversationId}#${n}`)) n++;
            movedAside.set(`${conversationId}#${n}`, token);
            entries.delete(conversationId);
            return `memory key ${conversationId}#${n}`;
          },
        },
        options,
      );
    },
    async save(snapshot: ConversationSnapshot) {
      // Encoding is synchronous and the map write one step: atomic by construction.
      entries.set(snapshot.conversationId, encodeSnapshot(snapshot));
    },
    async delete(conversationId) {
      assertStorableConversationId(conversationId);
      entries.delete(conversationId);
    },
  };
}
