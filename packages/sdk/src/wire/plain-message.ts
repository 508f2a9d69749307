import { FieldKind, Scalar, requireWireMessage, scalarZero, type WireField, type WireMessage } from "./wire-plan.js";

// protobuf-es `create()` and `clone()` for the frames' messages, from the schema-free wire plan
// (wire-plan.ts): the SDK builds its config and messages with these, so its hot path never loads
// the descriptors. plain-message.test.ts checks both against protobuf-es on generated messages.

/**
 * A message of `typeName` from an init object, as `create(schema, init)` makes it: `$typeName`,
 * the zero members (oneof groups, lists, maps, scalars without presence), then the members `init`
 * sets; nested init objects become messages. A message of that type is returned as it is.
 *
 * @example
 * const config = createMessage<HarnessConfig>("antigravity.localharness.HarnessConfig", { cascadeId: "" });
 */
export function createMessage<T>(typeName: string, init: object = {}): T {
  return createPlanned(typeName, init as Record<string, unknown>) as T;
}

/** A deep copy of a message of `typeName`, like protobuf-es `clone()`. */
export function cloneMessage<T>(typeName: string, message: T): T {
  return clonePlanned(typeName, message as Record<string, unknown>) as T;
}

/** Whether `value` is a message of `typeName` (protobuf-es `isMessage`). */
export function isMessageOf<T extends { readonly $typeName: string }>(
  value: unknown,
  typeName: T["$typeName"],
): value is T {
  return typeof value === "object" && value !== null && (value as { $typeName?: unknown }).$typeName === typeName;
}

function zeroMessage(typeName: string, fields: readonly WireField[]): Record<string, unknown> {
  const message: Record<string, unknown> = { $typeName: typeName };
  for (const field of fields) {
    if (field.oneof !== undefined) message[field.oneof] = { case: undefined };
    else if (field.kind === FieldKind.List) message[field.name] = [];
    else if (field.kind === FieldKind.StringMap || field.kind === FieldKind.OtherMap) message[field.name] = {};
    else if (field.kind === FieldKind.Implicit) message[field.name] = scalarZero(field.scalar);
  }
  return message;
}

function createPlanned(typeName: string, init: Record<string, unknown>): Record<string, unknown> {
  if (isMessageOf(init, typeName)) return init;
  const plan = requireWireMessage(typeName);
  const message = zeroMessage(typeName, plan.fields);
  // Members are set in declaration order, as create() sets them (the order of a message's keys).
  // A plain init object names them by its own keys: reading those few, rather than probing it for
  // every field of the type, is many times faster (absent keys of an object built by spreads miss
  // V8's caches). Another init (a class instance, whose members may be inherited getters) is
  // probed field by field, as create() reads it.
  const prototype = Object.getPrototypeOf(init);
  const positions =
    prototype === Object.prototype || prototype === null ? ownPositions(plan, init) : plan.memberPositions.values();
  for (const position of positions) setMember(message, plan.fields, plan.fields[position] as WireField, init);
  return message;
}

/** Positions of the members `init` names with own keys, in declaration order. */
function ownPositions(plan: WireMessage, init: Record<string, unknown>): number[] {
  const positions: number[] = [];
  for (const key of Object.keys(init)) {
    const position = plan.memberPositions.get(key);
    if (position === undefined) continue;
    // Insertion sort, in place: an init object names a handful of members, mostly in order
    // (`splice` would allocate the array of removed items on every call).
    let at = positions.length;
    positions.push(position);
    while (at > 0 && (positions[at - 1] as number) > position) {
      positions[at] = positions[at - 1] as number;
      at--;
    }
    positions[at] = position;
  }
  return positions;
}

/** Sets the member `field` stands for (itself, or its oneof group) from `init`. */
function setMember(
  message: Record<string, unknown>,
  fields: readonly WireField[],
  field: WireField,
  init: Record<string, unknown>,
): void {
  if (field.oneof !== undefined) {
    const chosen = init[field.oneof] as { case?: unknown; value?: unknown } | null | undefined;
    if (chosen == null) return;
    const member = fields.find((f) => f.oneof === field.oneof && f.name === chosen.case);
    if (member !== undefined) message[field.oneof] = { case: member.name, value: initValue(member, chosen.value) };
    return;
  }
  const value = init[field.name];
  if (value == null) return; // create() ignores null and undefined
  if (field.kind === FieldKind.List)
    message[field.name] = Array.isArray(value) ? value.map((item: unknown) => initValue(field, item)) : value;
  else if (field.kind === FieldKind.StringMap || field.kind === FieldKind.OtherMap)
    message[field.name] = mapValues(value, (item) => initValue(field, item));
  else message[field.name] = initValue(field, value);
}

function initValue(field: WireField, value: unknown): unknown {
  if (field.messageType !== undefined) {
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? createPlanned(field.messageType, value as Record<string, unknown>)
      : value;
  }
  return field.scalar === Scalar.BYTES && Array.isArray(value) ? new Uint8Array(value as number[]) : value;
}

function clonePlanned(typeName: string, source: Record<string, unknown>): Record<string, unknown> {
  const { fields } = requireWireMessage(typeName);
  const message = zeroMessage(typeName, fields);
  for (const field of fields) {
    if (field.oneof !== undefined) {
      const chosen = source[field.oneof] as { case?: unknown; value?: unknown } | undefined;
      if (chosen?.case === field.name)
        message[field.oneof] = { case: field.name, value: cloneValue(field, chosen.value) };
      continue;
    }
    const value = source[field.name];
    if (value === undefined) continue;
    if (field.kind === FieldKind.List)
      message[field.name] = (value as unknown[]).map((item) => cloneValue(field, item));
    else if (field.kind === FieldKind.StringMap || field.kind === FieldKind.OtherMap)
      message[field.name] = mapValues(value, (item) => cloneValue(field, item));
    else message[field.name] = cloneValue(field, value);
  }
  return message;
}

function cloneValue(field: WireField, value: unknown): unknown {
  if (field.messageType !== undefined) return clonePlanned(field.messageType, value as Record<string, unknown>);
  return value instanceof Uint8Array ? value.slice() : value;
}

function mapValues(value: unknown, convert: (item: unknown) => unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = convert(item);
  return out;
}
