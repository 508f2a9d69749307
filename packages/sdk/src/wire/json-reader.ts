import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import {
  FieldKind,
  Scalar,
  scalarZero,
  wireMessage,
  type WireEnum,
  type WireField,
  type WireMessage,
} from "./wire-plan.js";

// A fast path for the tolerant JSON decoding of §4.1. protobuf-es `fromJson` walks every value
// through its reflection API (a wrapper object per message, a type check per field set); a busy
// harness sends thousands of stepUpdate frames per second, and that walk was the SDK's largest
// cost. This reader does the same mapping with tables built once per message descriptor and writes
// plain message objects directly. Its tables come from the schema-free wire plan (wire-plan.ts),
// so it runs without the descriptors or the reflection runtime.
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

/** Reader plans by message type name, built on first use from the wire plan. */
const plans = new Map<string, MessagePlan | null>();

/**
 * Reads a parsed JSON object as a message of `schema`, exactly as protobuf-es `fromJson` with
 * `ignoreUnknownFields` would, or returns `undefined` when it cannot be sure (the caller then runs
 * `fromJson`). Never throws. Only the schema's type name is read: the tables come from the wire
 * plan, so callers without the schema pass `{ typeName }`.
 *
 * @example
 * const event = readJsonFast(OutputEventSchema, JSON.parse(frame)) ?? fromJson(OutputEventSchema, JSON.parse(frame), { ignoreUnknownFields: true });
 */
export function readJsonFast<Desc extends DescMessage>(
  schema: Desc | { readonly typeName: Desc["typeName"] },
  json: unknown,
): MessageShape<Desc> | undefined {
  try {
    return readPlanned(planOf(schema.typeName), json, 1) as MessageShape<Desc>;
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error; // a bug in this file: let it show
  }
}

function readPlanned(plan: MessagePlan | null, json: unknown, depth: number): Record<string, unknown> {
  if (plan === null || depth > MAX_DEPTH || typeof json !== "object" || json === null || Array.isArray(json))
    throw GIVE_UP;
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

function planOf(typeName: string): MessagePlan | null {
  let plan = plans.get(typeName);
  if (plan === undefined) {
    const message = wireMessage(typeName);
    plan = message === undefined ? null : buildPlan(message);
    plans.set(typeName, plan);
  }
  return plan;
}

function buildPlan(desc: WireMessage): MessagePlan {
  // The members a zero message has, in `create()`'s order: oneof groups, lists, maps, implicit scalars.
  const zeroKeys: string[] = [];
  const zeroValues: (() => unknown)[] = [];
  for (const field of desc.fields) {
    if (field.oneof !== undefined) {
      if (zeroKeys.includes(field.oneof)) continue;
      zeroKeys.push(field.oneof);
      zeroValues.push(() => ({ case: undefined }));
    } else if (field.kind === FieldKind.List) {
      zeroKeys.push(field.name);
      zeroValues.push(() => []);
    } else if (field.kind === FieldKind.StringMap || field.kind === FieldKind.OtherMap) {
      zeroKeys.push(field.name);
      zeroValues.push(() => ({}));
    } else if (field.kind === FieldKind.Implicit) {
      zeroKeys.push(field.name);
      zeroValues.push(field.scalar === Scalar.BYTES ? () => new Uint8Array(0) : constant(scalarZero(field.scalar)));
    }
  }
  // Keys as protobuf-es looks them up: the proto name, then the JSON name, later fields winning.
  const byKey = new Map<string, WireField>();
  for (const field of desc.fields) byKey.set(field.protoName, field).set(field.name, field);
  const fields = new Map<string, FieldPlan>();
  for (const [key, field] of byKey) {
    const other = key === field.protoName ? field.name : field.protoName;
    fields.set(key, {
      localName: field.name,
      oneof: field.oneof,
      alias: other !== key && byKey.get(other) === field ? other : undefined,
      read: readerOf(field),
    });
  }
  return { typeName: desc.typeName, zeroKeys, zeroValues, fields };
}

function constant(value: unknown): () => unknown {
  return () => value;
}

function readerOf(field: WireField): Read {
  const item: Read =
    field.scalar !== undefined
      ? scalarReader(field.scalar)
      : field.enumType !== undefined
        ? enumReader(field.enumType)
        : messageReader(field.messageType as string);
  switch (field.kind) {
    case FieldKind.Implicit:
    case FieldKind.Explicit:
      return item;
    case FieldKind.List:
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
    case FieldKind.StringMap:
      return (json, depth) => {
        if (typeof json !== "object" || json === null || Array.isArray(json)) throw GIVE_UP;
        const source = json as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const key in source) {
          if (!hasOwn.call(source, key)) continue;
          const raw = source[key];
          if (raw === null || key === "__proto__") throw GIVE_UP;
          const read = item(raw, depth);
          if (read !== SKIP) out[key] = read;
        }
        return out;
      };
    default:
      return giveUp; // maps with other keys: fromJson's business
  }
}

function giveUp(): never {
  throw GIVE_UP;
}

function messageReader(typeName: string): Read {
  let plan: MessagePlan | null | undefined; // looked up on first use: message types can nest themselves
  return (json, depth) => readPlanned((plan ??= planOf(typeName)), json, depth + 1);
}

function enumReader(desc: WireEnum): Read {
  const { numbers } = desc;
  return (json) => {
    if (typeof json === "string") return numbers.get(json) ?? SKIP; // §4.1: unknown names ignored
    // The plan's enums are all open (proto3): unknown numbers are kept (§4.1).
    if (typeof json === "number" && Number.isInteger(json) && json >= -2_147_483_648 && json <= 2_147_483_647)
      return json;
    throw GIVE_UP;
  };
}

function scalarReader(scalar: number): Read {
  switch (scalar) {
    case Scalar.STRING:
      return (json) => {
        if (typeof json !== "string" || !isWellFormed(json)) throw GIVE_UP;
        return json;
      };
    case Scalar.BOOL:
      return (json) => {
        if (typeof json !== "boolean") throw GIVE_UP;
        return json;
      };
    case Scalar.INT32:
    case Scalar.SINT32:
    case Scalar.SFIXED32:
      return integerReader(-2_147_483_648, 2_147_483_647);
    case Scalar.UINT32:
    case Scalar.FIXED32:
      return integerReader(0, 4_294_967_295);
    case Scalar.DOUBLE:
      return (json) => {
        if (typeof json !== "number" || !Number.isFinite(json)) throw GIVE_UP;
        return json;
      };
    case Scalar.FLOAT:
      return (json) => {
        if (typeof json !== "number" || !Number.isFinite(json) || Math.abs(json) > FLOAT32_MAX) throw GIVE_UP;
        return json;
      };
    case Scalar.INT64:
    case Scalar.SINT64:
    case Scalar.SFIXED64:
      return longReader(INT64_TEXT, Number.MIN_SAFE_INTEGER, INT64_MIN, INT64_MAX);
    case Scalar.UINT64:
    case Scalar.FIXED64:
      return longReader(UINT64_TEXT, 0, 0n, UINT64_MAX);
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
