import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CallOptions, Channel, Transport } from "@antigravity-ts/sdk";
import { compareTraces, formatTraceDifferences, replayTransport } from "@antigravity-ts/sdk/replay";
import { checkDrift, recordScenario, tracePath } from "../../traces/record.js";
import { checkWireDrift } from "../../traces/record-wires.js";
import { SCENARIOS, TRACE_WORKSPACE, type TraceScenario } from "../../traces/scenarios.js";

// The drift check (npm run traces:check) as a test: the golden traces must be what the SDK and the
// reference harness exchange today. And what a change in the SDK does to a trace recorded before
// it: a change that leaves the wire alone still replays; one that does not is named exactly, by
// the replay and by the drift check.

const stored = (scenario: TraceScenario): string => readFileSync(tracePath(scenario), "utf8");
const streaming = SCENARIOS.find((s) => s.name === "stream-thinking-text") as TraceScenario;

/** `inner` with every client frame rewritten by `alter`: an SDK that sends its frames differently. */
function sendingDifferently(
  inner: Transport,
  alter: (frame: Record<string, unknown>) => Record<string, unknown>,
): Transport {
  return {
    async connect(options?: CallOptions): Promise<Channel> {
      const channel = await inner.connect(options);
      return {
        send: (frame) => channel.send(JSON.stringify(alter(JSON.parse(frame) as Record<string, unknown>))),
        frames: () => channel.frames(),
        close: (closeOptions) => channel.close(closeOptions),
      };
    },
  };
}

/** Every object's keys in reverse order, recursively. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reversedKeys(item)]),
  );
}

/** A userInput with a field the trace never saw. */
const withMode = (frame: Record<string, unknown>): Record<string, unknown> =>
  "userInput" in frame ? { userInput: { ...(frame["userInput"] as object), mode: "fast" } } : frame;

describe("the golden traces", () => {
  it("are what the SDK and the reference harness exchange today (npm run traces:check)", {
    timeout: 120_000,
  }, async () => {
    const drifted = [...(await checkDrift()), ...(await checkWireDrift())].filter(
      (report) => report.missing || report.diff !== "",
    );
    expect(
      drifted.map((report) => `${report.scenario.name}:\n${report.missing ? "no stored trace" : report.diff}`),
    ).toEqual([]);
  });
});

describe("a trace recorded before a change in the SDK", () => {
  it("still replays when the change leaves the wire alone (its frames' fields in another order)", async () => {
    const replay = replayTransport(stored(streaming));
    await streaming.run(
      sendingDifferently(replay, (frame) => reversedKeys(frame) as Record<string, unknown>),
      { workspace: TRACE_WORKSPACE },
    );
    replay.verify();
  });

  it("does not when the wire changed, and the replay and the drift check both say exactly why", {
    timeout: 60_000,
  }, async () => {
    const replay = replayTransport(stored(streaming));
    const error = await streaming.run(sendingDifferently(replay, withMode), { workspace: TRACE_WORKSPACE }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(
      /^replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame 2 of \d+, userInput, t=[\d.]+ ms\):\n {2}at userInput\.mode: not in the trace\n {4}expected: \(nothing\)\n {4}got: {6}"fast"/,
    );

    const fresh = await recordScenario({
      ...streaming,
      run: (transport, context) => streaming.run(sendingDifferently(transport, withMode), context),
    });
    const differences = compareTraces(stored(streaming), fresh);
    expect(differences.length).toBeGreaterThan(0);
    expect(formatTraceDifferences(differences)).toMatch(
      /^- connection 0, client frame 2 \(userInput\): at userInput\.mode not in the trace: stored \(nothing\), now "fast" \(stored line \d+, fresh line \d+\)/,
    );
  });
});
