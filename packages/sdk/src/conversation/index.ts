export { Conversation, DEFAULT_MAX_HISTORY_SIZE } from "./conversation.js";
export type { ConversationOptions, HistoryOptions } from "./conversation.js";
export { ChatStream } from "./chat-stream.js";
export type { ChatResponse, ModelCallText } from "./chat-response.js";
export type {
  AwaitingConfirmationEvent,
  ChatEvent,
  PermissionRequestEvent,
  ToolErrorEvent,
  ToolResultEvent,
  TurnCompleteEvent,
  UsageEvent,
} from "./chat-events.js";
export { serverSentEvents } from "./server-sent-events.js";
export { stepToChunks } from "./chunks.js";
export { addUsage, computeTurnUsage, scaleUsage, sumUsage } from "../usage.js";
export type { TurnUsage, TurnUsageInput } from "../usage.js";
export {
  CONVERSATION_SNAPSHOT_FORMAT,
  CONVERSATION_SNAPSHOT_VERSION,
  parseConversationSnapshot,
} from "./conversation-snapshot.js";
export type { ConversationSnapshot, ConversationSnapshotUsage } from "./conversation-snapshot.js";
export type { ConversationStore, ConversationStoreOptions, ConversationStoreWarning } from "./conversation-store.js";
export type {
  UIFinishReason,
  UIMessageChunk,
  UIMessageMetadata,
  UIMessageStreamOptions,
  UIMessageStreamResponseOptions,
} from "./ui-message-stream.js";
