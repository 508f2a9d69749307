import { describe, expect, it } from "vitest";
import { compactTranscript, estimateTokens, SUMMARY_PREFIX } from "./compaction.js";
import type { ModelMessage } from "./model/provider.js";

describe("compaction", () => {
  const transcript: ModelMessage[] = [
    { role: "user", text: "first question" },
    { role: "model", text: "", toolCalls: [{ id: "1", name: "view_file", args: { file_path: "a.txt" } }] },
    { role: "tool", results: [{ id: "1", name: "view_file", response: { content: "x".repeat(500) } }] },
    { role: "model", text: "first answer", toolCalls: [] },
    { role: "user", text: "second question" },
  ];

  it("estimates tokens as ceil(chars / 4) of the transcript", () => {
    expect(estimateTokens([{ role: "user", text: "abcd" }])).toBe(Math.ceil(JSON.stringify([{ role: "user", text: "abcd" }]).length / 4));
  });

  it("summarises everything before the current turn and keeps the turn verbatim", () => {
    const result = compactTranscript(transcript, 4);
    expect(result?.compactedMessages).toBe(4);
    expect(result?.summary.split("\n")).toEqual([
      "Summary of the earlier conversation (4 messages compacted):",
      "- user: first question",
      '- model called view_file({"file_path":"a.txt"})',
      `- view_file returned {"content":"${"x".repeat(148)}…`,
      "- model: first answer",
    ]);
    expect(result?.transcript[0]).toEqual({ role: "user", text: `${SUMMARY_PREFIX}\n${result?.summary}` });
    expect(result?.transcript.slice(2)).toEqual([{ role: "user", text: "second question" }]);
    expect(estimateTokens(result?.transcript ?? [])).toBeLessThan(estimateTokens(transcript));
  });

  it("does nothing when the current turn is all there is", () => {
    expect(compactTranscript(transcript, 0)).toBeUndefined();
  });
});
