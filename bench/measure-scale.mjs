// Scale: many concurrent sessions on one listen-mode reference harness (`antigravity-harness
// --listen`, scripted model). Each session is an `Agent` over `WebSocketTransport` in this
// process. Measures the chunk latency of a turn every session runs at once, against one session
// alone on the same harness, and the memory an idle session costs the harness (RSS) and the
// client (heap).
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Agent, WebSocketTransport, findBundledHarness } from "@antigravity-ts/node";
import { percentile } from "./report.mjs";

/** Words of the scripted answer and the harness's pause between them: chunks arrive every CHUNK_DELAY_MS. */
const ANSWER_WORDS = 40;
const CHUNK_DELAY_MS = 20;
/** Sessions opened at a time (a burst of 1,000 WebSocket upgrades would measure the accept queue). */
const OPEN_BATCH = 50;

const SCRIPT = {
  turns: [
    {
      match: "go",
      calls: [
        {
          text: Array.from({ length: ANSWER_WORDS }, (_, i) => `w${i}`).join(" "),
          chunkWords: 1,
          chunkDelayMs: CHUNK_DELAY_MS,
        },
      ],
    },
  ],
};

/**
 * Opens `sessions` sessions on one harness, measures memory while they are idle, then runs one
 * turn in all of them at once. Chunk latency: the gap between consecutive text chunks of a turn
 * minus the harness's scripted pause (`CHUNK_DELAY_MS`), i.e. how late each chunk arrives; p50
 * and p99 over every gap of every session. The baseline is the same turn in one session alone.
 */
export async function measureScale({ scaleSessions }) {
  const harnessPath = findBundledHarness();
  if (harnessPath === undefined)
    throw new Error("the bundled reference harness is not built (packages/harness/dist/bin.cjs)");
  const dir = await mkdtemp(path.join(tmpdir(), "antigravity-bench-scale-"));
  const script = path.join(dir, "script.json");
  await writeFile(script, JSON.stringify(SCRIPT));
  const harness = await startListeningHarness(harnessPath, script, dir);
  const agents = [];
  try {
    const open = () =>
      Agent.builder()
        .transport(new WebSocketTransport({ url: harness.url, apiKey: harness.apiKey }))
        .workspaces(dir)
        .allowAll()
        .build()
        .start({ timeoutMs: 60_000 });
    // Baseline: one session alone (a warm-up turn first, so the JIT has compiled the paths).
    const single = await open();
    await turnGaps(single);
    const singleGaps = await turnGaps(single);
    await single.stop();

    const harnessBefore = await rssBytes(harness.pid);
    const clientBefore = settledHeap();
    for (let i = 0; i < scaleSessions; i += OPEN_BATCH) {
      agents.push(...(await Promise.all(Array.from({ length: Math.min(OPEN_BATCH, scaleSessions - i) }, open))));
    }
    const harnessIdle = await rssBytes(harness.pid);
    const clientIdle = settledHeap();

    const started = performance.now();
    const gaps = (await Promise.all(agents.map((agent) => turnGaps(agent)))).flat();
    const turnMs = performance.now() - started;
    return {
      sessions: scaleSessions,
      chunkDelayMs: CHUNK_DELAY_MS,
      single: { p50Ms: percentile(singleGaps, 0.5), p99Ms: percentile(singleGaps, 0.99) },
      concurrent: { p50Ms: percentile(gaps, 0.5), p99Ms: percentile(gaps, 0.99), turnMs },
      harnessBytesPerSession: (harnessIdle - harnessBefore) / scaleSessions,
      clientBytesPerSession: (clientIdle - clientBefore) / scaleSessions,
    };
  } finally {
    await Promise.allSettled(agents.map((agent) => agent.stop()));
    await harness.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** One turn; the lateness of each text chunk after the first (gap minus the scripted pause), in ms. */
async function turnGaps(agent) {
  const gaps = [];
  let last;
  for await (const chunk of agent.conversation().chat("go")) {
    if (chunk.type !== "text") continue;
    const now = performance.now();
    if (last !== undefined) gaps.push(Math.max(0, now - last - CHUNK_DELAY_MS));
    last = now;
  }
  if (gaps.length < ANSWER_WORDS / 2)
    throw new Error(`the turn streamed ${gaps.length + 1} text chunks, expected about ${ANSWER_WORDS}`);
  return gaps;
}

/** `antigravity-harness --listen 127.0.0.1:0` with the scripted model; resolves once it listens. */
function startListeningHarness(harnessPath, script, workspace) {
  const apiKey = `bench-${process.pid}-${Date.now()}`;
  const child = spawn(
    process.execPath,
    [harnessPath, "--listen", "127.0.0.1:0", "--script", script, "--workspace", workspace],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ANTIGRAVITY_API_KEY: apiKey, ANTIGRAVITY_MODEL_PROVIDER: "scripted" },
    },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const url = /listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
      if (url !== undefined && !stderr.endsWith("listening")) {
        child.stderr.removeAllListeners("data");
        child.stderr.resume();
        resolve({
          url,
          apiKey,
          pid: child.pid,
          stop: async () => {
            child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
    void exited.then((code) =>
      reject(new Error(`the listening harness exited (${code}) before it listened: ${stderr}`)),
    );
  });
}

/** Resident set size of a process (Linux /proc), in bytes. */
async function rssBytes(pid) {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

function settledHeap() {
  for (let i = 0; i < 3; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
}
