import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { HarnessConfig_SessionContinuationMode, HarnessConfigSchema, create } from "../wire/index.js";
import { backoffDelay, reconnectPolicy, resumeConfig, sleep } from "../transport/reconnect.js";

describe("reconnect policy", () => {
  it("backs off exponentially and never above maxDelayMs, even after many attempts", () => {
    const policy = reconnectPolicy({ initialDelayMs: 10, maxDelayMs: 300 });
    expect([0, 1, 2, 3, 4, 5].map((attempt) => backoffDelay(policy, attempt))).toEqual([10, 20, 40, 80, 160, 300]);
    expect(backoffDelay(policy, 10_000)).toBe(300);
    expect(Number.isFinite(backoffDelay(reconnectPolicy({ initialDelayMs: 1, maxDelayMs: 1e9 }), 5_000))).toBe(true);
  });

  it("has bounded defaults and refuses unusable values with InvalidArgument naming the field", () => {
    expect(reconnectPolicy({})).toMatchObject({ maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 5_000 });
    for (const [options, field] of [
      [{ maxAttempts: 0 }, "maxAttempts"],
      [{ maxAttempts: Infinity }, "maxAttempts"],
      [{ maxAttempts: 1.5 }, "maxAttempts"],
      [{ initialDelayMs: -1 }, "initialDelayMs"],
      [{ initialDelayMs: Number.NaN }, "initialDelayMs"],
      [{ initialDelayMs: 50, maxDelayMs: 10 }, "maxDelayMs"],
      [{ maxDelayMs: Infinity }, "maxDelayMs"],
    ] as const) {
      expect(() => reconnectPolicy(options)).toThrow(
        expect.objectContaining({
          code: ErrorCode.InvalidArgument,
          message: expect.stringContaining(`reconnect.${field}`),
        }),
      );
    }
  });

  it("resumes the same session: same config, the learned cascadeId, mode RESUME", () => {
    const config = create(HarnessConfigSchema, {
      cascadeId: "",
      compactionThreshold: 7,
      sessionContinuationMode: HarnessConfig_SessionContinuationMode.CREATE_ONLY,
    });
    const resumed = resumeConfig(config, "abc-123");
    expect(resumed).toMatchObject({
      cascadeId: "abc-123",
      compactionThreshold: 7,
      sessionContinuationMode: HarnessConfig_SessionContinuationMode.RESUME,
    });
    expect(config.cascadeId).toBe(""); // the original is untouched
  });

  it("sleep ends at once with the signal's reason when aborted", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error("closed"));
    await expect(waiting).rejects.toThrow("closed");
  });
});
