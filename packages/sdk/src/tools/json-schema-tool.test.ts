import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { checkJsonSchema } from "./json-schema-check.js";
import { defineTool, type ToolContext } from "./tool.js";

const context = {
  conversationId: "c",
  callId: "1",
  signal: new AbortController().signal,
  sendTrigger: async () => undefined,
  state: new Map(),
} satisfies ToolContext;

describe("a JSON Schema tool's arguments are checked before call runs", () => {
  const calls: unknown[] = [];
  const tool = defineTool({
    name: "double",
    description: "Doubles a number",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["city"],
      additionalProperties: false,
    },
    call: (args: { city: string; days?: number }) => {
      calls.push(args);
      return { ok: true };
    },
  });

  it("runs call with arguments the schema accepts", async () => {
    await expect(Promise.resolve(tool.call({ city: "Tokyo", days: 2 }, context))).resolves.toEqual({ ok: true });
    expect(calls).toEqual([{ city: "Tokyo", days: 2 }]);
  });

  it("refuses a missing required field, a wrong type and an unknown field, naming each, without running call", () => {
    calls.length = 0;
    let error: unknown;
    try {
      tool.call({ town: 3, days: 1.5 } as unknown as { city: string }, context); // what a model may send, whatever the type says
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.InvalidArgument);
    const message = (error as SdkError).message;
    expect(message).toMatch(/^Invalid arguments for tool double: .*The tool did not run; call it again/);
    for (const issue of ["$.city is required", "$.days must be integer, got number", "$.town is not allowed"])
      expect(message).toContain(issue);
    expect(calls).toEqual([]);
  });

  it("reads the Gemini API's upper-case type names (protocol §5.1)", () => {
    expect(checkJsonSchema({ a: "x" }, { type: "OBJECT", properties: { a: { type: "NUMBER" } } })).toEqual([
      "$.a must be NUMBER, got string",
    ]);
    expect(checkJsonSchema([1, 2], { type: "ARRAY", items: { type: "INTEGER" } })).toEqual([]);
  });

  it("never runs a schema's pattern, so a catastrophic one cannot stall the caller", () => {
    const evil = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } };
    expect(checkJsonSchema({ s: `${"a".repeat(50_000)}!` }, evil)).toEqual([]);
  });

  it("walks a deep array and a large object without recursion trouble at tool-argument sizes", () => {
    const schema = {
      type: "object",
      properties: {
        xs: { type: "array", items: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
      },
    };
    const xs = Array.from({ length: 10_000 }, (_, n) => ({ n }));
    expect(checkJsonSchema({ xs }, schema)).toEqual([]);
    xs[9_999] = {} as { n: number };
    expect(checkJsonSchema({ xs }, schema)).toEqual(["$.xs[9999].n is required"]);
  });

  it("leaves a tool without parameters unchecked", async () => {
    const bare = defineTool({ name: "ping", description: "Pings", call: () => "pong" });
    await expect(Promise.resolve(bare.call(undefined, context))).resolves.toBe("pong");
  });
});
