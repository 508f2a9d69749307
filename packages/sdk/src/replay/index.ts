/**
 * Tests that replay the wire (docs/testing.md): {@link recordingTransport} writes a trace of a
 * session (NDJSON, versioned, secrets redacted; docs/trace.schema.json), {@link replayTransport}
 * plays the harness's side of one back and fails with a diff at the first client frame that
 * differs, and {@link compareTraces} says what changed between two recordings (the drift check).
 * The same for an ACP agent's message streams ({@link streamRecorder}, {@link replayStream}) and
 * for the hosted agent's HTTP ({@link recordingFetch}, {@link replayFetch}).
 * Universal: no `node:` import; Node's file sink is `@antigravity-ts/node/replay`.
 * @module
 */
export { recordingTransport, type RecordingOptions, type RecordingTransport } from "./recording-transport.js";
export type { TraceRecording } from "./trace-writer.js";
export { ACP_ERA, streamRecorder, type MessageStream, type StreamRecorder } from "./recording-stream.js";
export { replayStream, type ReplayStream } from "./replay-stream.js";
export { INTERACTIONS_ERA, recordingFetch, type RecordingFetch } from "./recording-fetch.js";
export { replayFetch, type ReplayFetch } from "./replay-fetch.js";
export { replayTransport, type ReplayOptions, type ReplaySpeed, type ReplayTransport } from "./replay-transport.js";
export {
  compareTraces,
  formatTraceDifferences,
  type CompareTracesOptions,
  type TraceDifference,
} from "./compare-traces.js";
export { createMemoryTraceSink, type MemoryTraceSink, type TraceSink } from "./trace-sink.js";
export type { RedactionContext, RedactionOptions } from "./redaction.js";
export type { FrameDifference, MatchMode } from "./frame-match.js";
export {
  LOCALHARNESS_ERA,
  REDACTED,
  TRACE_FORMAT,
  TRACE_VERSION,
  parseTrace,
  type JsonValue,
  type LocatedEvent,
  type Trace,
  type TraceCloseEvent,
  type TraceConnectErrorEvent,
  type TraceError,
  type TraceEvent,
  type TraceFrameEvent,
  type TraceHandshakeEvent,
  type TraceHeader,
  type TraceOpenEvent,
  type TraceSide,
} from "./trace-format.js";
