import { ErrorCode, SdkError } from "../errors.js";
import type { PromptPart } from "../prompt.js";

/** A media value, typed as media parts of a prompt are: what a tool returns to send an image, a document or audio. */
export type ToolMedia = Extract<PromptPart, { media: unknown }>["media"];

/** A JSON value: what reaches the harness in `responseJson`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A tool's return value, split as the harness receives it (protocol §7). */
export interface ToolResultValue {
  /** The value as JSON, media removed (upstream's placeholder text when nothing else was left). */
  json: JsonValue;
  /** Media found anywhere in the value, in encounter order: `supplementalMedia`. */
  media: ToolMedia[];
}

/** Nesting deeper than this is refused rather than overflowing the stack (Python's json stops near 1000 too). */
const MAX_DEPTH = 1000;
const MEDIA = Symbol("media");
/** A converted value that may still hold media markers. */
type Converted = null | boolean | number | string | typeof MEDIA | Converted[] | { [key: string]: Converted };

/**
 * Converts what a client tool returned into JSON plus media, following upstream's
 * `event_processor._send_tool_results`: media values (a prompt media part,
 * `{ media: { mimeType, data: Uint8Array, description? } }`) anywhere in the value are taken out
 * (`_extract_media_from_result`) and the rest is dumped as pydantic's JSON mode does
 * (`tool_result_to_dict`, `TypeAdapter(Any).dump_python(mode="json")`):
 *
 * | value | JSON |
 * |---|---|
 * | `undefined`, `null`, `NaN`, `±Infinity` | `null` |
 * | `bigint` | a number when safe, else its decimal digits as a string (no precision lost) |
 * | `Uint8Array`, `ArrayBuffer`, `DataView`, `Buffer` | the bytes as UTF-8 text, base64 when they are not UTF-8 |
 * | other typed arrays, `Set` | arrays |
 * | `Map` | an object (keys as strings) |
 * | an object with `toJSON` (`Date`, `URL`…) | what `toJSON()` gives, converted |
 * | `RegExp` | its source; `Error`: `{ name, message, …own fields }`; boxed primitives: their value |
 * | functions, symbols, promises, cycles, nesting deeper than 1000 | refused: `InvalidArgument` naming the path |
 *
 * When media were taken out, `null` and emptied arrays and objects are dropped from the rest and
 * a value with nothing left reads `"Returned N media attachment(s)."` (upstream).
 */
export function toolResultValue(value: unknown): ToolResultValue {
  const media: ToolMedia[] = [];
  const converted = convert(value, "$", [], media);
  if (media.length === 0) return { json: converted as JsonValue, media }; // no media, so no marker
  const cleaned = withoutMedia(converted);
  return { json: cleaned ?? `Returned ${media.length} media attachment(s).`, media };
}

function convert(value: unknown, path: string, ancestors: object[], media: ToolMedia[]): Converted {
  switch (typeof value) {
    case "undefined":
      return null;
    case "boolean":
    case "string":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(value)
        : value.toString();
    case "function":
    case "symbol":
      throw refuse(path, `a ${typeof value}`);
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.includes(object)) throw refuse(path, "a circular reference");
  if (ancestors.length >= MAX_DEPTH) throw refuse(path, `nesting deeper than ${MAX_DEPTH} levels`);
  if (isMedia(object)) {
    media.push(object.media);
    return MEDIA;
  }
  // One stack of the objects being converted (a refusal ends the whole conversion, so no pop is owed then).
  ancestors.push(object);
  const out = convertObject(object, path, ancestors, media);
  ancestors.pop();
  return out;
}

function convertObject(object: object, path: string, ancestors: object[], media: ToolMedia[]): Converted {
  const child = (item: unknown, at: string): Converted => convert(item, at, ancestors, media);
  if (Array.isArray(object)) return Array.from(object, (item: unknown, i) => child(item, `${path}[${i}]`));
  // A plain object, the usual result, is none of the built-in types checked here: it skips their checks.
  const prototype: unknown = Object.getPrototypeOf(object);
  const plain = prototype === Object.prototype || prototype === null;
  if (!plain) {
    if (object instanceof Uint8Array) return bytesText(object);
    if (object instanceof ArrayBuffer) return bytesText(new Uint8Array(object));
    if (object instanceof DataView)
      return bytesText(new Uint8Array(object.buffer, object.byteOffset, object.byteLength));
    if (ArrayBuffer.isView(object))
      return Array.from(object as unknown as ArrayLike<unknown>, (item, i) => child(item, `${path}[${i}]`));
    if (object instanceof Set) return Array.from(object, (item: unknown, i) => child(item, `${path}[${i}]`));
    if (object instanceof Map) {
      const out: Record<string, Converted> = {};
      for (const [key, item] of object) {
        const name = mapKey(key, path, ancestors, media);
        out[name] = child(item, `${path}[${JSON.stringify(name)}]`);
      }
      return out;
    }
  }
  if (typeof (object as { then?: unknown }).then === "function")
    throw refuse(path, "a promise (await it before returning)");
  if (!plain) {
    if (object instanceof RegExp) return object.source;
    if (object instanceof Boolean || object instanceof Number || object instanceof String)
      return child(object.valueOf(), path);
  }
  if (typeof (object as { toJSON?: unknown }).toJSON === "function")
    return child((object as { toJSON(key: string): unknown }).toJSON(""), path);
  const out: Record<string, Converted> = {};
  if (!plain && object instanceof Error) {
    out["name"] = object.name;
    out["message"] = object.message;
  }
  for (const key of Object.keys(object)) out[key] = child((object as Record<string, unknown>)[key], `${path}.${key}`);
  return out;
}

/** A `Map` key as an object key: strings as they are, anything else as its JSON text. */
function mapKey(key: unknown, path: string, ancestors: object[], media: ToolMedia[]): string {
  if (typeof key === "string") return key;
  const converted = convert(key, `${path} key`, ancestors, media);
  return typeof converted === "string" ? converted : JSON.stringify(converted === MEDIA ? null : converted);
}

/** Pydantic's bytes in JSON mode: UTF-8 text; bytes that are not UTF-8 as base64. */
function bytesText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  }
}

/** Upstream `_extract_media_from_result`'s cleaning: drop media and nulls, emptied containers become null. */
function withoutMedia(value: Converted): JsonValue | undefined {
  if (value === MEDIA || value === null) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => withoutMedia(item)).filter((item): item is JsonValue => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === "object") {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleaned = withoutMedia(item);
      if (cleaned !== undefined) out[key] = cleaned;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}

function isMedia(value: object): value is { media: ToolMedia } {
  const media = (value as { media?: unknown }).media;
  if (typeof media !== "object" || media === null || Object.keys(value).length !== 1) return false;
  const { mimeType, data, description } = media as { mimeType?: unknown; data?: unknown; description?: unknown };
  return (
    typeof mimeType === "string" &&
    data instanceof Uint8Array &&
    (description === undefined || typeof description === "string")
  );
}

function refuse(path: string, what: string): SdkError {
  return new SdkError(
    ErrorCode.InvalidArgument,
    `the result holds ${what} at ${path}; return JSON data (objects, arrays, strings, numbers, booleans, null), media parts, Map, Set, Date, bytes or bigint`,
  );
}
