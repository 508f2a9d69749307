import { describe, expect, it } from "vitest";
import { ToolRunner, toToolResponse } from "../connection/index.js";
import { runnerToolResponse } from "./tool-runner.js";
import { defineTool, ErrorCode, toolResultValue, type ToolContext } from "../index.js";

// Issue 10 item 12: tool results JSON cannot represent are converted as upstream converts them
// (event_processor.tool_result_to_dict: pydantic's JSON mode) instead of silently lost, and media
// become supplementalMedia (event_processor._extract_media_from_result, _send_tool_results).

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
const image = (description?: string): { media: { mimeType: string; data: Uint8Array; description?: string } } => ({
  media:
    description === undefined
      ? { mimeType: "image/jpeg", data: JPEG }
      : { mimeType: "image/jpeg", data: JPEG, description },
});

const context: ToolContext = {
  conversationId: "c",
  callId: "1",
  signal: new AbortController().signal,
  state: new Map(),
  sendTrigger: async () => undefined,
};

describe("toolResultValue: values JSON cannot represent", () => {
  it("converts Set, Map, bytes, bigint, Date, undefined and non-finite numbers predictably", () => {
    const when = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    const { json, media } = toolResultValue({
      set: new Set([1, "a", 1]),
      map: new Map<unknown, unknown>([
        ["k", 1],
        [2, "two"],
        [true, null],
      ]),
      bytes: new TextEncoder().encode("héllo"),
      binary: new Uint8Array([0xff, 0x00, 0xfe]),
      buffer: new TextEncoder().encode("ab").buffer,
      floats: new Float32Array([1.5, Number.NaN]),
      small: 42n,
      huge: 2n ** 70n,
      when,
      invalidDate: new Date(Number.NaN),
      missing: undefined,
      list: [undefined, Number.POSITIVE_INFINITY, 0.5],
      url: new URL("https://example.com/a?b=1"),
      pattern: /a+b/gi,
      boxed: new String("s"),
      error: new RangeError("too far"),
    });
    expect(media).toEqual([]);
    expect(json).toEqual({
      set: [1, "a"],
      map: { k: 1, "2": "two", true: null },
      bytes: "héllo",
      binary: "/wD+",
      buffer: "ab",
      floats: [1.5, null],
      small: 42,
      huge: "1180591620717411303424",
      when: "2026-01-02T03:04:05.000Z",
      invalidDate: null,
      missing: null,
      list: [null, null, 0.5],
      url: "https://example.com/a?b=1",
      pattern: "a+b",
      boxed: "s",
      error: { name: "RangeError", message: "too far" },
    });
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("keeps a value referenced twice, and refuses cycles, functions, symbols, promises and absurd nesting by path", () => {
    const shared = { a: 1 };
    expect(toolResultValue({ x: shared, y: [shared] }).json).toEqual({ x: { a: 1 }, y: [{ a: 1 }] });
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic["self"] = { back: cyclic };
    const refused = (value: unknown): string => {
      try {
        toolResultValue(value);
      } catch (error) {
        expect(error).toMatchObject({ code: ErrorCode.InvalidArgument });
        return (error as Error).message;
      }
      throw new Error("expected a refusal");
    };
    expect(refused(cyclic)).toContain("a circular reference at $.self.back");
    expect(refused({ onClick: () => 1 })).toContain("a function at $.onClick");
    expect(refused([Symbol("s")])).toContain("a symbol at $[0]");
    expect(refused({ later: Promise.resolve(1) })).toContain("a promise (await it before returning) at $.later");
    let deep: unknown = "bottom";
    for (let i = 0; i < 5_000; i++) deep = [deep];
    expect(refused(deep)).toContain("nesting deeper than 1000 levels");
  });
});

describe("toolResultValue: media (upstream test_extract_media_from_result)", () => {
  it("takes a bare media value out entirely", () => {
    expect(toolResultValue(image())).toEqual({
      json: "Returned 1 media attachment(s).",
      media: [{ mimeType: "image/jpeg", data: JPEG }],
    });
  });

  it("pulls media out of a mixed list and a dict, keeping the rest in order", () => {
    expect(toolResultValue(["a", image(), "b"])).toEqual({
      json: ["a", "b"],
      media: [{ mimeType: "image/jpeg", data: JPEG }],
    });
    expect(toolResultValue({ caption: "hi", img: image("logo") })).toEqual({
      json: { caption: "hi" },
      media: [{ mimeType: "image/jpeg", data: JPEG, description: "logo" }],
    });
    expect(toolResultValue({ k: "v" })).toEqual({ json: { k: "v" }, media: [] });
    const audio = { media: { mimeType: "audio/wav", data: new Uint8Array([1, 2]) } };
    expect(toolResultValue({ pages: [image(), { nested: [audio] }], note: null }).media.map((m) => m.mimeType)).toEqual(
      ["image/jpeg", "audio/wav"],
    );
    expect(toolResultValue({ pages: [image(), { nested: [audio] }], note: null }).json).toBe(
      "Returned 2 media attachment(s).",
    );
  });

  it("does not mistake other objects with a media key for media", () => {
    expect(toolResultValue({ media: { mimeType: "image/png", data: "not bytes" } }).media).toEqual([]);
    expect(toolResultValue({ media: { mimeType: "image/png", data: JPEG }, other: 1 }).media).toEqual([]);
  });
});

describe("client tool results on the wire (upstream test_tool_result_image_sent_as_supplemental_media)", () => {
  it("sends text in responseJson and the image as supplementalMedia; a media-only result gets the placeholder", async () => {
    const runner = new ToolRunner([
      defineTool({ name: "image_tool", description: "", call: () => ["here is the snapshot", image()] }),
      defineTool({ name: "photo_tool", description: "", call: () => image("a deck photo") }),
      defineTool({
        name: "set_tool",
        description: "",
        call: () => ({ tags: new Set(["x", "y"]), raw: new TextEncoder().encode("ok") }),
      }),
      defineTool({
        name: "cyclic_tool",
        description: "",
        call: () => {
          const a: unknown[] = [];
          a.push(a);
          return a;
        },
      }),
    ]);
    const run = async (name: string) => {
      const result = await runner.run({ id: name, name, args: {} }, context);
      // The connection's answer (the runner's result is JSON already) is the one toToolResponse makes.
      expect(runnerToolResponse(result)).toEqual(toToolResponse(result));
      return toToolResponse(result);
    };
    expect(await run("image_tool")).toEqual({
      id: "image_tool",
      responseJson: '{"result":["here is the snapshot"]}',
      supplementalMedia: [{ mimeType: "image/jpeg", data: JPEG }],
    });
    expect(await run("photo_tool")).toEqual({
      id: "photo_tool",
      responseJson: '{"result":"Returned 1 media attachment(s)."}',
      supplementalMedia: [{ mimeType: "image/jpeg", data: JPEG, description: "a deck photo" }],
    });
    expect(await run("set_tool")).toEqual({ id: "set_tool", responseJson: '{"tags":["x","y"],"raw":"ok"}' });
    expect(await run("cyclic_tool")).toEqual({
      id: "cyclic_tool",
      errorMessage: expect.stringContaining(
        "Tool cyclic_tool returned a value that is not JSON: the result holds a circular reference at $[0]",
      ),
    });
  });

  it("converts a raw result given straight to toToolResponse the same way", () => {
    expect(toToolResponse({ id: "a", name: "t", result: new Map([["k", 1n]]) })).toEqual({
      id: "a",
      responseJson: '{"k":1}',
    });
    expect(toToolResponse({ id: "a", name: "t", result: () => 1 })).toEqual({
      id: "a",
      errorMessage: expect.stringContaining("a function at $"),
    });
  });
});
