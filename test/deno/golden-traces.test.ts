// The golden traces under Deno: each scenario of test/traces/scenarios.ts runs on the built SDK
// over replayTransport, the harness's side played from the trace recorded against the reference
// harness. No harness and no socket: what runs is the SDK's own session logic in Deno.
import assert from "node:assert/strict";
import { replayTransport } from "@antigravity-ts/sdk/replay";
import {
  SCENARIOS,
  TRACE_WORKSPACE,
  USER_SCENARIO,
  withChangedToolResult,
  type TraceScenario,
} from "../traces/scenarios.ts";

const read = (scenario: TraceScenario): Promise<string> =>
  Deno.readTextFile(new URL(`../traces/localharness/${scenario.name}.ndjson`, import.meta.url));

for (const scenario of SCENARIOS) {
  Deno.test(`golden trace ${scenario.name}: ${scenario.description}`, async () => {
    const replay = replayTransport(await read(scenario));
    await scenario.run(replay, { workspace: TRACE_WORKSPACE });
    replay.verify();
  });
}

Deno.test(`a user's test replaying ${USER_SCENARIO.description} fails with the diff once one client frame of the trace changed`, async () => {
  const replay = replayTransport(withChangedToolResult(await read(USER_SCENARIO)));
  const error = await USER_SCENARIO.run(replay, { workspace: TRACE_WORKSPACE }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  assert.ok(error !== undefined, "the changed trace replayed without an error");
  assert.match(
    error.message,
    /^replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame 3 of \d+, toolResponse, t=[\d.]+ ms\):/,
  );
  assert.match(
    error.message,
    /at toolResponse\.responseJson: differs\n {4}expected: "\{\\"sum\\":6\}"\n {4}got: {6}"\{\\"sum\\":5\}"/,
  );
  assert.throws(() => replay.verify(), error);
});
