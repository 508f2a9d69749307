/**
 * Where a recorder writes its lines (each ends with `\n`), in order. `write` may return a promise;
 * the recorder waits for it before the next write. Node's file sink is `fileTraceSink` of
 * `@antigravity-ts/node/replay`; anywhere else pass a `WritableStream<string>`.
 */
export interface TraceSink {
  write(line: string): void | Promise<void>;
  /** Called once by the recorder's `close()`, after the last write. */
  close?(): void | Promise<void>;
}

/** A sink that keeps the lines in memory: for tests, and for comparing a fresh recording (the drift check). */
export interface MemoryTraceSink extends TraceSink {
  /** The lines written so far, each with its newline. */
  readonly lines: readonly string[];
  /** Everything written so far: the trace's NDJSON text. */
  text(): string;
}

/**
 * A {@link TraceSink} that keeps the trace in memory.
 *
 * @example
 * const sink = createMemoryTraceSink();
 * const transport = recordingTransport(inner, sink);
 * // ... run a session, then: await transport.close(); parseTrace(sink.text());
 */
export function createMemoryTraceSink(): MemoryTraceSink {
  const lines: string[] = [];
  return {
    lines,
    write: (line) => void lines.push(line),
    text: () => lines.join(""),
  };
}

/** The sink behind a recorder's argument: a `TraceSink` as is, a `WritableStream` through one writer. */
export function toTraceSink(sink: TraceSink | WritableStream<string>): TraceSink {
  if (!isWritableStream(sink)) return sink;
  const writer = sink.getWriter();
  return {
    write: (line) => writer.write(line),
    close: async () => {
      await writer.close();
    },
  };
}

function isWritableStream(sink: TraceSink | WritableStream<string>): sink is WritableStream<string> {
  return typeof (sink as Partial<WritableStream<string>>).getWriter === "function";
}
