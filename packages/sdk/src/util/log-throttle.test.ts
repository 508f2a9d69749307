import { describe, expect, it } from "vitest";
import { LogThrottle } from "./log-throttle.js";

describe("LogThrottle", () => {
  it("writes the first event of a kind, counts the rest and summarises them once per window", () => {
    const lines: string[] = [];
    const log = new LogThrottle((line) => lines.push(line), 60_000);
    for (let i = 0; i < 1000; i++) log.note("refused 401", `refused #${i}`, "refused upgrades (401)");
    log.note("refused 403", "refused forbidden");
    expect(lines).toEqual(["refused #0", "refused forbidden"]);
    log.flush();
    expect(lines).toEqual([
      "refused #0",
      "refused forbidden",
      "999 more refused upgrades (401) in the last 60 s (not logged one by one)",
    ]);
    // A new window starts afresh.
    log.note("refused 401", "refused again");
    log.close();
    expect(lines.at(-1)).toBe("refused again");
  });

  it("survives a sink that throws", () => {
    const log = new LogThrottle(() => {
      throw new Error("disk full");
    });
    expect(() => log.note("k", "line")).not.toThrow();
    log.close();
  });
});
