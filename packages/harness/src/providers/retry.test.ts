import { create, RetryConfigSchema } from "@antigravity-ts/sdk/wire";
import { describe, expect, it } from "vitest";
import { ModelError } from "../model/provider.js";
import { MAX_RETRY_DELAY_MS, NO_RETRIES, isTransient, retryDelayMs, retryPolicyFrom, withRetries } from "./retry.js";

describe("API retries (retryConfig.apiRetry)", () => {
  it("reads the policy from the config, with defaults for the unset fields", () => {
    expect(retryPolicyFrom(undefined)).toEqual(NO_RETRIES);
    expect(retryPolicyFrom(create(RetryConfigSchema, { modelOutputRetry: { maxRetries: 3 } }))).toEqual(NO_RETRIES);
    expect(retryPolicyFrom(create(RetryConfigSchema, { apiRetry: { maxRetries: 4 } }))).toEqual({
      maxRetries: 4,
      initialDelayMs: 1000,
      multiplier: 2,
      jitter: 0.1,
    });
    const full = create(RetryConfigSchema, {
      apiRetry: { maxRetries: 2, initialSleepDurationMs: 5, exponentialMultiplier: 3, jitterRange: 0.5 },
    });
    expect(retryPolicyFrom(full)).toEqual({ maxRetries: 2, initialDelayMs: 5, multiplier: 3, jitter: 0.5 });
    // hostile numbers cannot make waits negative, NaN or unbounded
    const odd = retryPolicyFrom(
      create(RetryConfigSchema, { apiRetry: { maxRetries: 1, exponentialMultiplier: Number.NaN, jitterRange: 7 } }),
    );
    expect(odd).toMatchObject({ multiplier: 2, jitter: 1 });
  });

  it("backs off exponentially with bounded jitter, capped at a minute", () => {
    const policy = { maxRetries: 9, initialDelayMs: 100, multiplier: 2, jitter: 0.5 };
    expect([0, 1, 2].map((n) => retryDelayMs(policy, n, () => 0.5))).toEqual([100, 200, 400]);
    expect(retryDelayMs(policy, 1, () => 0)).toBe(100);
    expect(retryDelayMs(policy, 1, () => 1)).toBe(300);
    expect(retryDelayMs({ ...policy, initialDelayMs: 1000 }, 4_294_967_294, () => 1)).toBe(MAX_RETRY_DELAY_MS);
  });

  it("retries only transient failures: no response, 408, 429, 5xx gateway errors", () => {
    for (const code of [0, 408, 429, 500, 502, 503, 504]) expect(isTransient(new ModelError("x", code))).toBe(true);
    for (const code of [400, 401, 403, 404, 501]) expect(isTransient(new ModelError("x", code))).toBe(false);
    expect(isTransient(new Error("not a model error"))).toBe(false);
  });

  it("runs until success, a permanent error, or the retries are spent", async () => {
    const policy = { maxRetries: 2, initialDelayMs: 0, multiplier: 1, jitter: 0 };
    const signal = new AbortController().signal;
    let calls = 0;
    expect(
      await withRetries(policy, signal, async () => (++calls < 3 ? Promise.reject(new ModelError("busy", 503)) : "ok")),
    ).toBe("ok");
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      withRetries(policy, signal, async () => Promise.reject(new ModelError(`busy ${++calls}`, 503))),
    ).rejects.toThrow("busy 3");
    calls = 0;
    await expect(
      withRetries(policy, signal, async () => Promise.reject(new ModelError(`bad ${++calls}`, 400))),
    ).rejects.toThrow("bad 1");
  });

  it("stops waiting at once when the turn is halted", async () => {
    const controller = new AbortController();
    const policy = { maxRetries: 5, initialDelayMs: 3_600_000, multiplier: 1, jitter: 0 };
    let calls = 0;
    const running = withRetries(policy, controller.signal, async () => {
      calls++;
      // aborted while waiting for the second attempt (an hour away)
      setTimeout(() => controller.abort(new Error("halted")), 0);
      throw new ModelError("busy", 503);
    });
    await expect(running).rejects.toThrow("halted");
    expect(calls).toBe(1);
  });
});
