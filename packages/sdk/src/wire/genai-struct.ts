import type { MessageInitShape } from "@bufbuild/protobuf";
import type { StructSchema, ValueSchema } from "../gen/genai/content_pb.js";

// `genai.Struct` (proto/genai/content.proto) is not google.protobuf.Struct: an object is
// `{fields: [{name, value}]}` and a value a oneof (`nullValue`, `numberValue`, `stringValue`,
// `boolValue`, `structValue`, `listValue`). PreToolResult.modified_args (upstream
// localharness.proto @257f843a, field 4) carries a hook's arguments in it; these convert
// between plain JSON and the message (as protobuf-es init shapes and as its JSON); the decoded
// message's reader, which every step may need, is genai-struct-read.ts, so that this stays lazy.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A plain JSON object as a genai.Struct init shape (values that JSON cannot hold are first made JSON, as `JSON.stringify` would). */
export function structInitOf(object: object): MessageInitShape<typeof StructSchema> {
  const plain = JSON.parse(JSON.stringify(object)) as JsonObject;
  return { fields: Object.entries(plain).map(([name, value]) => ({ name, value: valueInitOf(value) })) };
}

function valueInitOf(value: Json): MessageInitShape<typeof ValueSchema> {
  if (value === null) return { kind: { case: "nullValue", value: 0 } };
  if (typeof value === "number") return { kind: { case: "numberValue", value } };
  if (typeof value === "string") return { kind: { case: "stringValue", value } };
  if (typeof value === "boolean") return { kind: { case: "boolValue", value } };
  if (Array.isArray(value)) return { kind: { case: "listValue", value: { values: value.map(valueInitOf) } } };
  return { kind: { case: "structValue", value: structInitOf(value) } };
}

/** A plain JSON object as genai.Struct's JSON (`{fields: [...]}`). */
export function structJsonOf(object: JsonObject): JsonObject {
  return { fields: Object.entries(object).map(([name, value]) => ({ name, value: valueJsonOf(value) })) };
}

function valueJsonOf(value: Json): JsonObject {
  if (value === null) return { nullValue: "NULL_VALUE" };
  if (typeof value === "number") return { numberValue: value };
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(valueJsonOf) } };
  return { structValue: structJsonOf(value) };
}

/** genai.Struct's JSON as a plain object; `undefined` when it is not a Struct's JSON. */
export function plainOfStructJson(json: Json | undefined): JsonObject | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const fields = json.fields ?? [];
  if (!Array.isArray(fields)) return undefined;
  const out: JsonObject = {};
  for (const field of fields) {
    if (typeof field !== "object" || field === null || Array.isArray(field) || typeof field.name !== "string")
      return undefined;
    const value = plainOfValueJson(field.value ?? null);
    if (value === INVALID) return undefined;
    out[field.name] = value;
  }
  return out;
}

const INVALID = Symbol("invalid");

function plainOfValueJson(json: Json): Json | typeof INVALID {
  if (json === null) return null;
  if (typeof json !== "object" || Array.isArray(json)) return INVALID;
  const keys = Object.keys(json);
  if (keys.length === 0 || "nullValue" in json || "null_value" in json) return null;
  const number = json.numberValue ?? json.number_value;
  if (number !== undefined)
    return typeof number === "number" ? number : typeof number === "string" ? Number(number) : INVALID;
  const string = json.stringValue ?? json.string_value;
  if (string !== undefined) return typeof string === "string" ? string : INVALID;
  const bool = json.boolValue ?? json.bool_value;
  if (bool !== undefined) return typeof bool === "boolean" ? bool : INVALID;
  const struct = json.structValue ?? json.struct_value;
  if (struct !== undefined) return plainOfStructJson(struct) ?? INVALID;
  const list = json.listValue ?? json.list_value;
  if (typeof list === "object" && list !== null && !Array.isArray(list)) {
    const values = list.values ?? [];
    if (!Array.isArray(values)) return INVALID;
    const out: Json[] = [];
    for (const item of values) {
      const value = plainOfValueJson(item);
      if (value === INVALID) return INVALID;
      out.push(value);
    }
    return out;
  }
  return INVALID;
}
