import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { parseTrace, type Trace, type TraceSink } from "@antigravity-ts/sdk/replay";

/** Options of {@link fileTraceSink}. */
export interface FileTraceSinkOptions {
  /** File mode of a new file. Default `0o600`: a trace holds prompts and answers even with its secrets redacted. */
  mode?: number;
}

/**
 * A {@link TraceSink} that streams a trace to `path` (created or truncated), line by line as the
 * session runs; each write resolves once the file took it, and `close()` once it is complete.
 *
 * @example
 * const transport = recordingTransport(new SubprocessTransport(), fileTraceSink("session.ndjson"));
 * // ... run a session, then:
 * await transport.close();
 */
export function fileTraceSink(path: string, options: FileTraceSinkOptions = {}): TraceSink {
  const stream = createWriteStream(path, { flags: "w", mode: options.mode ?? 0o600, encoding: "utf8" });
  let failure: Error | undefined;
  stream.on("error", (error) => {
    failure ??= error;
  });
  const failed = (error: Error): SdkError =>
    new SdkError(ErrorCode.Unavailable, `cannot write the trace ${path}: ${error.message}`, { cause: error });
  return {
    write: (line) =>
      new Promise<void>((resolve, reject) => {
        if (failure !== undefined) return reject(failed(failure));
        stream.write(line, (error) => (error ? reject(failed(error)) : resolve()));
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (failure !== undefined) return reject(failed(failure));
        stream.end(() => (failure !== undefined ? reject(failed(failure)) : resolve()));
      }),
  };
}

/**
 * Reads and parses a trace file ({@link parseTrace}): pass the result to `replayTransport`.
 *
 * @example
 * const replay = replayTransport(await readTraceFile("test/traces/chat.ndjson"));
 */
export async function readTraceFile(path: string): Promise<Trace> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new SdkError(ErrorCode.NotFound, `cannot read the trace ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseTrace(text);
}
