/**
 * Trace recording and replay for Node (docs/testing.md): everything of `@antigravity-ts/sdk/replay`,
 * plus {@link fileTraceSink}, which streams a trace to a file, and {@link readTraceFile}.
 * @module
 */
export * from "@antigravity-ts/sdk/replay";
export { fileTraceSink, readTraceFile, type FileTraceSinkOptions } from "./file-trace-sink.js";
