// Records the golden traces' scenarios against the reference harness (a real child process with
// its scripted model, through SubprocessTransport, so the handshake is in the trace too) and
// compares them with the stored ones: the drift check of `npm run traces:check`, and what
// `npm run traces:update` writes.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { SubprocessTransport } from "@antigravity-ts/node";
import {
  compareTraces,
  createMemoryTraceSink,
  formatTraceDifferences,
  recordingTransport,
  type RedactionContext,
} from "@antigravity-ts/sdk/replay";
import { ensureReferenceHarness } from "@antigravity-ts/test-kit";
import { SCENARIOS, TRACE_WORKSPACE, type TraceScenario } from "./scenarios.js";

/** Where the golden traces live (one file per scenario). */
export const TRACES_DIR = fileURLToPath(new URL("./localharness/", import.meta.url));
const SCRIPT = fileURLToPath(new URL("./script.json", import.meta.url));
/** Client info that differs per machine, written as this so a trace is the same wherever it is recorded. */
const MACHINE_INFO = new Set(["languageVersion", "os", "osVersion"]);

/** The golden trace file of `scenario`. */
export function tracePath(scenario: TraceScenario): string {
  return `${TRACES_DIR}${scenario.name}.ndjson`;
}

/**
 * Runs `scenario` against a fresh reference harness and returns its trace. The machine's paths
 * (workspace, storage) are written as `/workspace` and `/storage`; the workspace lives under
 * `/tmp` with a fixed-length name, because the scripted model counts the system prompt, which
 * names it, into its usage.
 */
export async function recordScenario(scenario: TraceScenario): Promise<string> {
  const harnessPath = await ensureReferenceHarness();
  const workspace = await mkdtemp("/tmp/agtrace-ws-");
  const storage = await mkdtemp("/tmp/agtrace-st-");
  const places: [string, string][] = [
    [await realpath(workspace), TRACE_WORKSPACE],
    [workspace, TRACE_WORKSPACE],
    [await realpath(storage), "/storage"],
    [storage, "/storage"],
  ];
  const redact = (value: string, { source, path }: RedactionContext): string => {
    if (source === "handshake" && path[0] === "input" && path[1] === "clientInfo" && MACHINE_INFO.has(String(path[2])))
      return "-";
    let out = value;
    for (const [real, shown] of places) out = out.split(real).join(shown);
    return out;
  };
  const sink = createMemoryTraceSink();
  const transport = recordingTransport(
    new SubprocessTransport({
      harnessPath,
      saveDir: storage,
      allowBundledHarness: false,
      env: { ANTIGRAVITY_MODEL_PROVIDER: "scripted", ANTIGRAVITY_SCRIPT: SCRIPT },
    }),
    sink,
    {
      redact,
      meta: { scenario: scenario.name, peer: "antigravity-harness, scripted model playing test/traces/script.json" },
    },
  );
  try {
    await scenario.run(transport, { workspace });
    await transport.close();
  } finally {
    await rm(workspace, { recursive: true, force: true });
    await rm(storage, { recursive: true, force: true });
  }
  return sink.text();
}

/** What the drift check found for one scenario. */
export interface DriftReport {
  scenario: { readonly name: string };
  /** The stored trace's file. */
  path: string;
  /** No stored trace yet. */
  missing: boolean;
  /** The differences, as `formatTraceDifferences` writes them; empty when nothing drifted. */
  diff: string;
  /** The fresh recording. */
  fresh: string;
}

/** Re-records each scenario and compares it with its stored trace. */
export async function checkDrift(scenarios: readonly TraceScenario[] = SCENARIOS): Promise<DriftReport[]> {
  const reports: DriftReport[] = [];
  for (const scenario of scenarios) {
    const fresh = await recordScenario(scenario);
    const path = tracePath(scenario);
    if (!existsSync(path)) {
      reports.push({ scenario, path, missing: true, diff: "", fresh });
      continue;
    }
    const differences = compareTraces(await readFile(path, "utf8"), fresh);
    reports.push({ scenario, path, missing: false, diff: formatTraceDifferences(differences), fresh });
  }
  return reports;
}

/** Writes the fresh recordings of the reports that drifted (or are missing), or of all with `force`; returns the files written. */
export async function writeTraces(reports: readonly DriftReport[], force = false): Promise<string[]> {
  const written: string[] = [];
  for (const report of reports) {
    if (!force && !report.missing && report.diff === "") continue;
    await writeFile(report.path, report.fresh);
    written.push(report.path);
  }
  return written;
}
