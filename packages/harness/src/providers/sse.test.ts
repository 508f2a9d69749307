import { describe, expect, it } from "vitest";
import { createSseParser, readSseEvents, type SseEvent } from "./sse.js";

const STREAM =
  "\uFEFF: keep-alive comment\r\n" +
  'data: {"a":"héllo 🌍"}\r\n\r\n' +
  "event: custom\nid: 7\ndata: line one\ndata:line two\n\n" +
  "data: cr only\r\r" +
  "retry: 100\nunknown: x\n\n" + // no data: not dispatched
  "data\n\n" + // field without colon: empty data
  'data: {"last":true}\n\n';

const EXPECTED: SseEvent[] = [
  { event: "message", data: '{"a":"héllo 🌍"}' },
  { event: "custom", data: "line one\nline two", id: "7" },
  { event: "message", data: "cr only" },
  { event: "message", data: "" },
  { event: "message", data: '{"last":true}' },
];

function parseInPieces(bytes: Uint8Array, cuts: number[]): SseEvent[] {
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(decoder.decode(bytes.subarray(start, cut), { stream: true })));
    start = cut;
  }
  events.push(...parser.push(decoder.decode()), ...parser.end());
  return events;
}

function streamOf(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
}

describe("createSseParser", () => {
  const bytes = new TextEncoder().encode(STREAM);

  it("parses a whole stream: comments, BOM, CRLF/LF/CR, multi-line data, ids, events", () => {
    expect(parseInPieces(bytes, [])).toEqual(EXPECTED);
  });

  it("gives the same events wherever a single split falls (mid-line, mid-CRLF, mid-UTF-8)", () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parseInPieces(bytes, [cut]), `split at byte ${cut}`).toEqual(EXPECTED);
    }
  });

  it("gives the same events when fed one byte at a time", () => {
    expect(
      parseInPieces(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(EXPECTED);
  });

  it("treats a lone CR at a chunk end followed by LF as one line break", () => {
    // A trailing CR may be half of a CRLF pair, so the parser may wait for the next character
    // before ending the line; what matters is that "\r" + "\n" is one break, not a blank line.
    const parser = createSseParser();
    const events = [
      ...parser.push("data: x\r"),
      ...parser.push("\ndata: y\r"),
      ...parser.push("\n\r"),
      ...parser.push("\n"),
    ];
    expect(events).toEqual([{ event: "message", data: "x\ny" }]);
  });

  it("delivers an unterminated final event at end of stream", () => {
    const parser = createSseParser();
    expect(parser.push('data: {"partial"')).toEqual([]);
    expect(parser.end()).toEqual([{ event: "message", data: '{"partial"' }]);
  });
});

describe("createSseParser bounds", () => {
  it("fails once an unterminated line passes the bound, instead of growing without limit", () => {
    const parser = createSseParser(1024);
    expect(parser.push(`data: ${"a".repeat(512)}`)).toEqual([]);
    expect(() => parser.push("b".repeat(1024))).toThrow(/exceeded 1024 characters/);
  });

  it("fails once one event's data lines pass the bound", () => {
    const parser = createSseParser(1024);
    expect(() => parser.push(`data: ${"z".repeat(100)}\n`.repeat(20))).toThrow(/exceeded 1024 characters/);
  });

  it("bounds each event, not the stream: many events under the bound all arrive", () => {
    const parser = createSseParser(1024);
    const events = parser.push(`data: ${"z".repeat(900)}\n\n`.repeat(100));
    expect(events).toHaveLength(100);
  });
});

describe("readSseEvents", () => {
  it("reads events from a byte stream", async () => {
    const bytes = new TextEncoder().encode(STREAM);
    const pieces = [bytes.subarray(0, 3), bytes.subarray(3, 40), bytes.subarray(40)];
    const events: SseEvent[] = [];
    for await (const event of readSseEvents(streamOf(pieces), new AbortController().signal)) events.push(event);
    expect(events).toEqual(EXPECTED);
  });

  it("throws the abort reason and cancels the body when the signal aborts mid-read", async () => {
    let cancelledWith: unknown = "not cancelled";
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: first\n\n"));
      },
      cancel(reason) {
        cancelledWith = reason;
      },
    });
    const controller = new AbortController();
    const iterator = readSseEvents(body, controller.signal);
    expect((await iterator.next()).value).toEqual({ event: "message", data: "first" });
    const pending = iterator.next();
    const reason = new Error("stop now");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(cancelledWith).toBe(reason);
  });

  it("cancels the body when the consumer stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: one\n\ndata: two\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readSseEvents(body, new AbortController().signal)) {
      expect(event.data).toBe("one");
      break;
    }
    expect(cancelled).toBe(true);
  });
});
