// `npm run bench`: throughput, tool round-trip latency, start-to-ready time (with and without
// `prewarmHarness()`), heap per step, cancel latency, 1,000 concurrent sessions and history trimming
// of the SDK, measured against the built packages (dist/, built first if stale) and, where it
// makes sense, beside a baseline measured in the same run. Prints a table and writes it, with the
// machine and the date, into docs/bench.md and the README's table (between its bench markers).
//   node bench/run.mjs [--quick] [--no-write] [--only cancel | --only roundtrip,throughput,turn | --only start]
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ensureDist } from "@antigravity-ts/test-kit/ensure-dist";
import { measureCancelLatency } from "./measure-cancel.mjs";
import { measureFirstPrewarmedStart, measureHeapPerStep, measureStartToReady } from "./measure-sdk.mjs";
import { measureScale } from "./measure-scale.mjs";
import { measureShortTurns, measureThroughput, measureToolRoundTrips } from "./measure-throughput.mjs";
import { measureTrimming } from "./measure-trim.mjs";
import {
  cancelRows,
  machineInfo,
  patchCancelRows,
  patchReadmeTable,
  renderMarkdown,
  renderReadmeBlock,
  renderTable,
} from "./report.mjs";

// Heap per step needs global.gc: re-run under --expose-gc when it is missing.
if (typeof globalThis.gc !== "function") {
  const result = spawnSync(
    process.execPath,
    ["--expose-gc", fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  process.exit(result.status ?? 1);
}

const quick = process.argv.includes("--quick");
const write = !process.argv.includes("--no-write");
const settings = quick
  ? {
      steps: 5_000,
      runs: 3,
      toolCalls: 200,
      shortTurns: 500,
      startRuns: 3,
      heapSteps: 10_000,
      cancelRuns: 10,
      scaleSessions: 1_000,
      trimSteps: [10_000, 100_000, 1_000_000],
    }
  : {
      steps: 20_000,
      runs: 11,
      toolCalls: 10_000,
      shortTurns: 3_000,
      startRuns: 20,
      heapSteps: 10_000,
      cancelRuns: 30,
      scaleSessions: 1_000,
      trimSteps: [10_000, 100_000, 1_000_000],
    };

const log = (line) => process.stderr.write(`${line}\n`);
await ensureDist({ log });

// `--only cancel`: the cancel rows alone, patched into docs/bench.md and README.md.
// `--only roundtrip,throughput,turn` (any of them): those rows printed beside their baselines, nothing written.
// `--only start`: the start-to-ready rows printed beside the `node -e 0` baseline, and the first
// prewarmed start of a fresh process (not a table row), nothing written.
const only = process.argv.includes("--only")
  ? String(process.argv[process.argv.indexOf("--only") + 1]).split(",")
  : undefined;
if (only?.length === 1 && only[0] === "start") {
  log(`start-to-ready: ${settings.startRuns} runs`);
  const start = await measureStartToReady(settings.startRuns);
  const { firstPrewarmedMedianMs } = await measureFirstPrewarmedStart(settings.startRuns);
  const ms = (value) => `${value.toFixed(1)} ms`;
  const ratio = (value) => `×${(value / start.bareNodeMedianMs).toFixed(2)}`;
  process.stdout.write(
    `start  node -e 0 ${ms(start.bareNodeMedianMs)}  Agent.start ${ms(start.readyMedianMs)} ${ratio(start.readyMedianMs)}  minimal harness ${ms(start.floorMedianMs)}  connect ${ms(start.connectMedianMs)} ${ratio(start.connectMedianMs)}  prewarmed ${ms(start.prewarmedMedianMs)}  prewarmed 100 ms before ${ms(start.prewarmedAfterPauseMedianMs)}  first prewarmed of a process ${ms(firstPrewarmedMedianMs)}\n`,
  );
  process.exit(0);
}
if (only !== undefined && only.some((name) => name !== "roundtrip" && name !== "throughput" && name !== "turn")) {
  if (only.length !== 1 || only[0] !== "cancel")
    throw new Error(`--only takes "cancel", "start" or any of "roundtrip,throughput,turn", got ${only.join(",")}`);
  log(`cancel latency: ${settings.cancelRuns} runs`);
  const rows = cancelRows(await measureCancelLatency(settings));
  process.stdout.write(`${rows.map((row) => row.join("  ")).join("\n")}\n`);
  if (write) {
    for (const file of ["../docs/bench.md", "../README.md"]) {
      const url = new URL(file, import.meta.url);
      writeFileSync(url, patchCancelRows(readFileSync(url, "utf8"), rows));
    }
    log("updated the cancel rows of docs/bench.md and README.md");
  }
  process.exit(0);
}

if (only !== undefined) {
  const server = await startBenchServer();
  try {
    if (only.includes("throughput")) {
      log(`throughput: ${settings.steps} steps per turn, ${settings.runs} runs each`);
      const { sdk, baseline } = await measureThroughput(server, settings);
      const ratio = sdk.stepsPerSecond / baseline.stepsPerSecond;
      process.stdout.write(
        `throughput  sdk ${Math.round(sdk.stepsPerSecond)} steps/s  bare ${Math.round(baseline.stepsPerSecond)} steps/s  ratio ${ratio.toFixed(2)}\n`,
      );
      const rates = (runs) => runs.map((rate) => Math.round(rate / 1000)).join(" ");
      process.stdout.write(`  runs, thousand steps/s: sdk ${rates(sdk.runs)}  bare ${rates(baseline.runs)}\n`);
    }
    if (only.includes("turn")) {
      log(`one-step turns: ${settings.shortTurns} each`);
      const { sdk, baseline } = await measureShortTurns(server, settings);
      const ms = (value) => value.toFixed(3);
      process.stdout.write(
        `one-step turn  median sdk ${ms(sdk.medianMs)} ms  bare ${ms(baseline.medianMs)} ms  ×${(sdk.medianMs / baseline.medianMs).toFixed(2)}  p99 sdk ${ms(sdk.p99Ms)} ms  bare ${ms(baseline.p99Ms)} ms  ×${(sdk.p99Ms / baseline.p99Ms).toFixed(2)}\n`,
      );
    }
    if (only.includes("roundtrip")) {
      log(`tool round trips: ${settings.toolCalls} calls each`);
      const { sdk, baseline } = await measureToolRoundTrips(server, settings);
      const ms = (value) => value.toFixed(3);
      process.stdout.write(
        `round trip  median sdk ${ms(sdk.medianMs)} ms  bare ${ms(baseline.medianMs)} ms  ×${(sdk.medianMs / baseline.medianMs).toFixed(2)}  p99 sdk ${ms(sdk.p99Ms)} ms  bare ${ms(baseline.p99Ms)} ms  ×${(sdk.p99Ms / baseline.p99Ms).toFixed(2)}\n`,
      );
    }
  } finally {
    server.stop();
  }
  process.exit(0);
}

const server = await startBenchServer();
try {
  log(`throughput: ${settings.steps} steps per turn, ${settings.runs} runs each`);
  const { sdk, baseline } = await measureThroughput(server, settings);
  log(`tool round trips: ${settings.toolCalls} calls each`);
  const tools = await measureToolRoundTrips(server, settings);
  log(`one-step turns: ${settings.shortTurns} each`);
  const shortTurns = await measureShortTurns(server, settings);
  log(`start-to-ready: ${settings.startRuns} runs`);
  const start = await measureStartToReady(settings.startRuns);
  log(`heap: ${settings.heapSteps}-step history`);
  const heap = await measureHeapPerStep(server, settings.heapSteps);
  log(`cancel latency: ${settings.cancelRuns} runs`);
  const cancel = await measureCancelLatency(settings);
  log(`trimming: turns of ${settings.trimSteps.join(", ")} steps`);
  const trim = await measureTrimming(server, settings);
  log(`scale: ${settings.scaleSessions} concurrent sessions on one listening harness`);
  const scale = await measureScale(settings);

  const results = {
    settings,
    sdk,
    baseline,
    sdkTools: tools.sdk,
    baselineTools: tools.baseline,
    shortTurns,
    start,
    heap,
    cancel,
    trim,
    scale,
    machine: machineInfo(),
    date: new Date().toISOString(),
  };
  process.stdout.write(`\n${renderTable(results)}\n`);
  const ratio = sdk.stepsPerSecond / baseline.stepsPerSecond;
  process.stdout.write(
    `\nSDK/baseline throughput ratio: ${ratio.toFixed(2)} (issue 14 target ≥ 0.90: ${ratio >= 0.9 ? "met" : "NOT MET"})\n`,
  );
  if (write) {
    writeFileSync(new URL("../docs/bench.md", import.meta.url), renderMarkdown(results));
    const readme = new URL("../README.md", import.meta.url);
    writeFileSync(readme, patchReadmeTable(readFileSync(readme, "utf8"), renderReadmeBlock(results)));
    log("wrote docs/bench.md and the README's benchmark table");
  }
} finally {
  server.stop();
}

/** Starts bench/bench-server.mjs in its own process and reads its address. */
function startBenchServer() {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./bench-server.mjs", import.meta.url))], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = [];
  const waiters = [];
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const nextLine = () =>
    lines.length > 0 ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiters.push(resolve));
  return nextLine().then(({ port, apiKey }) => ({
    url: `ws://127.0.0.1:${port}/`,
    apiKey,
    nextReport: nextLine,
    stop: () => {
      child.stdin.end();
      child.kill();
    },
  }));
}
