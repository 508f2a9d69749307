export { Transcript } from "./transcript.js";
export type { ChatEventSource, TranscriptOptions } from "./transcript.js";
export type {
  AssistantMessage,
  TextBlock,
  ThinkingBlock,
  ToolCard,
  ToolCardState,
  TranscriptBlock,
  TranscriptMessage,
  TranscriptState,
  TurnStatus,
  UserMessage,
} from "./transcript-types.js";
