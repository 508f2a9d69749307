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
  const problems: string[] = [];
  collectProblems(value, schema, at, problems);
  return problems;
}

/**
 * {@link checkJsonSchema}'s walk, adding to one `problems` list. It runs before every client tool
 * call, so the valid path allocates nothing: no type list, no per-level arrays, no entry pairs.
 */
function collectProblems(value: unknown, schema: unknown, at: string, problems: string[]): void {
  if (typeof schema !== "object" || schema === null) return;
  const s = schema as Record<string, unknown>;
  const type = s["type"];
  if (type !== undefined && !matchesType(value, type)) {
    problems.push(`${at} must be ${(Array.isArray(type) ? type : [type]).join(" or ")}, got ${describe(value)}`);
    return;
  }
  const options = s["enum"];
  if (Array.isArray(options) && !isOneOf(value, options))
    problems.push(`${at} must be one of ${JSON.stringify(options)}`);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const required = s["required"];
    if (Array.isArray(required)) {
      for (const key of required)
        if (typeof key === "string" && !(key in object)) problems.push(`${at}.${key} is required`);
    }
    const properties = (
      typeof s["properties"] === "object" && s["properties"] !== null ? s["properties"] : NO_PROPERTIES
    ) as Record<string, unknown>;
    const closed = s["additionalProperties"] === false;
    // With no properties and no `additionalProperties: false` there is nothing to check per key.
    if (properties !== NO_PROPERTIES || closed) {
      for (const key of Object.keys(object)) {
        if (key in properties) collectProblems(object[key], properties[key], `${at}.${key}`, problems);
        else if (closed) problems.push(`${at}.${key} is not allowed`);
      }
    }
  }
  if (Array.isArray(value) && s["items"] !== undefined) {
    for (let i = 0; i < value.length; i++) collectProblems(value[i], s["items"], `${at}[${i}]`, problems);
  }
}

const NO_PROPERTIES: Record<string, unknown> = {};

/** `type` is one name or a list of names; a list with no names matches nothing but an empty list. */
function matchesType(value: unknown, type: unknown): boolean {
  if (!Array.isArray(type)) return typeof type === "string" && hasType(value, type);
  if (type.length === 0) return true;
  for (const t of type) if (typeof t === "string" && hasType(value, t)) return true;
  return false;
}

function isOneOf(value: unknown, options: unknown[]): boolean {
  const json = JSON.stringify(value);
  for (const option of options) if (JSON.stringify(option) === json) return true;
  return false;
}

function hasType(value: unknown, type: string): boolean {
  switch (type.toLowerCase()) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
