import { readFileSync } from "node:fs";
import { equals, fromJson, ScalarType, type DescField, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import {
  InitializeConversationEventSchema,
  InputEventSchema,
  OutputEventSchema,
  StepUpdateSchema,
  UsageMetadataSchema,
} from "../gen/antigravity/localharness/localharness_pb.js";
import { seededRandom } from "../testing/seeded-random.js";
import { decodeJsonFrame } from "./json-codec.js";
import { readJsonFast } from "./json-reader.js";

// Differential test of the fast JSON path against protobuf-es `fromJson` (the reference): for
// every frame, either the fast path gives up, or both succeed with equal messages; and the codec
// (fast path, then fromJson) fails exactly when the reference fails.

type Outcome = { ok: true; message: unknown } | { ok: false };

function reference(schema: DescMessage, json: unknown): Outcome {
  try {
    return { ok: true, message: fromJson(schema, json as JsonValue, { ignoreUnknownFields: true }) };
  } catch {
    return { ok: false };
  }
}

/** Checks one frame; returns whether the fast path decided it (did not give up). */
function check(schema: DescMessage, json: unknown): boolean {
  const expected = reference(schema, json);
  const fast = readJsonFast(schema, json);
  if (fast !== undefined) {
    expect(expected.ok, `fast path accepted what fromJson rejects: ${JSON.stringify(json)}`).toBe(true);
    if (expected.ok) {
      expect(fast).toStrictEqual(expected.message);
      expect(equals(schema, fast, expected.message as typeof fast)).toBe(true);
    }
  }
  let decoded: Outcome;
  try {
    decoded = { ok: true, message: decodeJsonFrame(schema, JSON.stringify(json)) };
  } catch (error) {
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.ProtocolError);
    decoded = { ok: false };
  }
  expect(decoded.ok).toBe(expected.ok);
  if (decoded.ok && expected.ok) expect(decoded.message).toStrictEqual(expected.message);
  return fast !== undefined;
}

/**
 * Random JSON for a message. `mutate` is the probability that a value is replaced by something
 * off the happy path: wrong types, nulls, numbers as strings, out-of-range or fractional numbers,
 * unknown enum names, lone surrogates, both key spellings, two members of a oneof, unknown keys.
 */
function generator(random: () => number, mutate: number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const text = (): string =>
    pick(["", "hello", "héllo wörld", "line\nbreak", "emoji 😀", '{"a":1}', "file:///tmp/x.txt", "x".repeat(200)]);
  const oddValues: unknown[] = [
    null,
    "",
    "12",
    " 7",
    "1.5",
    "-1",
    "1e3",
    "0x10",
    "NaN",
    "Infinity",
    1.5,
    -1,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    -(2 ** 63),
    1e300,
    true,
    false,
    [],
    {},
    [1],
    { a: 1 },
    "\ud800",
    "a\udc00b",
    "STATE_NOPE",
    "99999999999999999999",
  ];

  function scalar(type: ScalarType): unknown {
    switch (type) {
      case ScalarType.STRING:
        return text();
      case ScalarType.BOOL:
        return random() < 0.5;
      case ScalarType.INT32:
      case ScalarType.SINT32:
      case ScalarType.SFIXED32:
        return pick([0, 1, -1, 42, 2_147_483_647, -2_147_483_648]);
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
        return pick([0, 1, 42, 50_000, 4_294_967_295]);
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
        return pick([
          "0",
          "7",
          "-7",
          "1766000000000000",
          "123456789012345678",
          0,
          12,
          -12,
          Number.MAX_SAFE_INTEGER,
          "9223372036854775807",
        ]);
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return pick(["0", "10", "812", "18446744073709551615", 0, 5, Number.MAX_SAFE_INTEGER, "1234567890123456789"]);
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return pick([0, 1, -2.5, 3.25, 1e10]);
      case ScalarType.BYTES:
        return pick(["", "aGVsbG8=", "aGVsbG8"]);
    }
  }

  function single(field: DescField, depth: number): unknown {
    if (random() < mutate) return pick(oddValues);
    switch (field.fieldKind) {
      case "scalar":
        return scalar(field.scalar);
      case "enum":
        return random() < 0.7 ? pick(field.enum.values).name : pick(field.enum.values).number;
      case "message":
        return message(field.message, depth + 1);
      case "list": {
        const length = Math.floor(random() * 3);
        return Array.from({ length }, () => {
          if (random() < mutate) return pick(oddValues);
          if (field.listKind === "scalar") return scalar(field.scalar);
          if (field.listKind === "enum") return pick(field.enum.values).name;
          return message(field.message, depth + 1);
        });
      }
      case "map": {
        const out: Record<string, unknown> = {};
        for (let i = Math.floor(random() * 3); i > 0; i--)
          out[pick(["k", "key", "x-goog-api-key", "1"])] =
            field.mapKind === "scalar"
              ? scalar(field.scalar)
              : field.mapKind === "enum"
                ? pick(field.enum.values).name
                : message(field.message, depth + 1);
        return out;
      }
    }
  }

  function message(desc: DescMessage, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (depth > 4) return out;
    const oneofsSet = new Set<string>();
    for (const field of desc.fields) {
      if (field.oneof !== undefined) {
        // One member per oneof, sometimes a second one (an error for fromJson).
        if (oneofsSet.has(field.oneof.name) ? random() >= mutate / 2 : random() >= 1 / field.oneof.fields.length)
          continue;
        oneofsSet.add(field.oneof.name);
      } else if (random() < 0.5) {
        continue;
      }
      const useProtoName = random() < 0.2;
      out[useProtoName ? field.name : field.jsonName] = single(field, depth);
      if (random() < mutate / 3) out[useProtoName ? field.jsonName : field.name] = single(field, depth); // set twice?
    }
    if (random() < 0.3) out[pick(["futureField", "unknown_key", "[ext.thing]", "__proto__"])] = pick(oddValues);
    return out;
  }

  return message;
}

