/**
 * A small JSON Schema checker for the keywords tool and structured-output schemas use: `type`
 * (JSON Schema's lower-case names and the Gemini API's upper-case ones, protocol §5.1),
 * `properties`, `required`, `items`, `enum`, `additionalProperties: false`. Unknown keywords are
 * ignored (accepting is safer than rejecting valid model output). One checker serves both sides:
 * the SDK checks a client tool's arguments before `call` runs, the harness the `finish` tool's.
 *
 * Kept hand-written rather than a validator library on purpose: a general validator would run a
 * schema's `pattern` as a regular expression against model output (a catastrophic pattern stalls
 * the event loop), does not know the Gemini API's type names, and costs more of the browser bundle
 * than these 50 lines.
 */
export function checkJsonSchema(value: unknown, schema: unknown, at = "$"): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const s = schema as Record<string, unknown>;
  const problems: string[] = [];
  const types = Array.isArray(s["type"]) ? (s["type"] as unknown[]) : s["type"] === undefined ? [] : [s["type"]];
  if (types.length > 0 && !types.some((t) => typeof t === "string" && hasType(value, t))) {
    return [`${at} must be ${types.join(" or ")}, got ${describe(value)}`];
  }
  if (Array.isArray(s["enum"]) && !s["enum"].some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    problems.push(`${at} must be one of ${JSON.stringify(s["enum"])}`);
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const properties = (typeof s["properties"] === "object" && s["properties"] !== null ? s["properties"] : {}) as Record<string, unknown>;
    for (const key of Array.isArray(s["required"]) ? s["required"] : []) {
      if (typeof key === "string" && !(key in object)) problems.push(`${at}.${key} is required`);
    }
    for (const [key, child] of Object.entries(object)) {
      if (key in properties) problems.push(...checkJsonSchema(child, properties[key], `${at}.${key}`));
      else if (s["additionalProperties"] === false) problems.push(`${at}.${key} is not allowed`);
    }
  }
  if (Array.isArray(value) && s["items"] !== undefined) {
    value.forEach((item, i) => problems.push(...checkJsonSchema(item, s["items"], `${at}[${i}]`)));
  }
  return problems;
}

function hasType(value: unknown, type: string): boolean {
  switch (type.toLowerCase()) {
    case "string": return typeof value === "string";
    case "number": return typeof value === "number" && Number.isFinite(value);
    case "integer": return typeof value === "number" && Number.isInteger(value);
    case "boolean": return typeof value === "boolean";
    case "null": return value === null;
    case "array": return Array.isArray(value);
    case "object": return typeof value === "object" && value !== null && !Array.isArray(value);
    default: return true;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
