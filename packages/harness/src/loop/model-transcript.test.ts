import { describe, expect, it } from "vitest";
import type { ModelMessage } from "../model/provider.js";
import {
  CANCELLED_RESULT,
  MAX_SUMMARIES,
  SUMMARY_ACK,
  SUMMARY_PREFIX,
  Transcript,
  providerMessages,
} from "./model-transcript.js";

const call = (id: string, name = "view_file") => ({ id, name, args: { file_path: `${id}.txt` } });
const result = (id: string, name = "view_file") => ({ id, name, response: { content: id } });

describe("transcript (seed 002)", () => {
  it("halt: keeps the partial text and thinking, and closes every open call with (cancelled)", () => {
    const transcript = new Transcript();
    transcript.startTurn("do two things");
    transcript.addModel({ text: "on it", thinking: "plan", toolCalls: [call("a"), call("b")] });
    transcript.addToolResult(result("a"));
    transcript.cancelTurn();
    expect(transcript.messages).toEqual([
      { role: "user", text: "do two things" },
      { role: "model", text: "on it", thinking: "plan", toolCalls: [call("a"), call("b")] },
      { role: "tool", results: [result("a"), { id: "b", name: "view_file", response: { error: CANCELLED_RESULT } }] },
    ]);
    expect(transcript.openCalls()).toEqual([]);
  });

  it("halt before any answer keeps the prompt; the next prompt is merged with it for the provider", () => {
    const transcript = new Transcript();
    transcript.startTurn("first");
    transcript.cancelTurn();
    transcript.startTurn("second");
    expect(transcript.messages).toHaveLength(2);
    // A model reads one message; `promptStarts` tells where the newest prompt begins.
    expect(transcript.forProvider()).toEqual([{ role: "user", text: "first\n\nsecond", promptStarts: [0, 7] }]);
  });

  it("error exit: drops the unanswered prompt (and triggers) of the turn, never earlier turns", () => {
    const transcript = new Transcript();
    transcript.startTurn("earlier");
    transcript.addModel({ text: "answer", thinking: "", toolCalls: [] });
    transcript.startTurn("fails");
    transcript.addUser("[automated trigger] tick");
    transcript.cancelTurnIncludingUser();
    expect(transcript.messages).toEqual([
      { role: "user", text: "earlier" },
      { role: "model", text: "answer", toolCalls: [] },
    ]);
  });

  it("error exit after tool work keeps the work and closes open calls", () => {
    const transcript = new Transcript();
    transcript.startTurn("work");
    transcript.addModel({ text: "", thinking: "", toolCalls: [call("a")] });
    transcript.cancelTurnIncludingUser();
    expect(transcript.messages.at(-1)).toEqual({
      role: "tool",
      results: [{ id: "a", name: "view_file", response: { error: CANCELLED_RESULT } }],
    });
  });

  it("refuses a result for a call that is not open", () => {
    const transcript = new Transcript();
    transcript.startTurn("x");
    transcript.addModel({ text: "", thinking: "", toolCalls: [call("a")] });
    transcript.addToolResult(result("a"));
    expect(() => transcript.addToolResult(result("a"))).toThrow(/not an open call/);
    expect(() => transcript.addToolResult(result("zz"))).toThrow(/not an open call/);
  });

  it("compaction keeps the first real prompt and at most three summaries, first in first out", () => {
    const transcript = new Transcript();
    transcript.startTurn("[automated trigger] boot");
    transcript.addModel({ text: "booted", thinking: "", toolCalls: [] });
    for (let i = 1; i <= 5; i++) {
      transcript.startTurn(`prompt ${i}`);
      transcript.addModel({ text: `answer ${i}`, thinking: "", toolCalls: [] });
      transcript.startTurn(`prompt ${i + 1}`);
      expect(transcript.compact(transcript.turnStart, `summary ${i}`)).toBeGreaterThan(0);
      transcript.cancelTurnIncludingUser();
    }
    expect(transcript.firstPrompt).toBe("prompt 1");
    expect(transcript.summaries).toEqual(["summary 3", "summary 4", "summary 5"]);
    expect(MAX_SUMMARIES).toBe(3);
    transcript.startTurn("now");
    expect(transcript.forProvider()).toEqual([
      {
        role: "user",
        text: [
          "prompt 1",
          `${SUMMARY_PREFIX}\nsummary 3`,
          `${SUMMARY_PREFIX}\nsummary 4`,
          `${SUMMARY_PREFIX}\nsummary 5`,
        ].join("\n\n"),
      },
      { role: "model", text: SUMMARY_ACK, toolCalls: [] },
      { role: "user", text: "now" },
    ]);
    // Save and load: everything survives.
    const reloaded = new Transcript(JSON.parse(JSON.stringify(transcript.toData())));
    expect(reloaded.toData()).toEqual(transcript.toData());
    expect(reloaded.forProvider()).toEqual(transcript.forProvider());
  });

  it("repairs a transcript saved mid-turn: open calls get (cancelled), stray and repeated results go", () => {
    const stored: ModelMessage[] = [
      { role: "tool", results: [result("stray")] },
      { role: "user", text: "go" },
      { role: "model", text: "", toolCalls: [call("a"), call("b")] },
      { role: "tool", results: [result("b"), result("b"), result("x")] },
      { role: "user", text: "and?" },
      { role: "model", text: "", thinking: "kept", toolCalls: [call("c")] },
    ];
    expect(new Transcript({ messages: stored }).messages).toEqual([
      { role: "user", text: "go" },
      { role: "model", text: "", toolCalls: [call("a"), call("b")] },
      { role: "tool", results: [result("b"), { id: "a", name: "view_file", response: { error: CANCELLED_RESULT } }] },
      { role: "user", text: "and?" },
      { role: "model", text: "", thinking: "kept", toolCalls: [call("c")] },
      { role: "tool", results: [{ id: "c", name: "view_file", response: { error: CANCELLED_RESULT } }] },
    ]);
  });

  it("the provider view drops thinking and empty answers, and merges consecutive answers", () => {
    expect(
      providerMessages([
        { role: "user", text: "a" },
        { role: "model", text: "", thinking: "only thoughts", toolCalls: [] },
        { role: "user", text: "b" },
        { role: "model", text: "partial", thinking: "t", toolCalls: [] },
        { role: "model", text: "more", toolCalls: [call("k")] },
      ]),
    ).toEqual([
      { role: "user", text: "a\n\nb", promptStarts: [0, 3] },
      { role: "model", text: "partial\n\nmore", toolCalls: [call("k")] },
      { role: "tool", results: [{ id: "k", name: "view_file", response: { error: CANCELLED_RESULT } }] },
    ]);
  });
});
