import { afterAll, describe, expect, it } from "vitest";
import { killAllHarnesses, startListeningHarness } from "@antigravity-ts/test-kit";
import { TestClient } from "../test-support/ws-client.js";

// Issue 8 item 13: a client guessing keys must not be able to flood the harness's log. Refusals
// are logged once per window and counted; the count reaches the log when the window ends or the
// harness shuts down.

afterAll(killAllHarnesses);

describe("refused connections", () => {
  it("are logged in a bounded number of lines that still account for every refusal", async () => {
    const harness = await startListeningHarness();
    const attempts = 300;
    const outcomes = await Promise.all(
      Array.from({ length: attempts }, (_, i) =>
        TestClient.connect(harness.port, `wrong-key-${i}`).then(
          () => "open",
          (error: Error) => error.message,
        ),
      ),
    );
    expect(outcomes.every((outcome) => outcome === "HTTP 401")).toBe(true);
    const exit = await harness.stop();
    expect(exit.code).toBe(0);
    const lines = harness
      .stderr()
      .split("\n")
      .filter((line) => /refused (a connection|connections)/.test(line));
    expect(lines.length).toBeLessThanOrEqual(6);
    const counted = lines.reduce((sum, line) => sum + Number(/(\d+) more refused connections/.exec(line)?.[1] ?? 1), 0);
    expect(counted).toBe(attempts);
    // The key is never in the log, not even the wrong ones.
    expect(harness.stderr()).not.toContain("wrong-key-");
  });
});
