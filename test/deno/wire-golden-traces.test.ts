// The golden traces of the acp and interactions wires under Deno: each session of
// test/traces/scenarios.ts (WIRE_SCENARIOS) runs on the built SDK — the core acpAgent over replayStream, the
// hostedAgent over replayFetch — with no agent process and no server, and a changed request
// fails with the diff. Run: npx deno test -A --no-check test/deno/
import assert from "node:assert/strict";
import { TRACE_WORKSPACE, WIRE_SCENARIOS, wireReplay, type WireScenario } from "../traces/scenarios.ts";

const read = (scenario: WireScenario): Promise<string> =>
  Deno.readTextFile(new URL(`../traces/${scenario.wire}/${scenario.name}.ndjson`, import.meta.url));

for (const scenario of WIRE_SCENARIOS) {
  Deno.test(`golden trace ${scenario.name} (wire ${scenario.wire}): ${scenario.description}`, async () => {
    const replay = wireReplay(scenario, await read(scenario));
    await scenario.run(replay.connection, { workspace: TRACE_WORKSPACE });
    replay.verify();
  });
}

Deno.test("the hosted golden trace fails with the diff once one request of it changed", async () => {
  const scenario = WIRE_SCENARIOS.find((s) => s.wire === "interactions") as WireScenario;
  const changed = (await read(scenario)).replace('"input":"hello there"', '"input":"hello here"');
  const replay = wireReplay(scenario, changed);
  const error = await scenario.run(replay.connection, { workspace: TRACE_WORKSPACE }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  assert.ok(error !== undefined, "the changed trace replayed without an error");
  assert.throws(
    () => replay.verify(),
    /replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame 1 of 1, POST \/v1beta\/interactions[^)]*\):\n {2}at body\.input: differs\n {4}expected: "hello here"\n {4}got: {6}"hello there"/,
  );
});
