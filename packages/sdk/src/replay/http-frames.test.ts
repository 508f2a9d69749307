import { describe, expect, it } from "vitest";
import { EventStreamReader, eventText, jsonOrText } from "./http-frames.js";

describe("EventStreamReader", () => {
  it("reads events however the text is cut: CRLF split between chunks, a lone CR at the end, comments", () => {
    const text = ': comment\r\nevent: step.delta\r\nid: 7\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: [DONE]\r\r';
    const whole = new EventStreamReader().push(text, true);
    expect(whole).toEqual([{ event: "step.delta", id: "7", data: { a: 1 } }, { dataText: "[DONE]" }]);
    for (let cut = 0; cut <= text.length; cut++) {
      const reader = new EventStreamReader();
      expect([...reader.push(text.slice(0, cut)), ...reader.push(text.slice(cut), true)]).toEqual(whole);
    }
  });

  it("keeps an event's id and name on that event only, drops an event the body ends before its blank line", () => {
    const reader = new EventStreamReader();
    expect(reader.push("id: 1\ndata: 1\n\ndata: 2\n\ndata: 3", true)).toEqual([{ id: "1", data: 1 }, { data: 2 }]);
  });

  it("writes an event back as event-stream text that reads as the same event", () => {
    for (const frame of [
      { event: "x", id: "9", data: { text: "line one\nline two" } },
      { dataText: "first\nsecond" },
      { data: "a string" },
    ])
      expect(new EventStreamReader().push(eventText(frame), true)).toEqual([frame]);
  });

  it("keeps a body as JSON when it is, as text when not", () => {
    expect(jsonOrText('{"x":[1]}', "body", "bodyText")).toEqual({ body: { x: [1] } });
    expect(jsonOrText("not json", "body", "bodyText")).toEqual({ bodyText: "not json" });
  });
});
