// Cancel latency: how long `ChatStream.abort()` takes to end the stream a user reads, and to
// get the turn over (the harness has halted and reported idle, every step and the usage are
// recorded), against the bundled reference harness streaming an answer from its scripted model.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Agent, ErrorCode, SdkError, findBundledHarness, subprocessTransportFactory } from "@antigravity-ts/node";
import { median, percentile } from "./report.mjs";

/** Turns run before measuring, so the JIT has compiled the hot paths. */
const WARM_UP_RUNS = 2;
/** Text chunks read before the abort, so the turn is well into its answer. */
const CHUNKS_BEFORE_ABORT = 5;

/** A long answer streamed one word per chunk, 5 ms apart: the turn is mid-text when aborted. */
const SCRIPT = {
  turns: [
    {
      match: "stream",
      calls: [
        {
          thinking: "Let me write at length.",
          text: Array.from({ length: 4_000 }, (_, i) => `word${i}`).join(" "),
          chunkWords: 1,
          chunkDelayMs: 5,
        },
      ],
    },
  ],
};

/**
 * Per run: `chat()`, read a few text chunks, `abort()`; times abort → the `for await` loop ends
 * (with `Canceled`), and abort → `abort()`'s promise (the turn is over). Medians and p99 in ms.
 */
export async function measureCancelLatency({ cancelRuns }) {
  const harnessPath = findBundledHarness();
  if (harnessPath === undefined)
    throw new Error("the bundled reference harness is not built (packages/harness/dist/bin.cjs)");
  const dir = await mkdtemp(path.join(tmpdir(), "antigravity-bench-cancel-"));
  const script = path.join(dir, "script.json");
  await writeFile(script, JSON.stringify(SCRIPT));
  const agent = await Agent.builder()
    .transport(
      subprocessTransportFactory({
        harnessPath,
        env: { ANTIGRAVITY_MODEL_PROVIDER: "scripted", ANTIGRAVITY_SCRIPT: script },
      }),
    )
    .workspaces(dir)
    .allowAll()
    .build()
    .start({ timeoutMs: 30_000 });
  const streamEnds = [];
  const turnOver = [];
  try {
    for (let run = -WARM_UP_RUNS; run < cancelRuns; run++) {
      const stream = agent.chat(`stream ${run}`, { timeoutMs: 30_000 });
      let chunks = 0;
      let abortedAt = 0;
      let over;
      try {
        for await (const chunk of stream) {
          if (chunk.type === "text" && ++chunks === CHUNKS_BEFORE_ABORT) {
            abortedAt = performance.now();
            over = stream.abort();
          }
        }
        throw new Error("the stream ended without the abort's Canceled");
      } catch (error) {
        if (!(error instanceof SdkError) || error.code !== ErrorCode.Canceled) throw error;
      }
      const ended = performance.now();
      await over;
      const idle = performance.now();
      if (!agent.connection.isIdle) throw new Error("the turn was not over when abort() resolved");
      if (run >= 0) {
        streamEnds.push(ended - abortedAt);
        turnOver.push(idle - abortedAt);
      }
    }
  } finally {
    await agent.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return {
    runs: cancelRuns,
    streamEndMedianMs: median(streamEnds),
    streamEndP99Ms: percentile(streamEnds, 0.99),
    turnOverMedianMs: median(turnOver),
    turnOverP99Ms: percentile(turnOver, 0.99),
  };
}
