import { ErrorCode, SdkError } from "../errors.js";
import type { Channel } from "../transport/transport.js";
import type { MessageStream } from "./recording-stream.js";
import { replayTransport, type ReplayOptions } from "./replay-transport.js";
import { parseTrace, type Trace } from "./trace-format.js";

/** Plays the agent's side of a recorded message-stream trace; see {@link replayStream}. */
export interface ReplayStream {
  /** The trace being replayed. */
  readonly trace: Trace;
  /** The first mismatch, once one happened (also what the client's readable failed with). */
  readonly mismatch: SdkError | undefined;
  /** The trace's next connection as a message stream (one per session). Pass it unbound. */
  readonly open: <M>() => Promise<MessageStream<M>>;
  /** Throws the first mismatch or what of the trace was not played; returns when all was. */
  verify(): void;
}

/**
 * Plays the agent's side of a trace `streamRecorder` wrote (an ACP session) with no agent
 * process: each `open()` replays the trace's next connection, answering when the client writes
 * what the trace says it wrote. Matching, pacing and the diff of the first message that differs
 * are {@link replayTransport}'s (`match: "strict" | "lenient"`, `ignore`, `speed`).
 *
 * @example
 * const replay = replayStream(traceText, { ignore: ["params.cwd"] });
 * await using agent = await Agent.builder().connection(acpAgent({ stream: replay.open, cwd })).allowAll().build().start();
 * expect((await agent.chatToCompletion("hello")).text).toBe("Hello!");
 * await agent.stop();
 * replay.verify();
 */
export function replayStream(trace: string | Trace, options: ReplayOptions = {}): ReplayStream {
  const parsed = typeof trace === "string" ? parseTrace(trace) : trace;
  const { wire } = parsed.header;
  if (wire === "localharness" || wire === "interactions")
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `replayStream plays message-stream traces (acp); this trace's wire is ${wire}: use ${wire === "localharness" ? "replayTransport" : "replayFetch"}`,
    );
  const replay = replayTransport(parsed, options);
  return {
    trace: parsed,
    get mismatch() {
      return replay.mismatch;
    },
    open: async <M>() => channelStream<M>(await replay.connect()),
    verify: () => replay.verify(),
  };
}

/** A replayed channel as message streams: each message written is a frame sent, each frame read a message. */
function channelStream<M>(channel: Channel): MessageStream<M> {
  const frames = channel.frames()[Symbol.asyncIterator]();
  return {
    writable: new WritableStream<M>({
      write: (message) => channel.send(JSON.stringify(message)),
      close: () => channel.close(),
      abort: () => channel.close(),
    }),
    readable: new ReadableStream<M>({
      pull: async (controller) => {
        const next = await frames.next();
        if (next.done === true) controller.close();
        else controller.enqueue(JSON.parse(next.value) as M);
      },
      cancel: () => channel.close(),
    }),
  };
}
