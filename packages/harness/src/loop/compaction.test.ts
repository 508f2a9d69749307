import { describe, expect, it } from "vitest";
import { compactTranscript, estimateTokens, shouldCompact } from "./compaction.js";
import type { ModelMessage } from "../model/provider.js";
import { SUMMARY_ACK, SUMMARY_PREFIX, Transcript } from "./model-transcript.js";

describe("when to compact: compactionThreshold and compactionConfig.checkpointIntervalTokens", () => {
  const turn = (n: number): ModelMessage[] => [
    { role: "user", text: `question ${n} ${"q".repeat(200)}` },
    { role: "model", text: `answer ${n} ${"a".repeat(200)}`, toolCalls: [] },
  ];

  it("compacts past the ceiling, or once the messages since the last compaction reach the interval", () => {
    const transcript = new Transcript({ messages: [...turn(1), ...turn(2)] });
    const size = estimateTokens(transcript.forProvider());
    expect(shouldCompact(transcript, { compactionThreshold: size, checkpointIntervalTokens: 0 })).toBe(false);
    expect(shouldCompact(transcript, { compactionThreshold: size - 1, checkpointIntervalTokens: 0 })).toBe(true);
    expect(shouldCompact(transcript, { compactionThreshold: 0, checkpointIntervalTokens: size })).toBe(true);
    expect(shouldCompact(transcript, { compactionThreshold: 0, checkpointIntervalTokens: size + 1 })).toBe(false);
    expect(shouldCompact(transcript, { compactionThreshold: 0, checkpointIntervalTokens: 0 })).toBe(false);
  });

  it("measures the interval from the checkpoint: the summaries do not count towards the next one", () => {
    const transcript = new Transcript({ messages: [...turn(1), ...turn(2), ...turn(3)] });
    const interval = estimateTokens([...turn(1), ...turn(2)]);
    expect(shouldCompact(transcript, { compactionThreshold: 0, checkpointIntervalTokens: interval })).toBe(true);
    compactTranscript(transcript, 4);
    // what is left since the checkpoint (turn 3) is below the interval, the summarised context is not
    expect(estimateTokens(transcript.forProvider())).toBeGreaterThan(estimateTokens(transcript.messages));
    expect(shouldCompact(transcript, { compactionThreshold: 0, checkpointIntervalTokens: interval })).toBe(false);
    transcript.startTurn(`question 4 ${"q".repeat(200)}`);
    transcript.addModel({ text: `answer 4 ${"a".repeat(200)}`, thinking: "", toolCalls: [] });
    expect(shouldCompact(transcript, { compactionThreshold: 0, checkpointIntervalTokens: interval })).toBe(true);
  });
});

describe("compaction", () => {
  const messages: ModelMessage[] = [
    { role: "user", text: "first question" },
    { role: "model", text: "", toolCalls: [{ id: "1", name: "view_file", args: { file_path: "a.txt" } }] },
    { role: "tool", results: [{ id: "1", name: "view_file", response: { content: "x".repeat(500) } }] },
    { role: "model", text: "first answer", toolCalls: [] },
    { role: "user", text: "second question" },
  ];

  it("estimates tokens as ceil(chars / 4) of the transcript", () => {
    expect(estimateTokens([{ role: "user", text: "abcd" }])).toBe(
      Math.ceil(JSON.stringify([{ role: "user", text: "abcd" }]).length / 4),
    );
  });

  it("summarises everything before the current turn, keeps the turn verbatim and the first prompt apart", () => {
    const transcript = new Transcript({ messages });
    const result = compactTranscript(transcript, 4);
    expect(result?.compactedMessages).toBe(4);
    expect(result?.summary.split("\n")).toEqual([
      "Summary of the earlier conversation (4 messages compacted):",
      "- user: first question",
      '- model called view_file({"file_path":"a.txt"})',
      `- view_file returned {"content":"${"x".repeat(148)}…`,
      "- model: first answer",
    ]);
    expect(transcript.messages).toEqual([{ role: "user", text: "second question" }]);
    expect(transcript.firstPrompt).toBe("first question");
    expect(transcript.forProvider()).toEqual([
      { role: "user", text: `first question\n\n${SUMMARY_PREFIX}\n${result?.summary}` },
      { role: "model", text: SUMMARY_ACK, toolCalls: [] },
      { role: "user", text: "second question" },
    ]);
    expect(estimateTokens(transcript.forProvider())).toBeLessThan(estimateTokens(messages));
  });

  it("never cuts a tool result from its call: the cut moves past the results", () => {
    const transcript = new Transcript({ messages });
    const result = compactTranscript(transcript, 2);
    expect(result?.compactedMessages).toBe(3);
    expect(transcript.messages[0]).toEqual({ role: "model", text: "first answer", toolCalls: [] });
    // No acknowledgement before an answer: the view goes user, model, user.
    expect(transcript.forProvider().map((m) => m.role)).toEqual(["user", "model", "user"]);
  });

  it("does nothing when the current turn is all there is", () => {
    expect(compactTranscript(new Transcript({ messages }), 0)).toBeUndefined();
  });
});
