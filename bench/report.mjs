// Statistics, machine description and the rendering of the results (terminal and docs/bench.md).
import { cpus, loadavg, platform, release, totalmem } from "node:os";

export function median(values) {
  return percentile(values, 0.5);
}

/** Nearest-rank percentile. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function machineInfo() {
  const cpu = cpus();
  return {
    cpu: `${cpu[0]?.model ?? "unknown CPU"} × ${cpu.length}`,
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    os: `${platform()} ${release()}`,
    node: process.version,
    // Other processes' CPU use skews every row; the 1-minute load average when the run ended says how busy the machine was.
    load: loadavg()[0].toFixed(1),
  };
}

const n = (value, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The cancel-latency rows (bench/measure-cancel.mjs). */
export function cancelRows(c) {
  return [
    [
      `Cancel: \`abort()\` → the stream ends with \`Canceled\` (median of ${c.runs}; p99)`,
      `${n(c.streamEndMedianMs, 3)} ms; ${n(c.streamEndP99Ms, 3)} ms`,
      "—",
      "—",
    ],
    [
      `Cancel: \`abort()\` → harness idle, turn recorded (median of ${c.runs}; p99)`,
      `${n(c.turnOverMedianMs, 2)} ms; ${n(c.turnOverP99Ms, 2)} ms`,
      "—",
      "—",
    ],
  ];
}

const ratio = (value, baseline) => n(value / baseline, 2);

function rows(r) {
  const s = r.start;
  const trimBase = r.trim.results[0];
  return [
    ["Metric", "SDK", "Baseline", "SDK / baseline"],
    [
      `Throughput, steps/s (${n(r.settings.steps)} steps per turn, median of ${r.settings.runs}); baseline: bare \`ws\` + \`JSON.parse\``,
      n(r.sdk.stepsPerSecond),
      n(r.baseline.stepsPerSecond),
      ratio(r.sdk.stepsPerSecond, r.baseline.stepsPerSecond),
    ],
    [
      `Client-tool round trip, median (${n(r.settings.toolCalls)} calls); baseline: bare \`ws\` echo`,
      `${n(r.sdkTools.medianMs, 3)} ms`,
      `${n(r.baselineTools.medianMs, 3)} ms`,
      ratio(r.sdkTools.medianMs, r.baselineTools.medianMs),
    ],
    [
      "Client-tool round trip, p99",
      `${n(r.sdkTools.p99Ms, 3)} ms`,
      `${n(r.baselineTools.p99Ms, 3)} ms`,
      ratio(r.sdkTools.p99Ms, r.baselineTools.p99Ms),
    ],
    [
      `One-step turn: prompt → end of its chunk stream, median (${n(r.settings.shortTurns)} turns); baseline: bare \`ws\` client`,
      `${n(r.shortTurns.sdk.medianMs, 3)} ms`,
      `${n(r.shortTurns.baseline.medianMs, 3)} ms`,
      ratio(r.shortTurns.sdk.medianMs, r.shortTurns.baseline.medianMs),
    ],
    [
      "One-step turn, p99",
      `${n(r.shortTurns.sdk.p99Ms, 3)} ms`,
      `${n(r.shortTurns.baseline.p99Ms, 3)} ms`,
      ratio(r.shortTurns.sdk.p99Ms, r.shortTurns.baseline.p99Ms),
    ],
    [
      `Start-to-ready: spawn → handshake → WebSocket open (median of ${s.runs}); baseline: spawn \`node -e 0\` → exit`,
      `${n(s.connectMedianMs, 1)} ms`,
      `${n(s.bareNodeMedianMs, 1)} ms`,
      ratio(s.connectMedianMs, s.bareNodeMedianMs),
    ],
    [
      `Start-to-ready: spawn → init response, \`Agent.start()\` (median of ${s.runs}); baseline: spawn \`node -e 0\` → exit`,
      `${n(s.readyMedianMs, 1)} ms`,
      `${n(s.bareNodeMedianMs, 1)} ms`,
      ratio(s.readyMedianMs, s.bareNodeMedianMs),
    ],
    [
      `Start-to-ready, \`Agent.start()\` (median of ${s.runs}); baseline: \`Agent.start()\` with a harness that does nothing else (bench/floor-harness.cjs)`,
      `${n(s.readyMedianMs, 1)} ms`,
      `${n(s.floorMedianMs, 1)} ms`,
      ratio(s.readyMedianMs, s.floorMedianMs),
    ],
    [
      `Start-to-ready after \`prewarmHarness()\`: \`Agent.start()\` → init response (median of ${s.runs}); baseline: \`Agent.start()\` without prewarm`,
      `${n(s.prewarmedMedianMs, 1)} ms`,
      `${n(s.readyMedianMs, 1)} ms`,
      ratio(s.prewarmedMedianMs, s.readyMedianMs),
    ],
    [`Heap per retained step (${n(r.heap.steps)}-step history)`, `${n(r.heap.bytesPerStep)} B`, "—", "—"],
    ...cancelRows(r.cancel),
    [
      `Scale: chunk lateness with ${n(r.scale.sessions)} concurrent sessions on one listening harness, p50; p99; baseline: one session`,
      `${n(r.scale.concurrent.p50Ms, 2)} ms; ${n(r.scale.concurrent.p99Ms, 2)} ms`,
      `${n(r.scale.single.p50Ms, 2)} ms; ${n(r.scale.single.p99Ms, 2)} ms`,
      `p99 ${ratio(Math.max(r.scale.concurrent.p99Ms, 0.001), Math.max(r.scale.single.p99Ms, 0.001))}`,
    ],
    [
      `Scale: memory per idle session (${n(r.scale.sessions)} sessions): harness RSS; client heap`,
      `${n(r.scale.harnessBytesPerSession / 1024, 1)} KiB; ${n(r.scale.clientBytesPerSession / 1024, 1)} KiB`,
      "—",
      "—",
    ],
    ...r.trim.results.map((t) => [
      `Trimming: time per step, ${n(t.steps)}-step turn, history kept at ${n(r.trim.historySize)} steps; baseline: the ${n(trimBase.steps)}-step turn`,
      `${n(t.microsPerStep, 2)} µs`,
      `${n(trimBase.microsPerStep, 2)} µs`,
      ratio(t.microsPerStep, trimBase.microsPerStep),
    ]),
  ];
}

