import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, harnessConfig, steps, type Frame } from "../test-support/ws-client.js";

// Persistence under storage_directory, resume after a restart (§2.1, §5), continuation modes,
// and compaction (§15).

const SCRIPT = { turns: [{ match: "ping", calls: [{ thinking: "a ping", text: "pong to {{prompt}}" }] }] };
const CASCADE_ID = "resume-test-0123456789abcdef0123456789";

describe("persistence and compaction", () => {
  const fixture = useHarnessFixture({
    name: "persist",
    script: SCRIPT,
    args: (root) => ["--storage", path.join(root, "storage")],
  });
  const storage = (): string => path.join(fixture.root, "storage");

  it("resumes a session after a restart, replaying its history and usage", async () => {
    const first = await fixture.open();
    const init = await first.init(
      harnessConfig(fixture.workspace, { cascadeId: CASCADE_ID, sessionContinuationMode: "CREATE_ONLY" }),
    );
    expect(init["cascadeId"]).toBe(CASCADE_ID);
    first.prompt("ping one");
    const turn = await first.turn();
    const before = finalSteps(turn);
    const usage = turn.filter((f) => f["usageUpdate"]).at(-1)?.["usageUpdate"].total as Frame;
    first.close();
    await first.closed;

    const stopped = fixture.harness;
    expect(await fixture.restart()).toEqual({ code: 0, signal: null });
    expect(stopped.stderr()).toContain("SIGTERM received, cleaning up...");
    expect(await readdir(storage())).toEqual([`${CASCADE_ID}.json`]);

    const second = await fixture.open();
    const resumed = await second.init(
      harnessConfig(fixture.workspace, { cascadeId: CASCADE_ID, sessionContinuationMode: "RESUME" }),
    );
    expect(resumed["cascadeId"]).toBe(CASCADE_ID);
    // The history holds the final state of each step, without the per-update deltas.
    expect(resumed["history"]).toEqual(before.map(({ textDelta, thinkingDelta, ...rest }) => rest));
    expect(resumed["cumulativeUsage"]).toEqual(usage);
    expect(resumed["trajectoryUsage"]).toEqual([{ trajectoryId: CASCADE_ID, usage }]);

    second.prompt("ping two");
    const next = await second.turn();
    expect(Math.min(...steps(next).map((s) => s.stepIndex))).toBe(before.length);
    expect(finalSteps(next).at(-1)?.["text"]).toBe("pong to ping two");
    const total = next.filter((f) => f["usageUpdate"]).at(-1)?.["usageUpdate"].total as Frame;
    expect(Number(total.totalTokenCount)).toBeGreaterThan(Number(usage["totalTokenCount"]));
    second.close();
    await second.closed;

    const stored = JSON.parse(await readFile(path.join(storage(), `${CASCADE_ID}.json`), "utf8")) as Frame;
    expect(stored["transcript"].filter((m: Frame) => m["role"] === "user").map((m: Frame) => m["text"])).toEqual([
      "ping one",
      "ping two",
    ]);
  });

  it("refuses CREATE_ONLY for an existing id, RESUME for a missing one, and a second connection to an open session", async () => {
    const refused = async (config: Frame): Promise<{ code: number; reason: string }> => {
      const client = await fixture.open();
      client.send({ config });
      return client.closed;
    };
    expect(
      await refused(
        harnessConfig(fixture.workspace, { cascadeId: CASCADE_ID, sessionContinuationMode: "CREATE_ONLY" }),
      ),
    ).toEqual({
      code: 1008,
      reason: `session ${CASCADE_ID} already exists (sessionContinuationMode CREATE_ONLY)`,
    });
    const missing = await refused(
      harnessConfig(fixture.workspace, {
        cascadeId: "missing-0123456789abcdef0123456789ab",
        sessionContinuationMode: "RESUME",
      }),
    );
    expect(missing.code).toBe(1008);
    expect(missing.reason).toContain("no stored session missing-0123456789abcdef0123456789ab");
    expect(
      await refused(harnessConfig(fixture.workspace, { cascadeId: "", sessionContinuationMode: "RESUME" })),
    ).toMatchObject({ code: 1008 });

    const open = await fixture.connect({ cascadeId: CASCADE_ID });
    expect(await refused(harnessConfig(fixture.workspace, { cascadeId: CASCADE_ID }))).toEqual({
      code: 1008,
      reason: `session ${CASCADE_ID} is already open on another connection`,
    });
    open.close();
  });

  it("compacts the transcript past compactionThreshold: a COMPACTION step and the ON_COMPACTION hook", async () => {
    const client = await fixture.connect({ compactionThreshold: 100, enabledHooks: ["LIFECYCLE_HOOK_ON_COMPACTION"] });
    client.prompt(`ping ${"x".repeat(600)}`);
    const first = await client.turn();
    expect(steps(first).some((s) => s.compaction !== undefined)).toBe(false);

    client.prompt("ping again");
    const hook = (
      await client.next((f) => f["callHookRequest"]?.type === "LIFECYCLE_HOOK_ON_COMPACTION", "ON_COMPACTION")
    )["callHookRequest"] as Frame;
    const compaction = finalSteps(client.frames).find((s) => s.compaction !== undefined) as Frame;
    expect(compaction).toMatchObject({ state: "STATE_DONE", compaction: {} });
    expect(hook["onCompactionArgs"]).toMatchObject({
      trajectoryId: compaction["trajectoryId"],
      stepIndex: compaction["stepIndex"],
    });
    expect(hook["onCompactionArgs"].summary).toMatch(
      /^Summary of the earlier conversation \(2 messages compacted\):\n- user: ping x+…\n- model: pong to ping x+…$/,
    );
    client.send({ callHookResponse: { requestId: hook["requestId"], emptyResult: {} } });
    const second = await client.turn();
    expect(finalSteps(second).at(-1)?.["text"]).toBe("pong to ping again");
    client.close();
  });
});
