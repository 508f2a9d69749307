import { toJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ErrorCode, SdkError } from "../errors.js";
import { defineTool, validateTool, type ToolContext } from "./tool.js";
import { ToolRunner } from "./tool-runner.js";

const context: ToolContext = {
  conversationId: "c",
  callId: "1",
  signal: new AbortController().signal,
  state: new Map(),
  sendTrigger: async () => undefined,
};

/** A tool whose calls are recorded, to prove an invalid call never ran. */
function recorded<T>(): { calls: T[]; call: (args: T) => { ok: true } } {
  const calls: T[] = [];
  return { calls, call: (args) => (calls.push(args), { ok: true }) };
}

describe("defineTool with a Standard Schema", () => {
  it("zod: declares the library's JSON Schema (without $schema), validates, and passes the transformed output", async () => {
    const seen = recorded<{ city: string; days: number }>();
    const weather = defineTool({
      name: "weather",
      description: "Weather",
      parameters: z.object({ city: z.string().trim(), days: z.number().int().min(1).default(1) }),
      call: seen.call,
    });
    expect(new ToolRunner([weather]).declarations()[0]?.parametersJsonSchema).toBe(
      JSON.stringify({
        type: "object",
        properties: {
          city: { type: "string" },
          days: { default: 1, type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        },
        required: ["city"],
      }),
    );
    const runner = new ToolRunner([weather]);
    expect(await runner.run({ id: "1", name: "weather", args: { city: "  Paris " } }, context)).toEqual({
      id: "1",
      name: "weather",
      result: { ok: true },
    });
    expect(seen.calls).toEqual([{ city: "Paris", days: 1 }]);

    const invalid = await runner.run({ id: "2", name: "weather", args: { town: 3, days: 0 } }, context);
    expect(invalid.error).toBe(
      "Invalid arguments for tool weather: city: Invalid input: expected string, received undefined; days: Too small: expected number to be >=1. The tool did not run; call it again with arguments that match its schema.",
    );
    expect(seen.calls).toHaveLength(1);
  });

  it("a direct call with bad arguments rejects with InvalidArgument listing the issues", async () => {
    const tool = defineTool({
      name: "t",
      description: "",
      parameters: z.object({ n: z.number() }),
      call: ({ n }) => n * 2,
    });
    const error = await Promise.resolve(tool.call({ n: "2" } as never, context)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.InvalidArgument);
    expect((error as SdkError).details["issues"]).toEqual(["n: Invalid input: expected number, received string"]);
    expect(await tool.call({ n: 2 }, context)).toBe(4);
  });

  it("valibot: needs its JSON Schema given; paths of object segments are read", async () => {
    const schema = v.object({ city: v.string(), tags: v.array(v.string()) });
    expect(() => defineTool({ name: "v", description: "", parameters: schema, call: () => 0 })).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidArgument,
        message: expect.stringContaining('jsonSchema: toJsonSchema(schema) from "@valibot/to-json-schema"'),
      }),
    );
    const seen = recorded<{ city: string; tags: string[] }>();
    const tool = defineTool({
      name: "v",
      description: "",
      parameters: schema,
      jsonSchema: toJsonSchema(schema),
      call: seen.call,
    });
    expect(JSON.parse(new ToolRunner([tool]).declarations()[0]?.parametersJsonSchema ?? "")).toMatchObject({
      type: "object",
      required: ["city", "tags"],
    });
    const invalid = await new ToolRunner([tool]).run(
      { id: "1", name: "v", args: { city: "x", tags: ["a", 2] } },
      context,
    );
    expect(invalid.error).toContain("tags.1: Invalid type: Expected string but received 2");
    expect(seen.calls).toEqual([]);
  });

  it("arktype: converts through the Standard JSON Schema extension; an async validator is awaited", async () => {
    const tool = defineTool({
      name: "a",
      description: "",
      parameters: type({ city: "string" }),
      call: ({ city }) => city.toUpperCase(),
    });
    expect(tool.parameters).toEqual({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    expect(await tool.call({ city: "oslo" }, context)).toBe("OSLO");
    const asyncSchema = z
      .object({ id: z.string() })
      .refine(async (value) => value.id.startsWith("u-"), { message: "ids start with u-", path: ["id"] });
    const lookup = defineTool({ name: "lookup", description: "", parameters: asyncSchema, call: ({ id }) => id });
    expect(
      (await new ToolRunner([lookup]).run({ id: "1", name: "lookup", args: { id: "x" } }, context)).error,
    ).toContain("id: ids start with u-");
  });

  it("a schema whose conversion fails is refused at definition, naming the fix", () => {
    const date = z.object({ when: z.date() });
    expect(() => defineTool({ name: "d", description: "", parameters: date, call: () => 0 })).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidArgument,
        message: expect.stringMatching(
          /^tool "d": the zod schema could not be converted to JSON Schema .*pass the JSON Schema as jsonSchema$/,
        ),
      }),
    );
    const tool = defineTool({
      name: "d",
      description: "",
      parameters: date,
      jsonSchema: { type: "object", properties: { when: { type: "string" } } },
      call: ({ when }) => when.getTime(),
    });
    expect(tool.parameters).toEqual({ type: "object", properties: { when: { type: "string" } } });
  });

  it("JavaScript misuse: a Standard Schema in a hand-made tool, jsonSchema beside a JSON Schema", () => {
    expect(() => validateTool({ name: "x", description: "", parameters: z.object({}), call: () => 0 })).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidArgument,
        message: expect.stringContaining("make the tool with defineTool"),
      }),
    );
    expect(() =>
      defineTool({
        name: "x",
        description: "",
        parameters: { type: "object" },
        jsonSchema: {},
        call: () => 0,
      } as never),
    ).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidArgument,
        message: expect.stringContaining("jsonSchema goes with a Standard Schema"),
      }),
    );
  });
});
