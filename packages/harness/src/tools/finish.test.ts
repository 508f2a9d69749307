import { describe, expect, it } from "vitest";
import { createFinishTool } from "./finish.js";

describe("finish tool", () => {
  it("is offered only with a schema", () => {
    expect(createFinishTool(undefined)).toBeUndefined();
    expect(createFinishTool(" ")).toBeUndefined();
  });

  it("uses an object schema as its parameters and checks the arguments", () => {
    const finish = createFinishTool(
      JSON.stringify({
        type: "object",
        properties: { n: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
        required: ["n"],
        additionalProperties: false,
      }),
    );
    expect(finish?.outputString({ n: 3, tags: ["a"] })).toBe('{"n":3,"tags":["a"]}');
    expect(() => finish?.outputString({})).toThrow("$.n is required");
    expect(() => finish?.outputString({ n: 1.5, tags: [1], extra: true })).toThrow(
      /\$\.n must be integer.*\$\.tags\[0\] must be string.*\$\.extra is not allowed/,
    );
  });

  it("wraps a non-object schema as {result} and unwraps it", () => {
    const finish = createFinishTool(JSON.stringify({ type: "string", enum: ["yes", "no"] }));
    expect(finish?.declaration.parameters).toEqual({
      type: "object",
      properties: { result: { type: "string", enum: ["yes", "no"] } },
      required: ["result"],
    });
    expect(finish?.outputString({ result: "yes" })).toBe('"yes"');
    expect(() => finish?.outputString({ result: "maybe" })).toThrow(/must be one of/);
  });
});
