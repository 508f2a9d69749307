import { readFileSync } from "node:fs";
import { clone, create, toJson, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  CallHookResponseSchema,
  HarnessConfigSchema,
  InitializeConversationEventSchema,
  InputEventSchema,
  OutputEventSchema,
  StepUpdateSchema,
} from "../gen/antigravity/localharness/localharness_pb.js";
import { ErrorCode, SdkError } from "../errors.js";
import { seededRandom } from "../testing/seeded-random.js";
import { writeJson } from "./json-writer.js";
import { cloneMessage, createMessage } from "./plain-message.js";
import { renderWireEnums, renderWirePlan } from "./wire-plan-compile.js";
import * as wireEnums from "./wire-enums.gen.js";
import * as localharness from "../gen/antigravity/localharness/localharness_pb.js";

// Differential tests of the schema-free writer and constructor against protobuf-es (the
// reference): for generated init objects of every frame the SDK sends — and the ones it receives,
// which the harness writes — `writeJson` renders the same text as `toJson(create())`, byte for
// byte, and `createMessage`/`cloneMessage` make what `create`/`clone` make, in the same key order.

/** Random `MessageInitShape`s: absent optionals, edge values, nested messages, sometimes already messages. */
function initGenerator(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const text = (): string =>
    pick([
      "",
      "hello",
      "héllo wörld",
      "line\nbreak\ttab",
      "emoji 😀 𝄞",
      'quote " and \\ slash',
      "\u0000\u001f\u2028",
      "x".repeat(300),
    ]);

  function scalar(type: number): unknown {
    switch (type) {
      case 9:
        return text();
      case 8:
        return random() < 0.5;
      case 5:
      case 17:
      case 15:
        return pick([0, 1, -1, 42, 2_147_483_647, -2_147_483_648]);
      case 13:
      case 7:
        return pick([0, 1, 42, 4_294_967_295]);
      case 3:
      case 18:
      case 16:
        return pick([0n, 7n, -7n, 2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n]);
      case 4:
      case 6:
        return pick([0n, 10n, 2n ** 64n - 1n, 1234567890123456789n]);
      case 1:
      case 2:
        return pick([
          0,
          -0,
          1,
          -2.5,
          3.25,
          1e10,
          1e308,
          5e-324,
          Number.NaN,
          Number.POSITIVE_INFINITY,
          Number.NEGATIVE_INFINITY,
        ]);
      case 12:
        return random() < 0.2
          ? [1, 2, 255]
          : new Uint8Array(Array.from({ length: Math.floor(random() * 7) }, () => Math.floor(random() * 256)));
      default:
        throw new Error(`no generator for scalar ${type}`);
    }
  }

  function enumNumber(field: DescField & { enum: { values: readonly { number: number }[] } }): number {
    return random() < 0.9 ? pick(field.enum.values).number : 99; // an unknown number stays a number
  }

  function single(field: DescField, depth: number): unknown {
    switch (field.fieldKind) {
      case "scalar":
        return scalar(field.scalar);
      case "enum":
        return enumNumber(field);
      case "message":
        return message(field.message, depth + 1);
      case "list":
        return Array.from({ length: Math.floor(random() * 3) }, () =>
          field.listKind === "scalar"
            ? scalar(field.scalar)
            : field.listKind === "enum"
              ? enumNumber(field)
              : message(field.message, depth + 1),
        );
      case "map": {
        const out: Record<string, unknown> = {};
        for (let i = Math.floor(random() * 3); i > 0; i--) {
          out[pick(["k", "", "x-goog-api-key", "ü", "1"])] =
            field.mapKind === "scalar"
              ? scalar(field.scalar)
              : field.mapKind === "enum"
                ? enumNumber(field)
                : message(field.message, depth + 1);
        }
        return out;
      }
    }
  }

  function message(desc: DescMessage, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (depth > 5) return out;
    for (const member of desc.members) {
      if (random() < 0.45) continue;
      if (member.kind === "oneof") {
        const field = pick(member.fields);
        out[member.localName] = { case: field.localName, value: single(field, depth) };
      } else {
        out[member.localName] = random() < 0.05 ? undefined : single(member, depth);
      }
    }
    return random() < 0.15 ? (create(desc, out) as unknown as Record<string, unknown>) : out;
  }

  return message;
}

const SENT: readonly DescMessage[] = [
  InputEventSchema,
  InitializeConversationEventSchema,
  HarnessConfigSchema,
  CallHookResponseSchema,
];
const RECEIVED: readonly DescMessage[] = [OutputEventSchema, StepUpdateSchema];

