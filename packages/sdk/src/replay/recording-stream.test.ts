import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { streamRecorder, type MessageStream } from "./recording-stream.js";
import { replayStream } from "./replay-stream.js";
import { createMemoryTraceSink } from "./trace-sink.js";
import { parseTrace } from "./trace-format.js";

// streamRecorder and replayStream on message streams made here (the ACP agents they are made for
// run in test/node/replay/acp-replay.test.ts): what each side of a stream did, how it ended, and
// two sessions as two connections.

/** A peer that answers each request with its id, and fails after `failAfter` answers when given. */
function echoPeer(failAfter?: number): MessageStream<{ [key: string]: unknown }> {
  const answers = new TransformStream<{ [key: string]: unknown }, { [key: string]: unknown }>({
    transform(message, controller) {
      const id = message["id"] as number;
      if (failAfter !== undefined && id >= failAfter)
        controller.error(new SdkError(ErrorCode.ConnectionClosed, "the agent went away"));
      else controller.enqueue({ jsonrpc: "2.0", id, result: { echoed: message["params"] } });
    },
  });
  return { writable: answers.writable, readable: answers.readable };
}

async function exchange(stream: MessageStream<{ [key: string]: unknown }>, ids: number[]): Promise<unknown[]> {
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const answers: unknown[] = [];
  for (const id of ids) {
    await writer.write({ jsonrpc: "2.0", id, method: "echo", params: { n: id, apiKey: "sk-abcdef123456" } });
    answers.push((await reader.read()).value);
  }
  await writer.close();
  return answers;
}

describe("streamRecorder and replayStream", () => {
  it("record each session as a connection, both directions in order, secrets redacted; the replay answers the same", async () => {
    const sink = createMemoryTraceSink();
    const recorder = streamRecorder(sink);
    const live = [await exchange(recorder.wrap(echoPeer()), [0, 1]), await exchange(recorder.wrap(echoPeer()), [0])];
    await recorder.close();
    const trace = parseTrace(sink.text());
    expect(trace.header).toMatchObject({ wire: "acp", era: "v1" });
    expect(trace.connections.map((events) => events.map((e) => (e.kind === "frame" ? e.from : e.kind)))).toEqual([
      ["open", "client", "peer", "client", "peer", "close"],
      ["open", "client", "peer", "close"],
    ]);
    expect(sink.text()).not.toContain("sk-abcdef123456");
    const replay = replayStream(trace);
    const replayed = [await exchange(await replay.open(), [0, 1]), await exchange(await replay.open(), [0])];
    // The recorded answers echo the redacted key: what the agent said is what the trace holds.
    expect(JSON.stringify(replayed)).toBe(JSON.stringify(live).split("sk-abcdef123456").join("[REDACTED]"));
    replay.verify();
  });

  it("record a peer that failed, and the replay fails the same way at the same place", async () => {
    const sink = createMemoryTraceSink();
    const recorder = streamRecorder(sink);
    await expect(exchange(recorder.wrap(echoPeer(1)), [0, 1])).rejects.toThrow("the agent went away");
    await recorder.close();
    const trace = parseTrace(sink.text());
    expect(trace.events.at(-1)).toMatchObject({
      kind: "close",
      by: "peer",
      error: { code: ErrorCode.ConnectionClosed, message: "the agent went away" },
    });
    const replay = replayStream(trace);
    await expect(exchange(await replay.open(), [0, 1])).rejects.toMatchObject({
      code: ErrorCode.ConnectionClosed,
      message: "the agent went away",
    });
    replay.verify();
  });
});
