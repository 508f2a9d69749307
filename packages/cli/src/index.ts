/**
 * The library half of `@antigravity-ts/cli`: {@link spawnStreamingSession} starts an agent as a
 * child process speaking the CLI's NDJSON line format (docs/ndjson.md), by default this package's
 * own `antigravity` bin, and drives it as a streaming session.
 * @module
 */
export {
  NdjsonStreamingSession,
  spawnStreamingSession,
  type ChildExitStatus,
  type ConfirmationRequestEvent,
  type NdjsonSessionEvent,
  type SpawnStreamingSessionOptions,
} from "./session/ndjson-streaming-session.js";