describe("writeJson against protobuf-es toJson(create())", () => {
  for (const schema of [...SENT, ...RECEIVED]) {
    it(`renders generated ${schema.typeName} messages byte for byte`, () => {
      const random = seededRandom(0x5eed + schema.typeName.length);
      const generate = initGenerator(random);
      for (let i = 0; i < 400; i++) {
        const init = generate(schema, 0);
        const expected = JSON.stringify(toJson(schema, create(schema, init)));
        expect(JSON.stringify(writeJson(schema.typeName, init)), expected).toBe(expected);
      }
    });
  }

  it("uses proto field names when asked, like useProtoFieldName", () => {
    const generate = initGenerator(seededRandom(7));
    for (let i = 0; i < 200; i++) {
      const init = generate(StepUpdateSchema, 0);
      const expected = JSON.stringify(
        toJson(StepUpdateSchema, create(StepUpdateSchema, init), { useProtoFieldName: true }),
      );
      expect(JSON.stringify(writeJson(StepUpdateSchema.typeName, init, { protoNames: true }))).toBe(expected);
    }
  });

  it("writes the InputEvents the SDK sends as the protocol shows them (§4.1)", () => {
    const write = (init: object) => JSON.stringify(writeJson(InputEventSchema.typeName, init));
    expect(write({ event: { case: "haltRequest", value: true } })).toBe('{"haltRequest":true}');
    expect(
      write({ event: { case: "toolConfirmation", value: { trajectoryId: "t", stepIndex: 0, accepted: false } } }),
    ).toBe('{"toolConfirmation":{"trajectoryId":"t","stepIndex":0,"accepted":false}}');
    expect(write({ event: { case: "userInput", value: { parts: [{ part: { case: "text", value: "" } }] } } })).toBe(
      '{"userInput":{"parts":[{"text":""}]}}',
    );
  });

  it("refuses a value of the wrong type, as toJson does", () => {
    expect(() => writeJson(InputEventSchema.typeName, { event: { case: "haltRequest", value: "yes" } })).toThrow(
      /halt_request \(5\) to JSON: expected scalar type 8, got string/,
    );
    expect(() => writeJson(InputEventSchema.typeName, { event: { case: "toolResponse", value: "x" } })).toThrow(
      SdkError,
    );
    try {
      writeJson(HarnessConfigSchema.typeName, { enabledHooks: ["PRE_TOOL"] });
      expect.unreachable();
    } catch (error) {
      expect((error as SdkError).code).toBe(ErrorCode.InvalidArgument);
    }
    const wrong = create(InputEventSchema, { event: { case: "haltRequest", value: "yes" as unknown as boolean } });
    expect(() => toJson(InputEventSchema, wrong)).toThrow();
  });
});

describe("createMessage and cloneMessage against protobuf-es create and clone", () => {
  for (const schema of [...SENT, ...RECEIVED]) {
    it(`builds generated ${schema.typeName} messages as create() does, in the same key order`, () => {
      const generate = initGenerator(seededRandom(0xc0de + schema.typeName.length));
      for (let i = 0; i < 300; i++) {
        const init = generate(schema, 0);
        const expected = create(schema, init);
        const actual = createMessage<typeof expected>(schema.typeName, init);
        expect(actual).toStrictEqual(expected);
        expect(keyOrder(actual)).toStrictEqual(keyOrder(expected));
        const copy = cloneMessage(schema.typeName, actual);
        expect(copy).toStrictEqual(clone(schema, expected));
        expect(copy === actual).toBe(false);
      }
    });
  }

  it("sets members in declaration order whatever order the init object names them in, and reads a class instance's inherited getters", () => {
    for (const schema of [...SENT, ...RECEIVED]) {
      const generate = initGenerator(seededRandom(0x5eed + schema.typeName.length));
      for (let i = 0; i < 100; i++) {
        const init = generate(schema, 0) as Record<string, unknown>;
        // Without `$typeName`: an init that is a message already is returned as it is.
        const plain = Object.entries(init).filter(([key]) => key !== "$typeName");
        const reversed = Object.fromEntries([...plain].reverse());
        const expected = create(schema, Object.fromEntries(plain) as never);
        const actual = createMessage<typeof expected>(schema.typeName, reversed);
        expect(actual).toStrictEqual(expected);
        expect(keyOrder(actual)).toStrictEqual(keyOrder(expected));
      }
    }
    class StepFields {
      readonly state = 3;
      get text(): string {
        return "from a getter";
      }
    }
    const fromClass = createMessage(StepUpdateSchema.typeName, new StepFields());
    expect(fromClass).toStrictEqual(create(StepUpdateSchema, new StepFields() as never));
    expect((fromClass as { text?: string }).text).toBe("from a getter");
  });

  it("returns a message of the type as it is, like create()", () => {
    const message = create(InputEventSchema, { event: { case: "haltRequest", value: true } });
    expect(createMessage(InputEventSchema.typeName, message)).toBe(message);
  });
});

describe("the generated wire tables", () => {
  it("are what scripts/gen-wire-plan.mjs compiles from the schema today", () => {
    for (const [file, text] of [
      ["./wire-plan.gen.ts", renderWirePlan()],
      ["./wire-enums.gen.ts", renderWireEnums()],
    ] as const) {
      const committed = readFileSync(new URL(file, import.meta.url), "utf8");
      expect(committed, `${file} is stale: run node scripts/gen-wire-plan.mjs`).toBe(text);
    }
  });

  it("hold every enum of the schema with the generated enum's members", () => {
    const generated = Object.entries(localharness).filter(([name]) => name in wireEnums);
    expect(generated.length).toBe(Object.keys(wireEnums).length);
    for (const [name, value] of generated) {
      const forward = Object.fromEntries(
        Object.entries(value as object).filter(([, number]) => typeof number === "number"),
      );
      expect((wireEnums as Record<string, unknown>)[name], name).toStrictEqual(forward);
    }
  });
});

/** Every object's keys, depth first, so two messages compare in member order too. */
function keyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return null;
  return Object.entries(value).map(([key, item]) => [key, keyOrder(item)]);
}
