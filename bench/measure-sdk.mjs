// Start-to-ready time of the subprocess transport and heap per retained step.
import { performance } from "node:perf_hooks";
import { Agent, SubprocessTransport, WebSocketTransport, findBundledHarness } from "@antigravity-ts/node";
import { median } from "./report.mjs";

/**
 * Spawn → handshake → WebSocket open (`SubprocessTransport.connect`), and spawn → init response
 * (`Agent.start`), with the bundled reference harness, `runs` times each; medians in ms.
 */
export async function measureStartToReady(runs) {
  const harnessPath = findBundledHarness();
  if (harnessPath === undefined) throw new Error("the bundled reference harness is not built (packages/harness/dist/bin.js)");
  const connect = [];
  const ready = [];
  for (let run = -1; run < runs; run++) {
    let start = performance.now();
    const channel = await new SubprocessTransport({ harnessPath }).connect({ timeoutMs: 30_000 });
    const connectMs = performance.now() - start;
    await channel.close();
    start = performance.now();
    const agent = await Agent.builder().harnessPath(harnessPath).allowAll().build().start({ timeoutMs: 30_000 });
    const readyMs = performance.now() - start;
    await agent.stop();
    if (run >= 0) {
      connect.push(connectMs);
      ready.push(readyMs);
    }
  }
  return { connectMedianMs: median(connect), readyMedianMs: median(ready), runs };
}

/** Heap growth of a conversation holding `steps` steps in its history, per step (bytes). */
export async function measureHeapPerStep(server, steps) {
  const agent = await Agent.builder()
    .transport(new WebSocketTransport({ url: server.url, apiKey: server.apiKey }))
    .allowAll()
    .maxHistorySize(steps)
    .build()
    .start({ timeoutMs: 30_000 });
  try {
    const conversation = agent.conversation();
    await conversation.chatToCompletion("stream:10"); // warm the code paths before the baseline
    await conversation.clearHistory();
    const before = settledHeap();
    for await (const _ of conversation.chat(`stream:${steps}`)) {
      // consume
    }
    const after = settledHeap();
    const retained = (await conversation.history()).length;
    if (retained !== steps) throw new Error(`history holds ${retained} steps, expected ${steps}`);
    return { bytesPerStep: (after - before) / steps, steps };
  } finally {
    await agent.stop();
  }
}

function settledHeap() {
  for (let i = 0; i < 3; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
}
