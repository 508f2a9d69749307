import type { JsonSchema } from "./tool.js";

/** The Gemini API's type names (`Type` of @google/genai: `"OBJECT"`, `"STRING"`, …) and their JSON Schema spelling. */
const GEMINI_TYPE = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"]);

/** Keywords whose value is one schema, a list of schemas, or a map of named schemas. */
const ONE = ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"];
const LIST = ["items", "prefixItems", "anyOf", "oneOf", "allOf"];
const NAMED = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/**
 * A tool's schema as `Tool.parametersJsonSchema` carries it: the Gemini API's upper-case `type`
 * names in JSON Schema's lower case, at every level, and nothing else changed (a property named
 * `type`, `const`, `default` and `enum` values keep their text). Upstream's `callable_to_tool_proto`
 * does the same for a `ToolWithSchema` (local_connection_test.py, Stars1233 @238766a3:
 * `test_callable_to_tool_proto_tool_with_schema`, `…_tool_with_schema_uppercase_types`), so a
 * harness or model provider that reads JSON Schema gets JSON Schema.
 */
export function declaredSchema(schema: JsonSchema): JsonSchema {
  return lowerTypes(schema, 0) as JsonSchema;
}

function lowerTypes(node: unknown, depth: number): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node) || depth > 1000) return node;
  const out: Record<string, unknown> = { ...(node as Record<string, unknown>) };
  const type = out["type"];
  if (typeof type === "string") out["type"] = lower(type);
  else if (Array.isArray(type)) out["type"] = type.map((t) => (typeof t === "string" ? lower(t) : t));
  for (const key of Object.keys(out)) {
    const value = out[key];
    if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map((s) => lowerTypes(s, depth + 1));
    else if (ONE.includes(key)) out[key] = lowerTypes(value, depth + 1);
    else if (NAMED.includes(key) && typeof value === "object" && value !== null && !Array.isArray(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, lowerTypes(s, depth + 1)]));
  }
  return out;
}

function lower(type: string): string {
  return GEMINI_TYPE.has(type) ? type.toLowerCase() : type;
}
