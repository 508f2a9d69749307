import { create, ScalarType, type DescEnum, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";

// A fast path for the tolerant JSON decoding of §4.1. protobuf-es `fromJson` walks every value
// through its reflection API (a wrapper object per message, a type check per field set); a busy
// harness sends thousands of stepUpdate frames per second, and that walk was the SDK's largest
// cost. This reader does the same mapping with tables built once per message descriptor and writes
// plain message objects directly.
//
// It only decides what it can decide exactly like `fromJson(schema, json, { ignoreUnknownFields:
// true })`. Anything else — a null, a number given as a string, a 64-bit value out of range,
// bytes, maps with non-string keys, well-known types, a field set twice, an ill-formed string —
// makes it give up (`undefined`), and the caller runs `fromJson`, which accepts or rejects it with
// its own error. So the fast path never changes a result; json-reader.test.ts checks this on
// fuzzed frames.

/** Thrown (not an Error: no stack to capture) when the fast path gives up. */
const GIVE_UP: unique symbol = Symbol("give up");
/** An enum name this schema does not know: ignored, like `ignoreUnknownFields` does. */
const SKIP: unique symbol = Symbol("skip");

/** protobuf-es's recursion limit is 100 nested messages; stay well clear of the edge. */
const MAX_DEPTH = 64;
/** The edition number protobuf-es gives proto3 files: plain objects, no prototype chain. */
const EDITION_PROTO3 = 999;
const FLOAT32_MAX = 3.4028234663852886e38;
/** Decimal integer strings, as protojson writes 64-bit values (§4.1). */
const INT64_TEXT = /^-?[0-9]{1,20}$/;
const UINT64_TEXT = /^[0-9]{1,20}$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const hasOwn = Object.prototype.hasOwnProperty;

type Read = (json: unknown, depth: number) => unknown;

interface FieldPlan {
  readonly localName: string;
  /** `localName` of the oneof group, if the field is a member of one. */
  readonly oneof: string | undefined;
  /** The field's other JSON key (proto name vs JSON name): both present means "set twice". */
  readonly alias: string | undefined;
  readonly read: Read;
}

interface MessagePlan {
  readonly typeName: string;
  /**
   * The members a zero message has (`create(desc)`: lists, maps, oneof groups, implicit-presence
   * scalars), with a factory each (same index), so mutable values are never shared.
   */
  readonly zeroKeys: readonly string[];
  readonly zeroValues: readonly (() => unknown)[];
  readonly fields: ReadonlyMap<string, FieldPlan>;
}

/** Plans by descriptor; descriptors are module constants of the generated code, never collected. */
const plans = new Map<DescMessage, MessagePlan | null>();

/**
 * Reads a parsed JSON object as a message of `schema`, exactly as protobuf-es `fromJson` with
 * `ignoreUnknownFields` would, or returns `undefined` when it cannot be sure (the caller then runs
 * `fromJson`). Never throws.
 *
 * @example
 * const event = readJsonFast(OutputEventSchema, JSON.parse(frame)) ?? fromJson(OutputEventSchema, JSON.parse(frame), { ignoreUnknownFields: true });
 */
export function readJsonFast<Desc extends DescMessage>(schema: Desc, json: unknown): MessageShape<Desc> | undefined {
  try {
    return readMessage(schema, json, 1) as MessageShape<Desc>;
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error; // a bug in this file: let it show
  }
}

function readMessage(desc: DescMessage, json: unknown, depth: number): Record<string, unknown> {
  return readPlanned(planOf(desc), json, depth);
}

function readPlanned(plan: MessagePlan | null, json: unknown, depth: number): Record<string, unknown> {
  if (plan === null || depth > MAX_DEPTH || typeof json !== "object" || json === null || Array.isArray(json)) throw GIVE_UP;
  const source = json as Record<string, unknown>;
  // A literal, then plain stores: copying a template with `{...}` is many times slower in V8.
  const message: Record<string, unknown> = { $typeName: plan.typeName };
  const { zeroKeys, zeroValues } = plan;
  for (let i = 0; i < zeroKeys.length; i++) message[zeroKeys[i] as string] = (zeroValues[i] as () => unknown)();
  const keys = Object.keys(source);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const field = plan.fields.get(key);
    if (field === undefined) continue; // unknown field: ignored (§4.1)
    if (field.alias !== undefined && hasOwn.call(source, field.alias)) throw GIVE_UP;
    const raw = source[key];
    if (raw === null) throw GIVE_UP;
    const value = field.read(raw, depth);
    if (field.oneof === undefined) {
      if (value !== SKIP) message[field.localName] = value;
      continue;
    }
    const group = message[field.oneof] as { case: string | undefined };
    if (value === SKIP || group.case !== undefined) throw GIVE_UP;
    message[field.oneof] = { case: field.localName, value };
  }
  return message;
}

function planOf(desc: DescMessage): MessagePlan | null {
  let plan = plans.get(desc);
  if (plan === undefined) {
    plan = buildPlan(desc);
    plans.set(desc, plan);
  }
  return plan;
}

