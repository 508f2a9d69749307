import { wirePlanSource } from "./wire-plan.gen.js";

// The JSON shape of the frames (protocol §4.1) without protobuf-es descriptors: for every message
// the SDK sends or receives, its fields (number, proto name, presence, type) and for every enum
// its names. wire-plan.gen.ts is compiled from the generated schema (wire-plan-compile.ts; the
// wire-plan test fails when it is stale). The fast JSON reader, the JSON writer and the plain
// message constructor read these tables, so a browser bundle loads the schema and the reflection
// runtime only for the rare frame the fast reader leaves to `fromJson` (frame-codec.ts).

/** How a field holds its value (protobuf-es `fieldKind` + presence, flattened). */
export const FieldKind = {
  /** A singular scalar or enum without presence: absent when zero. */
  Implicit: 0,
  /** A singular field with presence: `optional` scalars and enums, messages, oneof members. */
  Explicit: 1,
  List: 2,
  /** `map<string, V>`. */
  StringMap: 3,
  /** A map with another key type (the fast reader leaves it to `fromJson`). */
  OtherMap: 4,
} as const;
export type FieldKind = (typeof FieldKind)[keyof typeof FieldKind];

/** protobuf-es `ScalarType` numbers used here (descriptor.proto's field types). */
export const Scalar = {
  DOUBLE: 1,
  FLOAT: 2,
  INT64: 3,
  UINT64: 4,
  INT32: 5,
  FIXED64: 6,
  FIXED32: 7,
  BOOL: 8,
  STRING: 9,
  BYTES: 12,
  UINT32: 13,
  SFIXED32: 15,
  SFIXED64: 16,
  SINT32: 17,
  SINT64: 18,
} as const;

/**
 * One field in declaration order: number, proto name, kind, value type (a scalar number, or the
 * type name of an enum or message), and the oneof group it belongs to. Type names of the
 * `antigravity.localharness` package are written without it (see {@link PACKAGE}).
 */
export type WireFieldSource =
  | [number, string, FieldKind, number | string]
  | [number, string, FieldKind, number | string, string];

/** The generated tables: messages by type name; enums by type name as `[name, number]` in declaration order. */
export interface WirePlanSource {
  readonly messages: Readonly<Record<string, readonly WireFieldSource[]>>;
  readonly enums: Readonly<Record<string, readonly (readonly [string, number])[]>>;
}

export interface WireEnum {
  readonly typeName: string;
  readonly numbers: ReadonlyMap<string, number>;
  /** The name JSON carries for a number: the last one declared (protobuf-es, for aliases). */
  readonly names: ReadonlyMap<number, string>;
}

export interface WireField {
  readonly number: number;
  readonly protoName: string;
  /** JSON name and property name (lowerCamelCase; the compiler checks the schema agrees). */
  readonly name: string;
  readonly kind: FieldKind;
  /** The scalar type, when the value (or list item, or map value) is a scalar. */
  readonly scalar: number | undefined;
  readonly enumType: WireEnum | undefined;
  /** Type name of the message the value (or item) is. */
  readonly messageType: string | undefined;
  readonly oneof: string | undefined;
}

export interface WireMessage {
  readonly typeName: string;
  /** In declaration order (protobuf-es `members`, oneof groups flattened). */
  readonly fields: readonly WireField[];
  /** In field-number order, as `toJson` writes them. */
  readonly sortedFields: readonly WireField[];
  /**
   * The position in {@link fields} of each member a `MessageInitShape` can name: a field outside a
   * oneof, or a oneof group (its first field), in declaration order.
   */
  readonly memberPositions: ReadonlyMap<string, number>;
}

/** The package the generated tables leave out of type names: `"StepUpdate"` is `"antigravity.localharness.StepUpdate"`, `"ActionEditFile.DiffLine"` a nested type of it. */
const PACKAGE = "antigravity.localharness.";

const messages = new Map<string, WireMessage>();
const enums = new Map<string, WireEnum>();

/** The plan of a message type, or `undefined` when no frame reaches it. */
export function wireMessage(typeName: string): WireMessage | undefined {
  let plan = messages.get(typeName);
  if (plan === undefined) {
    const source = wirePlanSource.messages[shortName(typeName)];
    if (source === undefined) return undefined;
    const fields = source.map(fieldOf);
    const memberPositions = new Map<string, number>();
    fields.forEach((field, index) => {
      const member = field.oneof ?? field.name;
      if (!memberPositions.has(member)) memberPositions.set(member, index);
    });
    plan = { typeName, fields, sortedFields: [...fields].sort((a, b) => a.number - b.number), memberPositions };
    messages.set(typeName, plan);
  }
  return plan;
}

/** Like {@link wireMessage} for a type the plan is known to hold. */
export function requireWireMessage(typeName: string): WireMessage {
  const plan = wireMessage(typeName);
  if (plan === undefined) throw new Error(`wire plan: no message ${typeName}`);
  return plan;
}

function fieldOf([number, protoName, kind, type, oneof]: WireFieldSource): WireField {
  const named = typeof type === "number" ? undefined : fullName(type);
  const enumType = named === undefined ? undefined : wireEnum(named);
  return {
    number,
    protoName,
    name: jsonNameOf(protoName),
    kind,
    scalar: typeof type === "number" ? type : undefined,
    enumType,
    messageType: enumType === undefined ? named : undefined,
    oneof,
  };
}

function wireEnum(typeName: string): WireEnum | undefined {
  let plan = enums.get(typeName);
  if (plan === undefined) {
    const values = wirePlanSource.enums[shortName(typeName)];
    if (values === undefined) return undefined;
    plan = { typeName, numbers: new Map(values), names: new Map(values.map(([name, number]) => [number, name])) };
    enums.set(typeName, plan);
  }
  return plan;
}

/**
 * A type name as the generated tables write it: without {@link PACKAGE}, or, for another
 * package, fully qualified with a leading dot as in descriptors (`".genai.Struct"`).
 */
export function shortName(typeName: string): string {
  return typeName.startsWith(PACKAGE) ? typeName.slice(PACKAGE.length) : `.${typeName}`;
}

/** The type name a name of the generated tables stands for. */
function fullName(name: string): string {
  return name.startsWith(".") ? name.slice(1) : PACKAGE + name;
}

/** protobuf-es `protoCamelCase`: the JSON name of a proto field name. */
export function jsonNameOf(protoName: string): string {
  let out = "";
  let upper = false;
  for (const c of protoName) {
    if (c === "_") upper = true;
    else if (c >= "0" && c <= "9") {
      out += c;
      upper = false;
    } else {
      out += upper ? c.toUpperCase() : c;
      upper = false;
    }
  }
  return out;
}

/** The zero value `create()` gives a scalar without presence. */
export function scalarZero(scalar: number | undefined): unknown {
  switch (scalar) {
    case Scalar.STRING:
      return "";
    case Scalar.BOOL:
      return false;
    case Scalar.BYTES:
      return new Uint8Array(0);
    case Scalar.INT64:
    case Scalar.UINT64:
    case Scalar.FIXED64:
    case Scalar.SFIXED64:
    case Scalar.SINT64:
      return 0n;
    default:
      return 0; // numbers and enums
  }
}
