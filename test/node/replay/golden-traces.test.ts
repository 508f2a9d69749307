import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { replayTransport } from "@antigravity-ts/sdk/replay";
import { SCENARIOS, TRACE_WORKSPACE, USER_SCENARIO, withChangedToolResult, type TraceScenario } from "../../traces/scenarios.js";

// The golden traces under Node (vitest, the SDK's sources): each scenario's session runs again
// over replayTransport, the peer's frames coming from the trace recorded against the reference
// harness. Deno, workerd and Chromium run the same scenarios on the built SDK (test/deno,
// test/workerd, test/browser).

const read = (scenario: TraceScenario): string => readFileSync(new URL(`../../traces/localharness/${scenario.name}.ndjson`, import.meta.url), "utf8");

describe.each(SCENARIOS)("golden trace $name", (scenario) => {
  it(`replays ${scenario.description}`, async () => {
    const replay = replayTransport(read(scenario));
    await scenario.run(replay, { workspace: TRACE_WORKSPACE });
    replay.verify();
  });
});

describe(`a user's test replaying ${USER_SCENARIO.description}`, () => {
  it("passes leniently and strictly", async () => {
    for (const match of ["lenient", "strict"] as const) {
      const replay = replayTransport(read(USER_SCENARIO), { match });
      await USER_SCENARIO.run(replay, { workspace: TRACE_WORKSPACE });
      replay.verify();
    }
  });

  it("fails with the diff when one client frame of the trace was changed", async () => {
    const replay = replayTransport(withChangedToolResult(read(USER_SCENARIO)));
    const error = await USER_SCENARIO.run(replay, { workspace: TRACE_WORKSPACE }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // The user's own test fails with the diff itself: where, what the trace expected, what came.
    expect(error?.message).toMatch(/^replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame 3 of \d+, toolResponse, t=[\d.]+ ms\):/);
    expect(error?.message).toContain("at toolResponse.responseJson: differs");
    expect(error?.message).toContain('expected: "{\\"sum\\":6}"');
    expect(error?.message).toContain('got:      "{\\"sum\\":5}"');
    expect(replay.mismatch).toBe(error);
    expect(() => replay.verify()).toThrow(error);
  });
});
