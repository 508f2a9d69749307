export { Conversation, DEFAULT_MAX_HISTORY_SIZE } from "./conversation.js";
export type { ConversationOptions } from "./conversation.js";
export { stepToChunks } from "./chunks.js";
export { computeTurnUsage } from "./usage.js";
export type { TurnUsage, TurnUsageInput } from "./usage.js";
