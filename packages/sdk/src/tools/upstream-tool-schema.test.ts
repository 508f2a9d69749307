import { describe, expect, it } from "vitest";
import { defineTool } from "./tool.js";
import { ToolRunner } from "./tool-runner.js";

// The cases of upstream's CallableToToolProtoTest that are new since 0.1.14 and test what the
// harness receives for a tool given with its own schema
// (Stars1233/antigravity-sdk-python google/antigravity/connections/local/local_connection_test.py
// @238766a385e2087fb98238d112a13fc9efc28b29, `callable_to_tool_proto` with a `ToolWithSchema`),
// checked on `Tool.parametersJsonSchema` as the SDK sends it.
//
// Skipped, Python-only (8): test_callable_to_tool_proto_schema_lowercase_types, _complex_types,
// _enum_preserves_values, _no_params, _param_named_type_collision, _literal_enum_preservation,
// _union_combiners, _tool_context_injection_stripping — they test how a schema is derived from a
// Python signature (type hints, pydantic models, enum.Enum, Literal, Union, ToolContext injection).
// Here a tool's schema is written (JSON Schema) or comes from a Standard Schema library; a
// parameter named `type` is covered below, and a tool without parameters by tool-runner.test.ts.

const SOURCE = "Stars1233 local_connection_test.py @238766a3";

/** The parametersJsonSchema the SDK declares for a tool with this schema. */
function declared(parameters: Record<string, unknown>): unknown {
  const runner = new ToolRunner([
    defineTool({ name: "raw_fn", description: "d", parameters: parameters as never, call: () => "ok" }),
  ]);
  return JSON.parse(runner.declarations()[0]?.parametersJsonSchema ?? "null");
}

describe(`callable_to_tool_proto with a schema of its own (${SOURCE})`, () => {
  it("test_callable_to_tool_proto_tool_with_schema: the Gemini API's type names are sent as JSON Schema's", () => {
    expect(declared({ type: "OBJECT", properties: { query: { type: "STRING" } } })).toEqual({
      type: "object",
      properties: { query: { type: "string" } },
    });
  });

  it("test_callable_to_tool_proto_tool_with_schema_uppercase_types: only the type names change", () => {
    expect(
      declared({
        type: "OBJECT",
        properties: {
          count: { type: "INTEGER" },
          rate: { type: "NUMBER" },
          type: { type: "STRING", enum: ["OBJECT"] },
        },
        const: "UPPERCASE_CONST",
        default: "DEFAULT_VAL",
      }),
    ).toEqual({
      type: "object",
      properties: { count: { type: "integer" }, rate: { type: "number" }, type: { type: "string", enum: ["OBJECT"] } },
      const: "UPPERCASE_CONST",
      default: "DEFAULT_VAL",
    });
  });

  it("reaches nested schemas (items, anyOf, additionalProperties, $defs) and leaves lower-case schemas as they are", () => {
    const nested = {
      type: "OBJECT",
      properties: {
        tags: { type: "ARRAY", items: { type: "STRING" } },
        id: { anyOf: [{ type: "INTEGER" }, { type: "STRING" }] },
        meta: { type: "OBJECT", additionalProperties: { type: "BOOLEAN" } },
        ref: { $ref: "#/$defs/p" },
      },
      $defs: { p: { type: ["NUMBER", "NULL"] } },
    };
    expect(declared(nested)).toEqual({
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" } },
        id: { anyOf: [{ type: "integer" }, { type: "string" }] },
        meta: { type: "object", additionalProperties: { type: "boolean" } },
        ref: { $ref: "#/$defs/p" },
      },
      $defs: { p: { type: ["number", "null"] } },
    });
    const plain = { type: "object", properties: { a: { type: "string", description: "OBJECT" } }, required: ["a"] };
    expect(declared(plain)).toEqual(plain);
  });
});
