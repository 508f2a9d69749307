import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { defineTool, type ToolContext } from "./tool.js";
import { ToolRunner, toToolResponse } from "./tool-runner.js";

const context: ToolContext = {
  conversationId: "c",
  callId: "1",
  signal: new AbortController().signal,
  state: new Map(),
  sendTrigger: async () => undefined,
};

describe("ToolRunner", () => {
  it("declares tools with their schema as a JSON string, and an empty object schema when there is none", () => {
    const runner = new ToolRunner([
      defineTool({
        name: "add",
        description: "Adds",
        parameters: { type: "object", properties: { a: { type: "integer" } }, required: ["a"] },
        call: () => 0,
      }),
      defineTool({ name: "now", description: "Time", call: () => 0 }),
    ]);
    expect(runner.declarations()).toEqual([
      {
        name: "add",
        description: "Adds",
        parametersJsonSchema: '{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}',
      },
      { name: "now", description: "Time", parametersJsonSchema: '{"type":"object","properties":{}}' },
    ]);
    expect(runner.names).toEqual(["add", "now"]);
  });

  it("rejects duplicate and invalid names", () => {
    const tool = defineTool({ name: "x", description: "", call: () => 0 });
    expect(() => new ToolRunner([tool, tool])).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
    expect(() => defineTool({ name: "9lives", description: "", call: () => 0 })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    expect(() => defineTool({ name: "a".repeat(65), description: "", call: () => 0 })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
  });

  it("runs calls: results, thrown errors, unknown tools and values that are not JSON", async () => {
    const runner = new ToolRunner([
      defineTool({
        name: "echo",
        description: "",
        call: (args: { v: unknown }, ctx) => ({ v: args.v, call: ctx.callId }),
      }),
      defineTool({
        name: "boom",
        description: "",
        call: async () => {
          throw new Error("kaput");
        },
      }),
      defineTool({ name: "big", description: "", call: () => 1n }),
      defineTool({ name: "nothing", description: "", call: () => undefined }),
    ]);
    expect(await runner.run({ id: "1", name: "echo", args: { v: [1] } }, context)).toEqual({
      id: "1",
      name: "echo",
      result: { v: [1], call: "1" },
    });
    expect(await runner.run({ id: "2", name: "boom", args: {} }, context)).toEqual({
      id: "2",
      name: "boom",
      error: "kaput",
    });
    expect(await runner.run({ id: "3", name: "ghost", args: {} }, context)).toEqual({
      id: "3",
      name: "ghost",
      error: "Unknown tool: 'ghost'",
    });
    expect(await runner.run({ id: "4", name: "big", args: {} }, context)).toEqual({ id: "4", name: "big", result: 1 });
    expect(await runner.run({ id: "5", name: "nothing", args: {} }, context)).toEqual({
      id: "5",
      name: "nothing",
      result: null,
    });
  });
});

describe("toToolResponse (protocol §7)", () => {
  it("sends objects as they are and wraps everything else as {result}", () => {
    expect(toToolResponse({ id: "a", name: "t", result: { ok: true } })).toEqual({
      id: "a",
      responseJson: '{"ok":true}',
    });
    expect(toToolResponse({ id: "a", name: "t", result: [1, 2] })).toEqual({
      id: "a",
      responseJson: '{"result":[1,2]}',
    });
    expect(toToolResponse({ id: "a", name: "t", result: "text" })).toEqual({
      id: "a",
      responseJson: '{"result":"text"}',
    });
    expect(toToolResponse({ id: "a", name: "t", result: null })).toEqual({ id: "a", responseJson: '{"result":null}' });
    expect(toToolResponse({ id: "a", name: "t" })).toEqual({ id: "a", responseJson: '{"result":null}' });
  });

  it("sends errors as errorMessage without responseJson", () => {
    expect(toToolResponse({ id: "a", name: "t", error: "bad" })).toEqual({ id: "a", errorMessage: "bad" });
  });
});
