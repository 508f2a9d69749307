import { describe, expect, it } from "vitest";
import { z } from "zod";
import { coerceArguments } from "./coerce-arguments.js";
import { defineTool, type ToolContext } from "./tool.js";
import { ToolRunner } from "./tool-runner.js";

// Upstream's ToolRunner._coerce_args (google/antigravity/tools/tool_runner.py, pydantic lax mode):
// a model that sends "7" for an integer parameter gets its tool run with 7.

const context: ToolContext = {
  conversationId: "c",
  callId: "1",
  signal: new AbortController().signal,
  state: new Map(),
  sendTrigger: async () => undefined,
};
const SCHEMA = {
  type: "object",
  properties: {
    n: { type: "integer" },
    x: { type: "NUMBER" },
    on: { type: "boolean" },
    name: { type: "string" },
    either: { type: ["integer", "string"] },
    list: { type: "array", items: { type: "integer" } },
    inner: { type: "object", properties: { flag: { type: "boolean" } } },
  },
} as const;

describe("coerceArguments", () => {
  it("converts unambiguous strings to the declared integer, number and boolean, through properties and items", () => {
    const args = {
      n: " 7 ",
      x: "-2.5e1",
      on: "Yes",
      name: "7",
      either: "7",
      list: ["1", 2, "x"],
      inner: { flag: "off" },
      extra: "9",
    };
    expect(coerceArguments(args, SCHEMA)).toEqual({
      n: 7,
      x: -25,
      on: true,
      name: "7",
      either: "7",
      list: [1, 2, "x"],
      inner: { flag: false },
      extra: "9",
    });
    expect(args.n).toBe(" 7 "); // the model's arguments are not changed in place
  });

  it("leaves what is ambiguous or already right for validation, and returns the same object when nothing changes", () => {
    expect(coerceArguments({ n: "7.5", x: "NaN", on: "maybe" }, SCHEMA)).toEqual({ n: "7.5", x: "NaN", on: "maybe" });
    expect(coerceArguments({ n: "99999999999999999999" }, SCHEMA)).toEqual({ n: "99999999999999999999" });
    expect(coerceArguments({ on: 1, n: 1.5 }, SCHEMA)).toEqual({ on: true, n: 1.5 });
    const right = { n: 7, on: false, name: "x" };
    expect(coerceArguments(right, SCHEMA)).toBe(right);
    expect(coerceArguments("7", { type: "integer" })).toBe(7);
  });
});

describe("ToolRunner with coercion", () => {
  it('runs a JSON Schema tool with 7 for "7", and a strict one answers the model with the validation error', async () => {
    const seen: unknown[] = [];
    const lax = defineTool({
      name: "add",
      description: "",
      parameters: SCHEMA,
      call: (args) => (seen.push(args), { ok: true }),
    });
    const strict = defineTool({
      name: "add_strict",
      description: "",
      parameters: SCHEMA,
      strictArguments: true,
      call: (args) => (seen.push(args), { ok: true }),
    });
    const runner = new ToolRunner([lax, strict]);
    expect(await runner.run({ id: "1", name: "add", args: { n: "7", on: "true" } }, context)).toEqual({
      id: "1",
      name: "add",
      result: { ok: true },
    });
    expect(seen).toEqual([{ n: 7, on: true }]);
    const refused = await runner.run({ id: "2", name: "add_strict", args: { n: "7" } }, context);
    expect(refused.error).toContain("Invalid arguments for tool add_strict: $.n must be integer");
    expect(seen).toHaveLength(1);
  });

  it("coerces before a Standard Schema (zod) validates, from the JSON Schema zod derives", async () => {
    const tool = defineTool({
      name: "days",
      description: "",
      parameters: z.object({ days: z.number().int(), hot: z.boolean() }),
      call: ({ days, hot }) => ({ twice: days * 2, hot }),
    });
    const runner = new ToolRunner([tool]);
    expect(await runner.run({ id: "1", name: "days", args: { days: "3", hot: "false" } }, context)).toEqual({
      id: "1",
      name: "days",
      result: { twice: 6, hot: false },
    });
  });
});
