// Records the golden traces of the acp and interactions wires (WIRE_SCENARIOS of test/traces/scenarios.ts)
// against the reference harness: `antigravity-harness --acp` spawned by Node's acpAgent, its
// stream recorded by streamRecorder; the Interactions API emulator reached through
// recordingFetch. Both play test/traces/script.json with the scripted model, in a fixed-length
// /tmp workspace written as /workspace (the scripted usage counts the prompt that names it).
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";
import { acpAgent } from "@antigravity-ts/node/acp";
import {
  compareTraces,
  createMemoryTraceSink,
  formatTraceDifferences,
  recordingFetch,
  streamRecorder,
} from "@antigravity-ts/sdk/replay";
import { parseScript, startInteractionsEmulator } from "@antigravity-ts/harness";
import { ensureReferenceHarness } from "@antigravity-ts/test-kit";
import type { DriftReport } from "./record.js";
import { TRACE_WORKSPACE, WIRE_SCENARIOS, type WireScenario } from "./scenarios.js";

const SCRIPT = fileURLToPath(new URL("./script.json", import.meta.url));
/** The emulator's key: any, since every header value is redacted. */
const EMULATOR_KEY = "golden-trace-emulator-key";

/** The golden trace file of `scenario`: test/traces/<wire>/<name>.ndjson. */
export function wireTracePath(scenario: WireScenario): string {
  return fileURLToPath(new URL(`./${scenario.wire}/${scenario.name}.ndjson`, import.meta.url));
}

/** Runs `scenario` against a fresh reference harness (or emulator) and returns its trace. */
export async function recordWireScenario(scenario: WireScenario): Promise<string> {
  const harness = await ensureReferenceHarness(); // before the recording starts: a build would count into t
  const workspace = await mkdtemp("/tmp/agtrace-ws-");
  const places = [...new Set([await realpath(workspace), workspace])];
  const redact = (value: string): string =>
    places.reduce((out, place) => out.split(place).join(TRACE_WORKSPACE), value);
  const sink = createMemoryTraceSink();
  const meta = { scenario: scenario.name };
  try {
    if (scenario.wire === "acp") {
      const recorder = streamRecorder(sink, {
        redact,
        meta: { ...meta, peer: "antigravity-harness --acp, scripted model playing test/traces/script.json" },
      });
      await scenario.run(
        acpAgent({
          command: harness,
          args: ["--acp", "--script", SCRIPT],
          cwd: workspace,
          wrapStream: recorder.wrap,
        }),
        { workspace },
      );
      await recorder.close();
    } else {
      const emulator = await startInteractionsEmulator({
        apiKey: EMULATOR_KEY,
        host: "127.0.0.1",
        port: 0,
        workspace,
        script: parseScript(JSON.parse(readFileSync(SCRIPT, "utf8"))),
      });
      const recorder = recordingFetch(globalThis.fetch, sink, {
        redact,
        meta: {
          ...meta,
          peer: "antigravity-harness --interactions-api, scripted model playing test/traces/script.json",
        },
      });
      try {
        await scenario.run(hostedAgent({ apiKey: EMULATOR_KEY, baseUrl: emulator.url, fetch: recorder.fetch }), {
          workspace,
        });
      } finally {
        await recorder.close();
        await emulator.close();
      }
    }
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
  return sink.text();
}

/** Re-records each scenario and compares it with its stored trace (the drift check of these wires). */
export async function checkWireDrift(scenarios: readonly WireScenario[] = WIRE_SCENARIOS): Promise<DriftReport[]> {
  const reports: DriftReport[] = [];
  for (const scenario of scenarios) {
    const fresh = await recordWireScenario(scenario);
    const path = wireTracePath(scenario);
    const missing = !existsSync(path);
    const diff = missing ? "" : formatTraceDifferences(compareTraces(await readFile(path, "utf8"), fresh));
    reports.push({ scenario, path, missing, diff, fresh });
  }
  return reports;
}
