import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkJsonSchema } from "@antigravity-ts/sdk/internal";
import { replayTransport } from "@antigravity-ts/sdk/replay";
import {
  SCENARIOS,
  TRACE_WORKSPACE,
  USER_SCENARIO,
  WIRE_SCENARIOS,
  wireReplay,
  withChangedToolResult,
  type TraceScenario,
} from "../../traces/scenarios.js";
import { wireTracePath } from "../../traces/record-wires.js";

// The golden traces under Node (vitest, the SDK's sources): each scenario's session runs again
// over replayTransport, the peer's frames coming from the trace recorded against the reference
// harness. Deno, workerd and Chromium run the same scenarios on the built SDK (test/deno,
// test/workerd, test/browser).

const read = (scenario: TraceScenario): string =>
  readFileSync(new URL(`../../traces/localharness/${scenario.name}.ndjson`, import.meta.url), "utf8");

type Schema = { [key: string]: unknown };
const SCHEMA = JSON.parse(readFileSync(new URL("../../../docs/trace.schema.json", import.meta.url), "utf8")) as {
  version: number;
  $defs: Record<string, Schema>;
};

/** A branch of docs/trace.schema.json in the keywords checkJsonSchema knows: `$ref` resolved, `const` as a one-value `enum`. */
function plain(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plain);
  if (schema === null || typeof schema !== "object") return schema;
  const s = schema as Schema;
  if (typeof s["$ref"] === "string") return plain(SCHEMA.$defs[s["$ref"].replace("#/$defs/", "")]);
  return Object.fromEntries(
    Object.entries(s).map(([key, value]) => (key === "const" ? ["enum", [value]] : [key, plain(value)])),
  );
}

/** The problems of one trace line: the header, or the event branch its `kind` picks. */
function lineProblems(line: Record<string, unknown>, first: boolean): string[] {
  if (first) return checkJsonSchema(line, plain(SCHEMA.$defs["header"]));
  const branch = (SCHEMA.$defs["event"]?.["oneOf"] as Schema[]).find(
    (b) => (b["properties"] as Record<string, Schema>)["kind"]?.["const"] === line["kind"],
  );
  if (branch === undefined) return [`no branch for kind ${String(line["kind"])}`];
  return checkJsonSchema(line, plain(branch));
}

const traces: (readonly [string, string])[] = [
  ...SCENARIOS.map((s) => [s.name, read(s)] as const),
  ...WIRE_SCENARIOS.map((s) => [s.name, readFileSync(wireTracePath(s), "utf8")] as const),
];

describe("docs/trace.schema.json", () => {
  it.each(traces)("describes every line of the golden trace %s", (_name, text) => {
    const lines = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(SCHEMA.version).toBe(lines[0]?.["version"]);
    expect(
      lines.flatMap((line, i) => lineProblems(line, i === 0).map((problem) => `line ${i + 1}: ${problem}`)),
    ).toEqual([]);
    expect(lineProblems({ ...lines[1], kind: "frame", from: "server" }, false)).not.toEqual([]); // the check can fail
  });
});

describe.each(WIRE_SCENARIOS)("golden trace $name (wire $wire)", (scenario) => {
  it(`replays ${scenario.description} with no process and no server, leniently and strictly`, async () => {
    for (const match of ["lenient", "strict"] as const) {
      const replay = wireReplay(scenario, readFileSync(wireTracePath(scenario), "utf8"), { match });
      await scenario.run(replay.connection, { workspace: TRACE_WORKSPACE });
      replay.verify();
    }
  });
});

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
    expect(error?.message).toMatch(
      /^replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame 3 of \d+, toolResponse, t=[\d.]+ ms\):/,
    );
    expect(error?.message).toContain("at toolResponse.responseJson: differs");
    expect(error?.message).toContain('expected: "{\\"sum\\":6}"');
    expect(error?.message).toContain('got:      "{\\"sum\\":5}"');
    expect(replay.mismatch).toBe(error);
    expect(() => replay.verify()).toThrow(error);
  });
});
