import type { Struct, Value } from "../gen/genai/content_pb.js";

// The reader of a decoded `genai.Struct` (genai-struct.ts says what the message is), apart from
// the writers and the JSON forms there: a tool call's `arguments` is read on the start-up path
// (mapping/tool-arguments.ts), the rest only by hooks and the older wire era's spelling, which
// load lazily, and a bundler cannot split one file between the two.

/** A decoded genai.Struct as a plain object. */
export function plainOfStruct(struct: Pick<Struct, "fields">): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = {};
  for (const field of struct.fields)
    if (field.name !== undefined) out[field.name] = field.value === undefined ? null : plainOfValue(field.value);
  return out;
}

function plainOfValue(value: Pick<Value, "kind">): unknown {
  switch (value.kind.case) {
    case "structValue":
      return plainOfStruct(value.kind.value);
    case "listValue":
      return value.kind.value.values.map(plainOfValue);
    case "nullValue":
    case undefined:
      return null;
    default:
      return value.kind.value;
  }
}