/** The markdown table of `results` (header, alignment row, rows). */
export function renderMarkdownTable(results) {
  const table = rows(results);
  return [
    `| ${table[0].join(" | ")} |`,
    `|${table[0].map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...table.slice(1).map(markdownRow),
  ].join("\n");
}

/** The line saying where and when `results` were measured, and how busy the machine was. */
export function measuredOn(results) {
  const m = results.machine;
  return `Measured on ${results.date.slice(0, 10)} (${results.date}) · ${m.cpu} · ${m.memory} RAM · ${m.os} · Node ${m.node} · load average ${m.load ?? "unknown"} at the end of the run${results.settings.steps < 20_000 ? " · quick run" : ""}.`;
}

/** What the full run writes between the README's bench markers: the table and where it was measured. */
export function renderReadmeBlock(results) {
  return `${renderMarkdownTable(results)}\n\n${measuredOn(results)}`;
}

/** README.md with everything between `<!-- bench:start -->` and `<!-- bench:end -->` replaced by `table`. */
export function patchReadmeTable(readme, table) {
  const start = readme.indexOf("<!-- bench:start -->");
  const end = readme.indexOf("<!-- bench:end -->");
  if (start < 0 || end < start)
    throw new Error("README.md has no <!-- bench:start --> ... <!-- bench:end --> block for the benchmark table");
  return `${readme.slice(0, start)}<!-- bench:start -->\n${table}\n${readme.slice(end)}`;
}

/** A markdown table row. */
export function markdownRow(row) {
  return `| ${row.join(" | ")} |`;
}

/**
 * `markdown` with its cancel rows replaced by `rows` (or added after the heap row): what
 * `bench/run.mjs --only cancel` writes into docs/bench.md and README.md, leaving the other rows.
 */
export function patchCancelRows(markdown, rows) {
  const lines = markdown.split("\n").filter((line) => !line.startsWith("| Cancel: "));
  const heap = lines.findIndex((line) => line.startsWith("| Heap per retained step"));
  if (heap < 0) throw new Error("no benchmark table (its heap row) to add the cancel rows to");
  lines.splice(heap + 1, 0, ...rows.map(markdownRow));
  return lines.join("\n");
}

/** A plain-text table for the terminal. */
export function renderTable(results) {
  const table = rows(results);
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  const line = (row) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join("  ");
  return [line(table[0]), widths.map((w) => "-".repeat(w)).join("  "), ...table.slice(1).map(line)].join("\n");
}

/** docs/bench.md: what is measured, how to run it, the machine, the date and the table. */
export function renderMarkdown(results) {
  const md = renderMarkdownTable(results);
  return `# Benchmarks

Run with \`npm run bench\` (\`node bench/run.mjs\`; \`--quick\` for a short run, \`--no-write\` to leave
this file alone). It builds the packages' JavaScript if \`dist/\` is stale and measures the built
packages, never the TypeScript sources.

## Results

${md}

${measuredOn(results)}

SDK/baseline throughput ratio: **${(results.sdk.stepsPerSecond / results.baseline.stepsPerSecond).toFixed(2)}** (target: at least 0.90, issue 14). The README's
table between \`<!-- bench:start -->\` and \`<!-- bench:end -->\` is the same table, written by the same run.

## What each row measures

- **Throughput.** \`bench/bench-server.mjs\` runs in its own process and, for each prompt
  \`stream:N\`, sends N \`stepUpdate\` frames (finished text steps of about 100 bytes of text, the
  JSON the harness sends, protocol §4.1) and then \`STATE_FULLY_IDLE\` over a loopback WebSocket.
  The SDK row goes through \`WebSocketTransport\` → codec → \`HarnessConnection\` (step mapping, idle
  detection) → \`Conversation\` (history of up to 10,000 steps, usage) → the chunk stream of
  \`conversation.chat()\`, counting text chunks. The baseline is a bare \`ws\` client that only
  \`JSON.parse\`s each frame. Four warm-up turns, then the median of the runs; SDK and baseline
  runs alternate, so a busy machine slows both alike. With two warm-up turns and 7 measured ones,
  the ratio swung between 0.81 and 1.09 from run to run (2026-11-24): the SDK's first turns after
  the warm-up still ran up to 30% slower while V8 finished optimising its path. With four and 11,
  1.04–1.08 in three runs of these rows alone and 0.94–1.18 in eight whole runs of the bench; once,
  while the machine was slow (\`node -e 0\` 171 ms instead of 110), 0.79. Later that day, on another
  host of the same kind (\`node -e 0\` 59–76 ms): 0.76–1.25 in eight whole runs (seven at 0.90 or
  more) and 0.73–1.31 in seventeen runs of the row alone (fifteen at 0.90 or more). Most of that spread
  is the SDK's: over six pairs of one-client processes, the SDK's median was 124–170 thousand
  steps/s, the bare client's 137–162. A CPU profile of the SDK's side: \`JSON.parse\` 23% (the bare
  client's work), the fast reader 11%, \`ws\` receiving 10%, recording and trimming the history 11%,
  mapping steps 7%, idle 11%.
- **Client-tool round trip.** The server sends a \`toolCall\` and waits for its \`toolResponse\`
  before sending the next, timing each round trip itself. The SDK runs a \`defineTool\` tool that
  returns its arguments (decode → ToolRunner → encode, then the synthetic steps); the baseline parses the
  frame and answers it. Median and 99th percentile (nearest rank) over 10,000 calls per client, in turns of 100 calls that alternate between the two clients, after two warm-up turns of 5,000 calls each. The SDK's call path reaches V8's optimizing tier only after about 2,000 calls (a lone SDK client's median over its first 1,000-call turns: 201, 170, 74, 63 µs), and its tail settles later still: after 2 × 1,000 warm-up calls the SDK's p99 was 0.36–0.42 ms (bare 0.19–0.20), after 2 × 5,000 it is 0.26–0.29 ms (bare 0.14–0.15). 1,000 measured calls, as before 2026-11-24, put the p99 on the tenth-slowest call, and the ratio swung between 1.1× and 5.9× from run to run; with 10,000 it moves less, but depends on what ran before: in \`npm run bench\`, after the throughput rows, mostly 1.26×–1.59× (SDK 0.17–0.25 ms) and 1.96× in the one of six runs on 2026-11-24 made while the machine was busy (load 1.8), 1.41×–1.67× in eleven runs later that day (SDK 0.23–0.37 ms), and 1.09×–1.23× in eight runs on the other host of the Throughput row (median 1.08×–1.15×; SDK 0.19–0.30 ms, bare 0.17–0.25 ms); run alone (\`--only roundtrip\`), 1.4×–1.9× (SDK 0.25–0.43 ms, bare 0.15–0.26 ms; a larger young generation from the start did not change that). What sets the SDK's tail (measured on 2026-11-24): each call, after its answer has gone out, records the call's two synthetic steps (ACTIVE and DONE, §18) in the turn and the conversation's history, about 5 µs at the median and 50 µs at the 99th percentile; the harness does not wait for that work, but a next call that arrives meanwhile does. The event loop is busy about 58 µs per call against 36 µs for the bare client; with the synthetic steps switched off (an experiment, not an option), 44 µs, and the p99 ratio falls to about 1.25×. Of the 100 slowest of 10,000 calls, about 11 overlap a scavenge (11–12 per 10,000 calls) and 2–14 are the first call of a turn (median about 200 µs against 55 µs), which waits while the SDK takes in the turn's opening frames in code that runs once a turn and so stays in V8's interpreter: mapping the turn's first step takes about 16 µs there, 0.2 µs once compiled; the rest are spread over the turn. From the routing of a \`toolCall\` to its \`toolResponse\` handed to the socket the SDK takes about 15 µs at the median, and the socket write another 13–18 µs, as it does for the bare client. \`node bench/run.mjs --quick --only roundtrip,throughput,turn\` prints these rows alone
  (any of the names on its own too), beside their baselines, and writes nothing.
- **One-step turn.** The prompt \`stream:1\`: \`STATE_RUNNING\`, one finished text step,
  \`STATE_FULLY_IDLE\`. Each turn is timed by the client from the prompt to the end of its chunk
  stream (the SDK's \`conversation.chat()\`, the bare client's idle frame), turns alternating
  between the clients, after as many warm-up turns. It is what a turn costs beyond its frames:
  the send queue and lock, the turn's tracking and recording, the chunk stream. On 2026-11-24 the
  SDK's median fell from 124–137 µs to 87–101 µs (bare 58–75 µs) when a turn stopped making an
  AbortController and an abort reason (an \`SdkError\`, whose stack capture was the largest single
  cost) that no one had asked for.
- **Start-to-ready.** \`SubprocessTransport.connect()\` with the bundled reference harness: find
  the binary, spawn it, stdio handshake (protocol §3), WebSocket open (§4). Then a whole
  \`Agent.start()\`, which adds the \`InitializeConversationEvent\` and waits for the harness's
  \`initializeConversationResponse\` (§5). Their baseline is Node itself: spawning \`node -e 0\`
  until it exits, measured in the same loop (no harness written in JavaScript starts faster).
  *After \`prewarmHarness()\`*: the harness was spawned and handshaken beforehand; the time is the
  \`Agent.start()\` that adopts it (WebSocket open, init, response), against a cold
  \`Agent.start()\`. *Against a minimal harness*: the same \`Agent.start()\` with bench/floor-harness.cjs,
  which reads the handshake, listens with Node's HTTP server and \`ws\` and answers the init frame
  with a fixed response, and nothing else: the start no harness in Node can beat (the reference
  harness adds its sessions, tools and model, loaded from V8's code cache: docs/harness.md). Where
  the reference harness's extra time goes (timestamps in the harness, median of 12–20 starts,
  2026-11-24; 11–24 ms over the minimal harness then): loading up to the handshake reply 0–10 ms
  more (V8 code cache deserialisation, about 9 ms, against \`ws\` compiled from source); the
  WebSocket accepted 3–4 ms later (the warm-up of the session path runs while the client connects);
  the init frame answered in about 8 ms instead of 1: the workspace's real path 1.4–1.9 ms (the
  first use of libuv's thread pool), the session state 1 ms, and the new session's first save
  2.2 ms, which comes before the response on purpose (storage that cannot be written fails the
  start, not the first turn). The harness's main thread is busy throughout, so moving work into the
  wait for the client does not help: starting the thread pool there made init 1.1 ms shorter and
  the accept 1.2 ms later. Later that day, on the other host of the Throughput row (\`node -e 0\`
  59–76 ms), the minimal harness took 82–107 ms and the reference harness 0.5–5 ms more (1.00–1.06×):
  \`Agent.start()\` 86.8–109.1 ms in eight whole runs, prewarmed 7.5–11.3 ms. One warm-up, then the median; the kinds of start alternate in one loop, so a busy machine slows
  them alike. \`node bench/run.mjs --quick --only start\` prints
  these rows alone, with a prewarmed \`Agent.start()\` 100 ms after \`prewarmHarness()\` (an idle
  harness rehearses a session meanwhile) and the first prewarmed \`Agent.start()\` of a fresh process
  (which pays the SDK's first-use costs; bench/first-prewarmed-start.mjs), and writes nothing.
- **Heap per retained step.** After \`global.gc()\`, \`process.memoryUsage().heapUsed\` before and
  after a turn of 10,000 steps kept in the conversation's history, divided by 10,000. It counts the
  SDK's \`Step\` objects with their text (about 100 characters each) and the history's bookkeeping.
- **Cancel.** An agent on the bundled reference harness (subprocess transport, scripted model
  streaming a 4,000-word answer one word every 5 ms) runs \`chat()\`; after 5 text chunks the
  reader calls \`stream.abort()\`. *Stream ends*: abort → the reader's \`for await\` throws
  \`Canceled\` (the views end at once, without waiting for the harness). *Harness idle*: abort →
  \`abort()\`'s promise, i.e. the \`haltRequest\` went out, the harness stopped the model and
  reported the turn over (FULLY_IDLE, protocol §13) and the conversation recorded the last steps
  and the usage. Two warm-up turns, then the median and the 99th percentile. \`node bench/run.mjs
  --only cancel\` measures these rows alone and updates them here and in README.md.
- **Scale.** \`bench/measure-scale.mjs\` starts one \`antigravity-harness --listen\` (scripted model
  streaming 40 words, one every 20 ms) and opens ${n(results.scale.sessions)} sessions on it, each an \`Agent\` over
  \`WebSocketTransport\` in the bench process, 50 at a time. *Chunk lateness*: the gap between
  consecutive text chunks of a turn minus the harness's 20 ms pause, over every gap of every
  session while all of them run a turn at once; the baseline is the same turn in one session
  alone on the same harness. *Memory per idle session*: the harness's RSS (\`/proc/<pid>/status\`)
  and the bench process's heap after \`global.gc()\`, before and after opening the sessions,
  divided by their number. The sessions run in step: every 20 ms the harness has 1,000 chunks to
  send at once, and the lateness is mostly how long that burst takes it: one \`writev\` per frame,
  about 25 µs each on this machine, is 45% of the harness's busy time during the turn and garbage
  collection 16% (a profile taken after the changes below). On 2026-11-24 the median lateness fell
  from 74–94 ms to 39–61 ms, and the whole concurrent turn from 4.7–5.6 s to 3.3–4.0 s (three
  alternating runs of each harness build), when the harness stopped building each streamed step
  from object spreads: V8 11 (Node 20) takes a slow path for an object literal with a second spread (about 4 µs), and \`createMessage\` probed
  such an object for every field of \`StepUpdate\` (about 13 µs a message; it now reads the object's
  own keys). Later that day it fell again, from 55–79 ms to 25–49 ms (the turn from 4.1–4.5 s to
  2.6–4.0 s, three alternating runs), when the scripted model stopped adding and removing an abort
  listener on its signal for every pause between chunks (\`timers/promises\` with a signal does;
  one listener now serves the model call): an \`EventTarget\` listener cost more than the timer.
- **Trimming.** A conversation with \`maxHistorySize(1000)\` reads turns of ${results.trim.results.map((t) => n(t.steps)).join(", ")} steps
  from \`bench-server.mjs\` (\`steps:N\`: frames made as they are sent, so a million steps never sit
  in memory). Past 1,000 steps every step trims the oldest one; the time per step of each turn is
  compared with the 10,000-step turn: a ratio near 1 means the cost of trimming does not grow
  with the number of steps.
`;
}
