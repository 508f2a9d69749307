export { StreamingSession, type StreamingSessionOptions } from "./streaming-session.js";
export {
  MID_TURN_SEMANTICS,
  sessionEventToJson,
  type MessageReceipt,
  type MidTurnSemantics,
  type SessionErrorEvent,
  type SessionEvent,
  type SessionInitEvent,
  type StreamingSessionCapabilities,
  type TurnResultEvent,
} from "./session-events.js";
