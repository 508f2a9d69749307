export { createMemoryConversationStore } from "./memory-store.js";
export type { MemoryConversationStore, MemoryConversationStoreOptions } from "./memory-store.js";
export { createIndexedDbConversationStore } from "./indexeddb-store.js";
export type {
  IndexedDbConversationStore,
  IndexedDbConversationStoreOptions,
  IndexedDbFactoryLike,
} from "./indexeddb-store.js";
export { createDurableObjectConversationStore } from "./durable-object-store.js";
export type {
  DurableObjectConversationStore,
  DurableObjectConversationStoreOptions,
  DurableObjectKeyValue,
  DurableObjectStorageLike,
} from "./durable-object-store.js";
export {
  KeyedSerializer,
  MAX_STORED_CONVERSATION_ID_LENGTH,
  assertStorableConversationId,
  decodeSnapshot,
  encodeSnapshot,
  loadOrMoveAside,
  reportWarning,
  unusableWarning,
} from "./store-contract.js";
export type { StoredEntryAccess } from "./store-contract.js";
