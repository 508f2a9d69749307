// The page script of test/browser/golden-traces.spec.ts: runs a golden-trace scenario
// (test/traces/scenarios.ts) over replayTransport in Chromium, driven through `window.replayTest`.
// Bundled from the built SDK for the browser.
import { replayTransport } from "@antigravity-ts/sdk/replay";
import { SCENARIOS, TRACE_WORKSPACE } from "../traces/scenarios.js";

const replayTest = {
  /** Replays `trace` under scenario `name`; resolves to `{ ok: true }` or the error's message. */
  async run(name: string, trace: string): Promise<{ ok: boolean; error?: string; runtime: string }> {
    const scenario = SCENARIOS.find((s) => s.name === name);
    if (scenario === undefined) return { ok: false, error: `no scenario ${name}`, runtime: navigator.userAgent };
    const replay = replayTransport(trace);
    try {
      await scenario.run(replay, { workspace: TRACE_WORKSPACE });
      replay.verify();
      return { ok: true, runtime: navigator.userAgent };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error), runtime: navigator.userAgent };
    }
  },
};

(window as unknown as { replayTest: typeof replayTest }).replayTest = replayTest;
document.body.dataset["ready"] = "true";
