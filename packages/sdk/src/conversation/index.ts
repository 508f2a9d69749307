export { Conversation, DEFAULT_MAX_HISTORY_SIZE } from "./conversation.js";
export type { ConversationOptions } from "./conversation.js";
export { stepToChunks } from "./chunks.js";
export { computeTurnUsage } from "./usage.js";
export type { TurnUsage, TurnUsageInput } from "./usage.js";
export { CONVERSATION_SNAPSHOT_FORMAT, CONVERSATION_SNAPSHOT_VERSION, parseConversationSnapshot } from "./conversation-snapshot.js";
export type { ConversationSnapshot, ConversationSnapshotUsage } from "./conversation-snapshot.js";
export type { ConversationStore, ConversationStoreOptions, ConversationStoreWarning } from "./conversation-store.js";
