import { describe, expect, it } from "vitest";
import { parseCron } from "./cron.js";

const at = (text: string) => new Date(text);

describe("parseCron", () => {
  it("finds the next run of steps, ranges and lists, in local time", () => {
    expect(parseCron("*/15 * * * *").nextAfter(at("2026-03-02T10:07:30"))).toEqual(at("2026-03-02T10:15:00"));
    expect(parseCron("0 9-17/4 * * *").nextAfter(at("2026-03-02T10:00:00"))).toEqual(at("2026-03-02T13:00:00"));
    expect(parseCron("5,35 8 * * *").nextAfter(at("2026-03-02T08:05:00"))).toEqual(at("2026-03-02T08:35:00"));
    expect(parseCron("0 0 1 1 *").nextAfter(at("2026-03-02T00:00:00"))).toEqual(at("2027-01-01T00:00:00"));
  });

  it("takes 7 as Sunday and ORs restricted day fields, as cron does", () => {
    // 2026-03-02 is a Monday.
    expect(parseCron("0 12 * * 7").nextAfter(at("2026-03-02T00:00:00"))).toEqual(at("2026-03-08T12:00:00"));
    expect(parseCron("0 12 10 * 0").nextAfter(at("2026-03-02T00:00:00"))).toEqual(at("2026-03-08T12:00:00"));
  });

  it("says when a schedule never comes", () => {
    expect(parseCron("0 0 31 2 *").nextAfter(at("2026-03-02T00:00:00"))).toBeUndefined();
  });

  it("refuses what is not five valid fields, saying what is accepted", () => {
    for (const [expression, message] of [
      ["@daily", /5 fields/],
      ["* * * *", /5 fields/],
      ["60 * * * *", /minute "60" is outside 0-59/],
      ["* * * JAN *", /month "JAN" is not/],
      ["*/0 * * * *", /step must be at least 1/],
      ["5-1 * * * *", /outside/],
    ] as const) {
      expect(() => parseCron(expression), expression).toThrow(message);
    }
  });
});
