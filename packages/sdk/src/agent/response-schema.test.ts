import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { buildHarnessConfig } from "../config/harness-config.js";
import { ErrorCode } from "../errors.js";
import { Agent } from "./agent.js";

const finishSchema = (options: Parameters<typeof buildHarnessConfig>[0]): unknown =>
  JSON.parse(buildHarnessConfig(options).finishToolSchemaJson ?? "");

describe("responseSchema with a Standard Schema", () => {
  it("sends the library's JSON Schema as finishToolSchemaJson (zod), without $schema", () => {
    const options = Agent.builder().responseSchema(
      z.object({ answer: z.string(), score: z.number().optional() }),
    ).options;
    expect(finishSchema(options)).toEqual({
      type: "object",
      properties: { answer: { type: "string" }, score: { type: "number" } },
      required: ["answer"],
    });
  });

  it("valibot: refused at the builder without its JSON Schema, sent as given with it", () => {
    const schema = v.object({ answer: v.string() });
    expect(() => Agent.builder().responseSchema(schema)).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidArgument,
        message: expect.stringContaining("responseSchema: the valibot schema cannot produce a JSON Schema by itself"),
      }),
    );
    const options = Agent.builder().responseSchema(schema, { jsonSchema: toJsonSchema(schema) }).options;
    expect(finishSchema(options)).toMatchObject({
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
    });
  });

  it("a later JSON Schema replaces the Standard Schema and its derived JSON Schema", () => {
    const options = Agent.builder()
      .responseSchema(z.object({ a: z.string() }))
      .responseSchema({ type: "object", properties: { b: { type: "integer" } } }).options;
    expect(options.responseJsonSchema).toBeUndefined();
    expect(finishSchema(options)).toEqual({ type: "object", properties: { b: { type: "integer" } } });
    expect(buildHarnessConfig(Agent.builder().responseSchema('{"type":"string"}').options).finishToolSchemaJson).toBe(
      '{"type":"string"}',
    );
  });
});
