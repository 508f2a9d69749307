import { describe, expect, it } from "vitest";
import { emptyUsage } from "./step.js";
import type { UsageMetadata } from "./step.js";
import { ErrorCode } from "./errors.js";
import { addUsage, computeTurnUsage, scaleUsage, subtractUsage, sumUsage, usageEquals } from "./usage.js";

const u = (prompt: number, candidates: number, total: number, cached = 0, thoughts = 0): UsageMetadata => ({
  promptTokenCount: prompt,
  candidatesTokenCount: candidates,
  totalTokenCount: total,
  cachedContentTokenCount: cached,
  thoughtsTokenCount: thoughts,
});

describe("usage arithmetic", () => {
  it("adds and subtracts every field", () => {
    expect(addUsage(u(1, 2, 3, 4, 5), u(10, 20, 30, 40, 50))).toEqual(u(11, 22, 33, 44, 55));
    expect(subtractUsage(u(11, 22, 33, 44, 55), u(1, 2, 3, 4, 5))).toEqual(u(10, 20, 30, 40, 50));
  });

  it("floors a subtraction at zero", () => {
    expect(subtractUsage(u(1, 1, 1), u(5, 0, 2))).toEqual(u(0, 1, 0));
  });

  it("compares every field", () => {
    expect(usageEquals(u(1, 2, 3, 4, 5), u(1, 2, 3, 4, 5))).toBe(true);
    expect(usageEquals(u(1, 2, 3, 4, 5), u(1, 2, 3, 4, 6))).toBe(false);
  });
});

// Upstream 0.1.17's UsageMetadata arithmetic (types.py, Stars1233 @4bfe2531: __add__, __radd__, __mul__).
describe("usage sums and scaling (upstream UsageMetadata arithmetic)", () => {
  it("sums any number of usages, zero for none, merging tiers as __add__ does", () => {
    expect(sumUsage([])).toEqual(emptyUsage());
    expect(sumUsage([u(1, 2, 3), u(10, 20, 30), u(100, 200, 300, 7, 9)])).toEqual(u(111, 222, 333, 7, 9));
    const priority = { ...u(1, 1, 2), serviceTier: "priority" };
    expect(sumUsage([priority, u(1, 1, 2)]).serviceTier).toBe("priority");
    expect(sumUsage([priority, { ...u(1, 1, 2), serviceTier: "flex" }]).serviceTier).toBe("standard");
    expect(sumUsage(new Set([u(2, 0, 2)]))).toEqual(u(2, 0, 2)); // any iterable
  });

  it("scales every counter by a finite factor >= 0, rounding, keeping the tier", () => {
    expect(scaleUsage({ ...u(10, 3, 13, 5, 1), serviceTier: "priority" }, 1.5)).toEqual({
      ...u(15, 4, 20, 8, 2), // 4.5 → 4 and 7.5 → 8: Python's round, half to even
      serviceTier: "priority",
    });
    expect(scaleUsage(u(7, 7, 14), 0)).toEqual(u(0, 0, 0));
    expect(scaleUsage(sumUsage([u(4, 2, 6), u(2, 4, 6)]), 1 / 2)).toEqual(u(3, 3, 6));
    for (const factor of [-1, Number.NaN, Number.POSITIVE_INFINITY, "2" as unknown as number])
      expect(() => scaleUsage(u(1, 1, 2), factor)).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidArgument }),
      );
  });
});

describe("computeTurnUsage", () => {
  it("uses the connection total's movement when it moved (§14 usageUpdate)", () => {
    const r = computeTurnUsage({
      totalAtStart: u(10, 5, 15),
      totalAtEnd: u(30, 9, 39, 0, 2),
      stepUsages: [u(999, 999, 999)],
    });
    expect(r).toEqual({ usage: u(20, 4, 24, 0, 2), fromSteps: false });
  });

  it("a move in any single field counts as movement", () => {
    const r = computeTurnUsage({ totalAtStart: u(1, 1, 1), totalAtEnd: u(1, 1, 1, 0, 3), stepUsages: [u(5, 5, 5)] });
    expect(r).toEqual({ usage: u(0, 0, 0, 0, 3), fromSteps: false });
  });

  it("falls back to summing per-step usage when the total did not move (legacy harness)", () => {
    const r = computeTurnUsage({
      totalAtStart: u(7, 7, 7),
      totalAtEnd: u(7, 7, 7),
      stepUsages: [u(1, 2, 3), u(10, 20, 30, 1, 2)],
    });
    expect(r).toEqual({ usage: u(11, 22, 33, 1, 2), fromSteps: true });
  });

  it("is zero and not from steps when nothing reported usage", () => {
    expect(computeTurnUsage({ totalAtStart: emptyUsage(), totalAtEnd: emptyUsage(), stepUsages: [] })).toEqual({
      usage: emptyUsage(),
      fromSteps: false,
    });
  });
});
