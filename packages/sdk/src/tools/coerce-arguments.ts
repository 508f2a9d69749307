// A model's tool arguments brought to the declared scalar types before validation, as upstream's
// ToolRunner does (google/antigravity/tools/tool_runner.py `_coerce_args`, lovicho/antigravity-sdk-python
// @8c508b83: each argument through `pydantic.TypeAdapter(annotation).validate_python`, lax mode,
// keeping the value as it was when that fails). Only what is unambiguous changes: a string that
// spells an integer for `integer`, a finite number for `number`, pydantic's boolean words for
// `boolean`, and 0 / 1 for `boolean`. A schema that also allows the value's own type (a union
// with `string`, say) leaves it alone; anything else is left for validation to name.

/** pydantic's lax `str` → `bool` words (pydantic-core `bool` parsing), case-insensitive. */
const TRUE_WORDS = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE_WORDS = new Set(["0", "off", "f", "false", "n", "no"]);
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const MAX_DEPTH = 64;

/**
 * `args` with each value whose schema declares `integer`, `number` or `boolean` (JSON Schema's
 * names or the Gemini API's upper-case ones) converted from an unambiguous string (or, for
 * `boolean`, 0 / 1), through `properties` and `items`. Returns `args` itself when nothing changed.
 */
export function coerceArguments(args: unknown, schema: unknown): unknown {
  return coerce(args, schema, 0);
}

function coerce(value: unknown, schema: unknown, depth: number): unknown {
  if (typeof schema !== "object" || schema === null || depth > MAX_DEPTH) return value;
  const s = schema as Record<string, unknown>;
  const types = typeNames(s["type"]);
  if (typeof value === "string" || typeof value === "number") {
    if (types === undefined || allows(types, value)) return value;
    return scalar(value, types);
  }
  if (Array.isArray(value)) {
    const items = s["items"];
    if (items === undefined) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = coerce(value[i], items, depth + 1);
      if (next !== value[i]) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  if (typeof value === "object" && value !== null) {
    const properties = s["properties"];
    if (typeof properties !== "object" || properties === null) return value;
    const object = value as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(object)) {
      if (!Object.hasOwn(properties, key)) continue;
      const next = coerce(object[key], (properties as Record<string, unknown>)[key], depth + 1);
      if (next !== object[key]) (out ??= { ...object })[key] = next;
    }
    return out ?? value;
  }
  return value;
}

function typeNames(type: unknown): Set<string> | undefined {
  if (typeof type === "string") return new Set([type.toLowerCase()]);
  if (!Array.isArray(type)) return undefined;
  const names = new Set<string>();
  for (const t of type) if (typeof t === "string") names.add(t.toLowerCase());
  return names.size === 0 ? undefined : names;
}

/** True when the value already has one of the declared types (then it is never converted). */
function allows(types: Set<string>, value: string | number): boolean {
  if (typeof value === "string") return types.has("string");
  return types.has("number") || (types.has("integer") && Number.isInteger(value));
}

function scalar(value: string | number, types: Set<string>): unknown {
  if (typeof value === "number") {
    // pydantic's lax bool takes the integers 0 and 1.
    if (types.has("boolean") && (value === 0 || value === 1)) return value === 1;
    return value;
  }
  const text = value.trim();
  if (types.has("integer") && INTEGER.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  }
  if (types.has("number") && NUMBER.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n)) return n;
  }
  if (types.has("boolean")) {
    const word = text.toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return value;
}