const SCHEMAS: readonly DescMessage[] = [
  OutputEventSchema,
  StepUpdateSchema,
  UsageMetadataSchema,
  InputEventSchema,
  InitializeConversationEventSchema,
];

describe("readJsonFast against protobuf-es fromJson", () => {
  it.each(SCHEMAS.map((schema) => [schema.typeName, schema] as const))(
    "agrees on well-formed random %s frames, and decides nearly all of them",
    (_name, schema) => {
      const message = generator(seededRandom(0xc0ffee), 0);
      let decided = 0;
      const total = 400;
      for (let i = 0; i < total; i++) if (check(schema, message(schema, 0))) decided++;
      // What it leaves to fromJson on well-formed frames: bytes fields, and values nested in them.
      expect(decided / total).toBeGreaterThan(0.5);
    },
  );

  it.each(SCHEMAS.map((schema) => [schema.typeName, schema] as const))(
    "agrees on fuzzed %s frames (bad types, nulls, ranges, duplicates, oneofs)",
    (_name, schema) => {
      for (const [seed, rate] of [
        [1, 0.05],
        [2, 0.2],
        [3, 0.5],
      ] as const) {
        const message = generator(seededRandom(seed), rate);
        for (let i = 0; i < 600; i++) check(schema, message(schema, 0));
      }
    },
  );

  it("decides every era-D fixture frame itself, and agrees on mutations of them", () => {
    const fixture = JSON.parse(
      readFileSync(new URL("../../../../test/node/contract/fixtures/era-d-frames.json", import.meta.url), "utf8"),
    ) as {
      frames: { message: string; frame: Record<string, unknown> }[];
    };
    const schemas: Record<string, DescMessage> = {
      OutputEvent: OutputEventSchema,
      InputEvent: InputEventSchema,
      InitializeConversationEvent: InitializeConversationEventSchema,
    };
    const random = seededRandom(7);
    const odd: unknown[] = [null, "x", 1.5, -1, "12", "\ud800", [], {}, true, "STATE_NOPE", "99999999999999999999"];
    expect(fixture.frames.length).toBeGreaterThan(5);
    for (const { message, frame } of fixture.frames) {
      const schema = schemas[message];
      expect(schema, message).toBeDefined();
      if (schema === undefined) continue;
      expect(check(schema, frame), JSON.stringify(frame)).toBe(true);
      // Mutate one leaf at a time, everywhere in the frame.
      for (let i = 0; i < 60; i++)
        check(
          schema,
          mutateLeaf(frame, () => odd[Math.floor(random() * odd.length)], random),
        );
    }
  });

  it("decides the hot frames itself: step updates with snake_case keys, enum numbers, int64 numbers", () => {
    const frames = [
      {
        seqNum: "12",
        stepUpdate: {
          cascadeId: "t",
          trajectoryId: "t",
          stepIndex: 4,
          state: "STATE_DONE",
          source: "SOURCE_MODEL",
          target: "TARGET_USER",
          text: "hi",
          textDelta: "hi",
        },
      },
      {
        seq_num: 12,
        step_update: {
          trajectory_id: "t",
          step_index: 4,
          state: 2,
          source: 3,
          target: 1,
          thinking_delta: "hm",
          error: { errorMessage: "x", httpCode: 429 },
        },
      },
      {
        stepUpdate: {
          trajectoryId: "t",
          stepIndex: 9,
          state: 7,
          customTool: { toolCall: { id: "c1", name: "add", argumentsJson: "{}" } },
          futureField: [1, 2],
        },
      },
      { trajectoryStateUpdate: { trajectoryId: "t", state: "STATE_IDLE" } },
      { trajectoryStateUpdate: { trajectoryId: "t", state: "STATE_FULLY_IDLE", stopReason: "STOP_REASON_NOPE" } },
      {
        usageUpdate: {
          total: { promptTokenCount: "812", candidatesTokenCount: 9, totalTokenCount: "821" },
          agents: [{ trajectoryId: "t", usage: { totalTokenCount: "1" } }],
        },
      },
      { toolCall: { id: "c1", name: "add", argumentsJson: '{"a":2}' } },
    ];
    for (const frame of frames) expect(check(OutputEventSchema, frame), JSON.stringify(frame)).toBe(true);
    // Lists, maps and oneof groups of the zero message are never shared between messages.
    const [a, b] = [
      readJsonFast(OutputEventSchema, { usageUpdate: {} }),
      readJsonFast(OutputEventSchema, { usageUpdate: {} }),
    ];
    expect(
      a?.event.case === "usageUpdate" &&
        b?.event.case === "usageUpdate" &&
        a.event.value.agents !== b.event.value.agents,
    ).toBe(true);
    expect(readJsonFast(OutputEventSchema, {})?.event).not.toBe(readJsonFast(OutputEventSchema, {})?.event);
  });

  it("gives up, and leaves the verdict to fromJson, on what it does not decide itself", () => {
    const cases: [DescMessage, unknown][] = [
      [OutputEventSchema, { seqNum: null }],
      [OutputEventSchema, { seqNum: "99999999999999999999" }],
      [OutputEventSchema, { stepUpdate: { stepIndex: "4" } }],
      [OutputEventSchema, { stepUpdate: { stepIndex: 1, step_index: 1 } }],
      [OutputEventSchema, { stepUpdate: {}, toolCall: {} }],
      [OutputEventSchema, { stepUpdate: { text: "\ud800" } }],
      [OutputEventSchema, { stepUpdate: { stepIndex: -1 } }],
      [OutputEventSchema, [] as unknown],
    ];
    for (const [schema, json] of cases) {
      expect(readJsonFast(schema, json), JSON.stringify(json)).toBeUndefined();
      check(schema, json);
    }
  });
});

/** A deep copy of `value` with one randomly chosen leaf (or object member) replaced by `odd()`. */
function mutateLeaf(value: Record<string, unknown>, odd: () => unknown, random: () => number): Record<string, unknown> {
  const copy = structuredClone(value);
  const paths: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach((item, index) => (paths.push({ parent: node, key: index }), walk(item)));
    else if (typeof node === "object" && node !== null)
      for (const [key, item] of Object.entries(node))
        paths.push({ parent: node as Record<string, unknown>, key }), walk(item);
  };
  walk(copy);
  const target = paths[Math.floor(random() * paths.length)];
  if (target !== undefined) (target.parent as Record<string | number, unknown>)[target.key] = odd();
  return copy;
}
