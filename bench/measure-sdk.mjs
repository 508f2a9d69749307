// Start-to-ready time of the subprocess transport and heap per retained step.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Agent,
  SubprocessTransport,
  WebSocketTransport,
  findBundledHarness,
  prewarmHarness,
  subprocessTransportFactory,
} from "@antigravity-ts/node";
import { median } from "./report.mjs";

/** The least a harness can do for `Agent.start()` (bench/floor-harness.cjs): the floor of a start. */
const FLOOR_HARNESS = fileURLToPath(new URL("./floor-harness.cjs", import.meta.url));

/** The pause between `prewarmHarness()` and `start()` of the paused prewarmed measurement. */
const PREWARM_PAUSE_MS = 100;

/**
 * Spawn → handshake → WebSocket open (`SubprocessTransport.connect`), spawn → init response
 * (`Agent.start`), and `Agent.start` adopting a harness `prewarmHarness()` started before, with the
 * bundled reference harness, `runs` times each; medians in ms. The baseline of a cold start is
 * Node itself: spawning `node -e 0` until it exits (the floor of any harness written in JS).
 * The prewarmed `start()` follows `prewarmHarness()` at once; `prewarmedAfterPauseMedianMs` is the
 * same with {@link PREWARM_PAUSE_MS} between them, as when an application prewarms ahead of need
 * (an idle harness rehearses a session meanwhile: packages/harness/src/server/warm-up.ts).
 */
export async function measureStartToReady(runs) {
  const harnessPath = findBundledHarness();
  if (harnessPath === undefined)
    throw new Error("the bundled reference harness is not built (packages/harness/dist/bin.cjs)");
  const connect = [];
  const ready = [];
  const prewarmed = [];
  const prewarmedAfterPause = [];
  const bareNode = [];
  const floor = [];
  for (let run = -1; run < runs; run++) {
    let start = performance.now();
    await runBareNode();
    const bareNodeMs = performance.now() - start;
    start = performance.now();
    const channel = await new SubprocessTransport({ harnessPath }).connect({ timeoutMs: 30_000 });
    const connectMs = performance.now() - start;
    await channel.close();
    start = performance.now();
    const agent = await Agent.builder()
      .transport(subprocessTransportFactory({ harnessPath }))
      .allowAll()
      .build()
      .start({ timeoutMs: 30_000 });
    const readyMs = performance.now() - start;
    await agent.stop();
    const harness = await prewarmHarness({ harnessPath, timeoutMs: 30_000 });
    start = performance.now();
    const adopted = await Agent.builder().transport(harness).allowAll().build().start({ timeoutMs: 30_000 });
    const prewarmedMs = performance.now() - start;
    await adopted.stop();
    const paused = await prewarmHarness({ harnessPath, timeoutMs: 30_000 });
    await sleep(PREWARM_PAUSE_MS);
    start = performance.now();
    const adoptedLater = await Agent.builder().transport(paused).allowAll().build().start({ timeoutMs: 30_000 });
    const prewarmedAfterPauseMs = performance.now() - start;
    await adoptedLater.stop();
    start = performance.now();
    const minimal = await Agent.builder()
      .transport(subprocessTransportFactory({ harnessPath: FLOOR_HARNESS }))
      .allowAll()
      .build()
      .start({ timeoutMs: 30_000 });
    const floorMs = performance.now() - start;
    await minimal.stop();
    if (run >= 0) {
      bareNode.push(bareNodeMs);
      connect.push(connectMs);
      ready.push(readyMs);
      prewarmed.push(prewarmedMs);
      prewarmedAfterPause.push(prewarmedAfterPauseMs);
      floor.push(floorMs);
    }
  }
  return {
    bareNodeMedianMs: median(bareNode),
    connectMedianMs: median(connect),
    readyMedianMs: median(ready),
    floorMedianMs: median(floor),
    prewarmedMedianMs: median(prewarmed),
    prewarmedAfterPauseMedianMs: median(prewarmedAfterPause),
    runs,
  };
}

/**
 * The first prewarmed `Agent.start()` of a process, as an application that prewarms at launch gets
 * it: bench/first-prewarmed-start.mjs in a fresh process per run (`prewarmHarness()`, 300 ms, then
 * the timed `start()`), `runs` times; median in ms.
 */
export async function measureFirstPrewarmedStart(runs) {
  const harnessPath = findBundledHarness();
  if (harnessPath === undefined)
    throw new Error("the bundled reference harness is not built (packages/harness/dist/bin.cjs)");
  const script = fileURLToPath(new URL("./first-prewarmed-start.mjs", import.meta.url));
  const times = [];
  for (let run = 0; run < runs; run++) {
    const { status, stdout, stderr } = spawnSync(process.execPath, [script, harnessPath, "300"], { encoding: "utf8" });
    if (status !== 0) throw new Error(`first-prewarmed-start.mjs exited with ${status}: ${stderr}`);
    times.push(Number(stdout.trim()));
  }
  return { firstPrewarmedMedianMs: median(times), runs };
}

/** Spawns `node -e 0` and waits for its exit. */
function runBareNode() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", resolve);
  });
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
