import { describe, expect, it } from "vitest";
import { frameProblem } from "./frame-check.js";

// The checker every end-to-end test runs on every harness frame must itself catch deviations.

const ok = {
  seqNum: "3",
  timestampMicros: "1766000000000000",
  trajectoryStateUpdate: { trajectoryId: "t", state: "STATE_FULLY_IDLE" },
};

describe("frameProblem", () => {
  it("accepts a canonical OutputEvent with the expected seqNum", () => {
    expect(frameProblem(ok, 3n)).toBeUndefined();
    const usage = { promptTokenCount: "10", candidatesTokenCount: "2", totalTokenCount: "12" };
    expect(
      frameProblem(
        { seqNum: "3", timestampMicros: "1", usageUpdate: { agents: [{ trajectoryId: "t", usage }], total: usage } },
        3n,
      ),
    ).toBeUndefined();
  });

  it.each([
    ["seqNum as a number", { ...ok, seqNum: 3 }, /seqNum must be an int64 decimal string/],
    [
      "timestampMicros missing",
      { seqNum: "3", trajectoryStateUpdate: ok.trajectoryStateUpdate },
      /timestampMicros must be/,
    ],
    ["a skipped seqNum", { ...ok, seqNum: "4" }, /seqNum 4 where 3 was due/],
    ["no event", { seqNum: "3", timestampMicros: "1" }, /exactly one OutputEvent event/],
    ["two events", { ...ok, sessionEndResponse: true }, /exactly one OutputEvent event/],
    ["an invented top-level field", { ...ok, turnId: "x" }, /exactly one OutputEvent event/],
    [
      "an invented nested field",
      { ...ok, trajectoryStateUpdate: { ...ok.trajectoryStateUpdate, idle: true } },
      /does not decode strictly/,
    ],
    [
      "an unknown enum name",
      { ...ok, trajectoryStateUpdate: { trajectoryId: "t", state: "STATE_DORMANT" } },
      /does not decode strictly/,
    ],
    // STATE_IDLE is the pre-2026-07-21 alias of value 2 (§6.3): decodable, but not what the harness must send.
    [
      "the retired STATE_IDLE name",
      { ...ok, trajectoryStateUpdate: { trajectoryId: "t", state: "STATE_IDLE" } },
      /not canonical/,
    ],
    ["an enum as a number", { ...ok, trajectoryStateUpdate: { trajectoryId: "t", state: 2 } }, /not canonical/],
    [
      "an int64 counter as a number",
      { seqNum: "3", timestampMicros: "1", usageUpdate: { total: { totalTokenCount: 12 } } },
      /not canonical/,
    ],
    [
      "a snake_case name",
      { ...ok, trajectoryStateUpdate: { trajectory_id: "t", state: "STATE_RUNNING" } },
      /not canonical/,
    ],
  ])("rejects %s", (_name, frame, problem) => {
    expect(frameProblem(JSON.parse(JSON.stringify(frame)), 3n)).toMatch(problem);
  });
});
