import { describe, expect, it } from "vitest";
import { compareTraces, formatTraceDifferences } from "./index.js";

const HEADER = {
  kind: "header",
  format: "antigravity-trace",
  version: 1,
  wire: "localharness",
  era: "0.1.14",
  sdk: { name: "@antigravity-ts/sdk", version: "0.1.0" },
  recordedAt: "2026-11-01T00:00:00.000Z",
  redaction: { defaults: true, custom: false },
};
const traceOf = (...events: unknown[]): string => [HEADER, ...events].map((line) => JSON.stringify(line)).join("\n");

/** One recording of a short session; `id`, `micros` and `port` differ per run, `text` is what the client sent. */
function recording({
  id = "3f1c6a52-0000-4000-8000-000000000001",
  micros = "1795850921031265",
  port = 41234,
  text = "hi",
  answer = "hello",
  version = "0.1.0",
} = {}): string {
  return traceOf(
    {
      kind: "handshake",
      t: 1,
      c: 0,
      input: { storageDirectory: "/storage", clientInfo: { language: "typescript", version, osVersion: "6.1" } },
      output: { port, apiKey: "[REDACTED]" },
    },
    { kind: "open", t: 2, c: 0 },
    { kind: "frame", t: 3, c: 0, from: "client", frame: { config: { cascadeId: "" } } },
    {
      kind: "frame",
      t: 4,
      c: 0,
      from: "peer",
      frame: { seqNum: "1", timestampMicros: micros, initializeConversationResponse: { cascadeId: id } },
    },
    { kind: "frame", t: 5, c: 0, from: "client", frame: { userInput: { parts: [{ text }] } } },
    {
      kind: "frame",
      t: 6,
      c: 0,
      from: "peer",
      frame: { seqNum: "2", timestampMicros: micros, stepUpdate: { cascadeId: id, trajectoryId: id, text: answer } },
    },
    { kind: "close", t: 7, c: 0, by: "client" },
  );
}

describe("compareTraces (the drift check)", () => {
  it("finds no drift between two runs that differ only in generated ids, timestamps, ports, times and the SDK's version", () => {
    expect(
      compareTraces(
        recording(),
        recording({
          id: "9b2d7e10-0000-4000-8000-00000000ffff",
          micros: "1795850999999999",
          port: 50000,
          version: "0.2.0",
        }),
      ),
    ).toEqual([]);
  });

  it("says which frame changed, where in it, what it was and what it is now, with the lines of both traces", () => {
    const differences = compareTraces(recording(), recording({ text: "hi there" }));
    expect(differences).toEqual([
      {
        message:
          'connection 0, client frame 2 (userInput): at userInput.parts[0].text differs: stored "hi", now "hi there"',
        storedLine: 6,
        freshLine: 6,
      },
    ]);
    expect(formatTraceDifferences(differences)).toBe(
      '- connection 0, client frame 2 (userInput): at userInput.parts[0].text differs: stored "hi", now "hi there" (stored line 6, fresh line 6)',
    );
    expect(compareTraces(recording(), recording({ answer: "hey" }))[0]?.message).toBe(
      'connection 0, peer frame 2 (stepUpdate): at stepUpdate.text differs: stored "hello", now "hey"',
    );
  });

  it("reports a frame that is new or gone, a new field, a handshake change and another era", () => {
    const fresh = recording().replace(
      '"userInput":{"parts":[{"text":"hi"}]}',
      '"userInput":{"parts":[{"text":"hi"}],"mode":"fast"}',
    );
    expect(compareTraces(recording(), fresh)[0]?.message).toBe(
      'connection 0, client frame 2 (userInput): at userInput.mode not in the trace: stored (nothing), now "fast"',
    );
    const lines = recording().split("\n");
    const shorter = [...lines.slice(0, 5), ...lines.slice(6)].join("\n");
    expect(compareTraces(recording(), shorter).map((d) => d.message)).toContain(
      "connection 0: 2 client frame(s) stored, 1 now; the first one missing now is a userInput frame",
    );
    const otherKey = recording().replace(
      '"storageDirectory":"/storage"',
      '"storageDirectory":"/storage","env":{"A":"[REDACTED]"}',
    );
    expect(compareTraces(recording(), otherKey)[0]?.message).toBe(
      'connection 0, handshake: at input.env not in the trace: stored (nothing), now {"A":"[REDACTED]"}',
    );
    expect(compareTraces(recording(), recording().replace('"era":"0.1.14"', '"era":"0.1.19"'))).toEqual([
      { message: 'the header\'s era was "0.1.14", now "0.1.19"', storedLine: 1, freshLine: 1 },
    ]);
  });
});
