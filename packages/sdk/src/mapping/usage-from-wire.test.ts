import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { decodeOutputEvent } from "../wire/frames.js";
import {
  TrajectoryStateUpdate_StopReason,
  UsageMetadataSchema,
} from "../gen/antigravity/localharness/localharness_pb.js";
import { stopReasonFromWire, usageFromWire } from "./usage-from-wire.js";

describe("usageFromWire (§14)", () => {
  it("is all zeros for a missing or empty message", () => {
    const zeros = {
      promptTokenCount: 0,
      candidatesTokenCount: 0,
      totalTokenCount: 0,
      cachedContentTokenCount: 0,
      thoughtsTokenCount: 0,
    };
    expect(usageFromWire()).toEqual(zeros);
    expect(usageFromWire(create(UsageMetadataSchema))).toEqual(zeros);
  });

  it("converts every uint64 counter to a number and keeps the service tier (upstream parse_usage_metadata)", () => {
    const usage = create(UsageMetadataSchema, {
      promptTokenCount: 10n,
      candidatesTokenCount: 20n,
      totalTokenCount: 36n,
      cachedContentTokenCount: 4n,
      thoughtsTokenCount: 6n,
      serviceTier: "flex",
    });
    expect(usageFromWire(usage)).toEqual({
      promptTokenCount: 10,
      candidatesTokenCount: 20,
      totalTokenCount: 36,
      cachedContentTokenCount: 4,
      thoughtsTokenCount: 6,
      serviceTier: "flex",
    });
    expect(usageFromWire(create(UsageMetadataSchema, { serviceTier: "" }))).not.toHaveProperty("serviceTier");
  });

  it("reads the string counters of a usageUpdate frame", () => {
    const event = decodeOutputEvent(
      '{"seqNum":"7","usageUpdate":{"agents":[{"trajectoryId":"t","usage":{"promptTokenCount":"812","candidatesTokenCount":9}}],"total":{"promptTokenCount":"812","candidatesTokenCount":"9","totalTokenCount":"821"}}}',
    );
    if (event.event.case !== "usageUpdate") throw new Error("expected usageUpdate");
    expect(usageFromWire(event.event.value.total)).toMatchObject({
      promptTokenCount: 812,
      candidatesTokenCount: 9,
      totalTokenCount: 821,
      thoughtsTokenCount: 0,
    });
    expect(usageFromWire(event.event.value.agents[0]?.usage).candidatesTokenCount).toBe(9);
  });

  it("keeps large counts as (possibly rounded) numbers", () => {
    expect(usageFromWire(create(UsageMetadataSchema, { totalTokenCount: 2n ** 40n })).totalTokenCount).toBe(2 ** 40);
  });
});

describe("stopReasonFromWire (§16)", () => {
  it.each([
    [TrajectoryStateUpdate_StopReason.MAX_MODEL_CALLS_EXCEEDED, "MAX_MODEL_CALLS_EXCEEDED"],
    [TrajectoryStateUpdate_StopReason.MAX_TOOL_CALLS_EXCEEDED, "MAX_TOOL_CALLS_EXCEEDED"],
    [TrajectoryStateUpdate_StopReason.MAX_INPUT_TOKENS_EXCEEDED, "MAX_INPUT_TOKENS_EXCEEDED"],
    [TrajectoryStateUpdate_StopReason.MAX_OUTPUT_TOKENS_EXCEEDED, "MAX_OUTPUT_TOKENS_EXCEEDED"],
    [TrajectoryStateUpdate_StopReason.MAX_TOTAL_TOKENS_EXCEEDED, "MAX_TOTAL_TOKENS_EXCEEDED"],
    [TrajectoryStateUpdate_StopReason.QUOTA_EXHAUSTED, "QUOTA_EXHAUSTED"],
  ])("%i → %s", (wire, expected) => {
    expect(stopReasonFromWire(wire)).toBe(expected);
  });

  it("is undefined when unset, unspecified or unknown", () => {
    expect(stopReasonFromWire()).toBeUndefined();
    expect(stopReasonFromWire(TrajectoryStateUpdate_StopReason.UNSPECIFIED)).toBeUndefined();
    expect(stopReasonFromWire(99 as TrajectoryStateUpdate_StopReason)).toBeUndefined();
  });

  it("maps the stop reason of a decoded trajectoryStateUpdate", () => {
    const event = decodeOutputEvent(
      '{"trajectoryStateUpdate":{"trajectoryId":"t","state":"STATE_FULLY_IDLE","stopReason":"STOP_REASON_QUOTA_EXHAUSTED"}}',
    );
    if (event.event.case !== "trajectoryStateUpdate") throw new Error("expected trajectoryStateUpdate");
    expect(stopReasonFromWire(event.event.value.stopReason)).toBe("QUOTA_EXHAUSTED");
  });
});
