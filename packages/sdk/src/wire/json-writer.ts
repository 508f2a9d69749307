import { ErrorCode, SdkError } from "../errors.js";
import { FieldKind, Scalar, requireWireMessage, type WireField } from "./wire-plan.js";

// The frames the SDK sends, written from the schema-free wire plan (wire-plan.ts) instead of
// protobuf-es's reflection: `writeJson(typeName, init)` is `toJson(schema, create(schema, init))`
// — same members, same order, same values (json-writer.test.ts checks this on generated messages).
// proto3 JSON mapping (§4.1): lowerCamelCase names in field-number order, enums as names, 64-bit
// integers as decimal strings, bytes as padded base64, NaN/±Infinity as strings, fields without
// presence omitted at their zero value, empty lists and maps omitted.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Options of {@link writeJson}. */
export interface WriteJsonOptions {
  /** Proto field names (`snake_case`) instead of JSON names, like `toJson`'s `useProtoFieldName`. */
  readonly protoNames?: boolean;
}

/**
 * The proto3 JSON of a message of `typeName` given as a message or a `MessageInitShape` (nested
 * messages as plain objects, absent members left out). Throws `SdkError` `InvalidArgument` when a
 * value has the wrong type (where `toJson` throws too).
 *
 * @example
 * JSON.stringify(writeJson("antigravity.localharness.InputEvent", { event: { case: "haltRequest", value: true } })); // '{"haltRequest":true}'
 */
export function writeJson(typeName: string, message: object, options: WriteJsonOptions = {}): { [key: string]: Json } {
  return writeMessage(typeName, message as Record<string, unknown>, options.protoNames === true);
}

function writeMessage(
  typeName: string,
  message: Record<string, unknown>,
  protoNames: boolean,
): { [key: string]: Json } {
  const json: { [key: string]: Json } = {};
  for (const field of requireWireMessage(typeName).sortedFields) {
    let value: unknown;
    if (field.oneof !== undefined) {
      const group = message[field.oneof] as { case?: unknown; value?: unknown } | null | undefined;
      if (group == null || group.case !== field.name) continue;
      value = group.value;
    } else {
      value = message[field.name];
    }
    if (value == null) continue; // create() ignores null and undefined
    let out: Json | undefined;
    switch (field.kind) {
      case FieldKind.Implicit:
        if (isZero(field, value)) continue;
        out = writeValue(field, value, protoNames);
        break;
      case FieldKind.Explicit:
        out = writeValue(field, value, protoNames);
        break;
      case FieldKind.List: {
        if (!Array.isArray(value)) throw typeError(field, value);
        if (value.length === 0) continue;
        out = value.map((item: unknown) => writeValue(field, item, protoNames));
        break;
      }
      default: {
        if (typeof value !== "object" || Array.isArray(value)) throw typeError(field, value);
        const entries = Object.entries(value as Record<string, unknown>);
        if (entries.length === 0) continue;
        const map: { [key: string]: Json } = {};
        for (const [key, item] of entries) map[key] = writeValue(field, item, protoNames);
        out = map;
      }
    }
    json[protoNames ? field.protoName : field.name] = out;
  }
  return json;
}

/** `isScalarZeroValue` of protobuf-es, for fields without presence. */
function isZero(field: WireField, value: unknown): boolean {
  if (field.scalar === Scalar.BYTES)
    return value instanceof Uint8Array ? value.length === 0 : Array.isArray(value) && value.length === 0;
  if (field.scalar === Scalar.STRING) return value === "";
  if (field.scalar === Scalar.BOOL) return value === false;
  // biome-ignore lint/suspicious/noDoubleEquals: loose on purpose — 0, 0n and "0" are all the zero of a number, enum or 64-bit field
  return value == 0;
}

function writeValue(field: WireField, value: unknown, protoNames: boolean): Json {
  if (field.messageType !== undefined) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw typeError(field, value);
    return writeMessage(field.messageType, value as Record<string, unknown>, protoNames);
  }
  if (field.enumType !== undefined) {
    if (typeof value !== "number") throw typeError(field, value);
    if (field.enumType.typeName === "google.protobuf.NullValue") return null;
    return field.enumType.names.get(value) ?? value; // an unknown number stays a number
  }
  switch (field.scalar) {
    case Scalar.STRING:
      if (typeof value !== "string") throw typeError(field, value);
      return value;
    case Scalar.BOOL:
      if (typeof value !== "boolean") throw typeError(field, value);
      return value;
    case Scalar.DOUBLE:
    case Scalar.FLOAT:
      if (typeof value !== "number") throw typeError(field, value);
      if (Number.isNaN(value)) return "NaN";
      if (value === Infinity) return "Infinity";
      if (value === -Infinity) return "-Infinity";
      return value;
    case Scalar.INT64:
    case Scalar.UINT64:
    case Scalar.FIXED64:
    case Scalar.SFIXED64:
    case Scalar.SINT64:
      if (
        typeof value === "bigint" ||
        typeof value === "string" ||
        (typeof value === "number" && Number.isInteger(value))
      )
        return value.toString();
      throw typeError(field, value);
    case Scalar.BYTES:
      if (value instanceof Uint8Array) return base64(value);
      if (Array.isArray(value)) return base64(new Uint8Array(value as number[])); // create() accepts number arrays
      throw typeError(field, value);
    default: // 32-bit integers
      if (typeof value !== "number") throw typeError(field, value);
      return value;
  }
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 with padding, as `toJson` writes bytes. */
function base64(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out +=
      BASE64.charAt(n >> 18) + BASE64.charAt((n >> 12) & 63) + BASE64.charAt((n >> 6) & 63) + BASE64.charAt(n & 63);
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += BASE64.charAt(n >> 18) + BASE64.charAt((n >> 12) & 63) + "==";
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += BASE64.charAt(n >> 18) + BASE64.charAt((n >> 12) & 63) + BASE64.charAt((n >> 6) & 63) + "=";
  }
  return out;
}

function typeError(field: WireField, value: unknown): SdkError {
  const got = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
  const expected = field.messageType ?? field.enumType?.typeName ?? `scalar type ${field.scalar}`;
  return new SdkError(
    ErrorCode.InvalidArgument,
    `cannot encode field ${field.protoName} (${field.number}) to JSON: expected ${expected}, got ${got}`,
  );
}