function buildPlan(desc: DescMessage): MessagePlan | null {
  // Well-known types have their own JSON forms; other editions track presence on a prototype.
  if (desc.typeName.startsWith("google.protobuf.") || desc.file.edition !== EDITION_PROTO3) return null;
  const zeroKeys: string[] = [];
  const zeroValues: (() => unknown)[] = [];
  for (const [key, value] of Object.entries(create(desc) as unknown as Record<string, unknown>)) {
    if (key === "$typeName") continue;
    zeroKeys.push(key);
    if (Array.isArray(value)) zeroValues.push(() => []);
    else if (value instanceof Uint8Array) zeroValues.push(() => new Uint8Array(0));
    else if (typeof value === "object" && value !== null) zeroValues.push("case" in value ? () => ({ case: undefined }) : () => ({}));
    else zeroValues.push(() => value);
  }
  // Keys as protobuf-es looks them up: the proto name, then the JSON name, later fields winning.
  const byKey = new Map<string, DescField>();
  for (const field of desc.fields) byKey.set(field.name, field).set(field.jsonName, field);
  const fields = new Map<string, FieldPlan>();
  for (const [key, field] of byKey) {
    const other = key === field.name ? field.jsonName : field.name;
    fields.set(key, {
      localName: field.localName,
      oneof: field.oneof?.localName,
      alias: other !== key && byKey.get(other) === field ? other : undefined,
      read: readerOf(field),
    });
  }
  return { typeName: desc.typeName, zeroKeys, zeroValues, fields };
}

function readerOf(field: DescField): Read {
  switch (field.fieldKind) {
    case "scalar":
      return scalarReader(field.scalar, field.longAsString);
    case "enum":
      return enumReader(field.enum);
    case "message":
      return messageReader(field.message);
    case "list": {
      const item = field.listKind === "scalar" ? scalarReader(field.scalar, field.longAsString) : field.listKind === "enum" ? enumReader(field.enum) : messageReader(field.message);
      return (json, depth) => {
        if (!Array.isArray(json)) throw GIVE_UP;
        const out: unknown[] = [];
        for (const raw of json) {
          if (raw === null) throw GIVE_UP;
          const value = item(raw, depth);
          if (value !== SKIP) out.push(value);
        }
        return out;
      };
    }
    case "map": {
      if (field.mapKey !== ScalarType.STRING) return giveUp;
      const value = field.mapKind === "scalar" ? scalarReader(field.scalar, false) : field.mapKind === "enum" ? enumReader(field.enum) : messageReader(field.message);
      return (json, depth) => {
        if (typeof json !== "object" || json === null || Array.isArray(json)) throw GIVE_UP;
        const source = json as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const key in source) {
          if (!hasOwn.call(source, key)) continue;
          const raw = source[key];
          if (raw === null || key === "__proto__") throw GIVE_UP;
          const read = value(raw, depth);
          if (read !== SKIP) out[key] = read;
        }
        return out;
      };
    }
  }
}

function giveUp(): never {
  throw GIVE_UP;
}

function messageReader(desc: DescMessage): Read {
  let plan: MessagePlan | null | undefined; // looked up on first use: message types can nest themselves
  return (json, depth) => readPlanned((plan ??= planOf(desc)), json, depth + 1);
}

function enumReader(desc: DescEnum): Read {
  const numbers = new Map<string, number>(desc.values.map((value) => [value.name, value.number]));
  const known = new Set(desc.values.map((value) => value.number));
  const open = desc.open;
  return (json) => {
    if (typeof json === "string") return numbers.get(json) ?? SKIP; // §4.1: unknown names ignored
    // Open enums keep unknown numbers (§4.1); closed ones only take declared values.
    if (typeof json === "number" && Number.isInteger(json) && json >= -2_147_483_648 && json <= 2_147_483_647 && (open || known.has(json))) return json;
    throw GIVE_UP;
  };
}

function scalarReader(scalar: ScalarType, longAsString: boolean): Read {
  switch (scalar) {
    case ScalarType.STRING:
      return (json) => {
        if (typeof json !== "string" || !isWellFormed(json)) throw GIVE_UP;
        return json;
      };
    case ScalarType.BOOL:
      return (json) => {
        if (typeof json !== "boolean") throw GIVE_UP;
        return json;
      };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return integerReader(-2_147_483_648, 2_147_483_647);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return integerReader(0, 4_294_967_295);
    case ScalarType.DOUBLE:
      return (json) => {
        if (typeof json !== "number" || !Number.isFinite(json)) throw GIVE_UP;
        return json;
      };
    case ScalarType.FLOAT:
      return (json) => {
        if (typeof json !== "number" || !Number.isFinite(json) || Math.abs(json) > FLOAT32_MAX) throw GIVE_UP;
        return json;
      };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return longAsString ? giveUp : longReader(INT64_TEXT, Number.MIN_SAFE_INTEGER, INT64_MIN, INT64_MAX);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return longAsString ? giveUp : longReader(UINT64_TEXT, 0, 0n, UINT64_MAX);
    default:
      return giveUp; // bytes: base64 variants are fromJson's business
  }
}

function integerReader(min: number, max: number): Read {
  return (json) => {
    if (typeof json !== "number" || !Number.isInteger(json) || json < min || json > max) throw GIVE_UP;
    return json;
  };
}

/** §4.1: 64-bit integers arrive as decimal strings or numbers; protobuf-es holds them as bigint. */
function longReader(text: RegExp, minNumber: number, min: bigint, max: bigint): Read {
  return (json) => {
    if (typeof json === "string" && text.test(json)) {
      const value = BigInt(json);
      if (value >= min && value <= max) return value;
    } else if (typeof json === "number" && Number.isSafeInteger(json) && json >= minNumber) {
      return BigInt(json);
    }
    throw GIVE_UP;
  };
}

/** protobuf-es refuses strings with lone surrogates ("invalid UTF8"); so does the fast path. */
const isWellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === "function"
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (text) => !/[\uD800-\uDFFF]/.test(text) || encodesAsUri(text);

function encodesAsUri(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
