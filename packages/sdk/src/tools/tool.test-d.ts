// Type tests of schema-first tools (issue 12 item 1), checked by `tsc -b` through
// packages/sdk/tsconfig.test.json: every `@ts-expect-error` line must be an error.
import { type } from "arktype";
import * as v from "valibot";
import { expectTypeOf } from "vitest";
import * as z from "zod";
import { defineTool, type Tool } from "./tool.js";

// A zod schema types `call`'s argument: the wrong argument type does not compile.
const weatherSchema = z.object({ city: z.string(), days: z.number().int().default(1) });
defineTool({
  name: "weather",
  description: "",
  parameters: weatherSchema,
  call: (args) => {
    expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
    return args.city;
  },
});
// (One line each: TypeScript 6 reports the error at the call, TypeScript 7 at `call`.)
// biome-ignore format: one line, so the directive covers the error wherever TypeScript reports it
// @ts-expect-error `town` is not in the schema; the argument is { city: string; days: number }
defineTool({ name: "weather", description: "", parameters: weatherSchema, call: ({ town }: { town: number }) => ({ doubled: town * 2 }) });
// The tool's own argument type is the schema's input (`days` may be left out: it has a default).
expectTypeOf(defineTool({ name: "w", description: "", parameters: weatherSchema, call: () => 1 })).toEqualTypeOf<
  Tool<{ city: string; days?: number | undefined }>
>();

// A JSON Schema declared `as const` types `call`'s argument the same way.
const citySchema = {
  type: "object",
  properties: { city: { type: "string" }, unit: { type: "string", enum: ["C", "F"] } },
  required: ["city"],
} as const;
defineTool({
  name: "weather",
  description: "",
  parameters: citySchema,
  call: (args) => {
    expectTypeOf(args).toEqualTypeOf<{ city: string; unit?: "C" | "F" }>();
    return args.city;
  },
});
// biome-ignore format: one line, so the directive covers the error wherever TypeScript reports it
// @ts-expect-error `town` is not in the schema (issue 12: this used to compile and return {"doubled": null})
defineTool({ name: "weather", description: "", parameters: citySchema, call: ({ town }: { town: number }) => ({ doubled: town * 2 }) });
const listSchema = {
  type: "object",
  properties: {
    ids: { type: "array", items: { type: "integer" } },
    note: { type: "string", nullable: true },
    ok: { type: "boolean" },
  },
  required: ["ids", "note", "ok"],
} as const;
defineTool({
  name: "list",
  description: "",
  parameters: listSchema,
  call: (args) => expectTypeOf(args).toEqualTypeOf<{ ids: number[]; note: string | null; ok: boolean }>(),
});

// An inline JSON Schema (not `as const`) keeps the argument type of `call`'s parameter.
const add = defineTool({
  name: "add",
  description: "",
  parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } } },
  call: ({ a, b }: { a: number; b: number }) => a + b,
});
expectTypeOf(add).toEqualTypeOf<Tool<{ a: number; b: number }>>();
expectTypeOf(defineTool({ name: "now", description: "", call: () => Date.now() })).toEqualTypeOf<Tool<unknown>>();

// valibot (with its JSON Schema given explicitly) and arktype type `call` too.
defineTool({
  name: "v",
  description: "",
  parameters: v.object({ city: v.string() }),
  jsonSchema: { type: "object" },
  call: (args) => expectTypeOf(args).toEqualTypeOf<{ city: string }>(),
});
// biome-ignore format: one line, so the directive covers the error wherever TypeScript reports it
// @ts-expect-error wrong argument type for a valibot schema
defineTool({ name: "v", description: "", parameters: v.object({ city: v.string() }), jsonSchema: { type: "object" }, call: (args: { city: number }) => args });
defineTool({
  name: "a",
  description: "",
  parameters: type({ city: "string", "days?": "number" }),
  call: (args) => expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number }>(),
});
// `jsonSchema` goes only with a Standard Schema.
// @ts-expect-error jsonSchema beside a JSON Schema
defineTool({ name: "j", description: "", parameters: citySchema, jsonSchema: {}, call: () => 1 });
