// The Worker of test/workerd/golden-traces.test.ts: runs one golden-trace scenario
// (test/traces/scenarios.ts) over replayTransport inside workerd. POST /?scenario=NAME with the
// trace as the body; answers {"ok":true} or {"ok":false,"error":...}.
import { replayTransport } from "@antigravity-ts/sdk/replay";
import { SCENARIOS, TRACE_WORKSPACE } from "../traces/scenarios.js";

export default {
  async fetch(request: Request): Promise<Response> {
    const name = new URL(request.url).searchParams.get("scenario");
    const scenario = SCENARIOS.find((s) => s.name === name);
    if (scenario === undefined) return Response.json({ ok: false, error: `no scenario ${name}` }, { status: 404 });
    const replay = replayTransport(await request.text());
    try {
      await scenario.run(replay, { workspace: TRACE_WORKSPACE });
      replay.verify();
      return Response.json({ ok: true, runtime: navigator.userAgent });
    } catch (error) {
      return Response.json({
        ok: false,
        error: error instanceof Error ? error.message : String(error),
        runtime: navigator.userAgent,
      });
    }
  },
};
