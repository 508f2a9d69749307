import { describe, expect, it } from "vitest";
import {
  InputConfigSchema,
  OutputConfigSchema,
  create,
  decodeInputConfig,
  decodeOutputConfig,
  encodeInputConfig,
  encodeOutputConfig,
} from "./index.js";
import { seededRandom } from "../testing/seeded-random.js";
import {
  HandshakeFormatError,
  decodeHandshakeInput,
  decodeHandshakeOutput,
  encodeHandshakeInput,
  encodeHandshakeOutput,
  type HandshakeInput,
} from "./handshake-codec.js";

const hex = (text: string): Uint8Array => Uint8Array.from(text.split(" ").map((byte) => Number.parseInt(byte, 16)));

/** InputConfigs as a client may send them: nothing, zero values, every field, extremes, Unicode. */
const inputs: HandshakeInput[] = [
  { env: {} },
  { port: 0, bindAddress: "", env: {} },
  { storageDirectory: "/var/s ü", port: 8000, bindAddress: "127.0.0.1", env: { A: "1", "B C": "ü=2", EMPTY: "" } },
  {
    port: 4_294_967_295,
    clientInfo: { language: "typescript", version: "9", languageVersion: "v20", os: "linux", osVersion: "6.1" },
    env: {},
  },
  {
    storageDirectory: "x".repeat(300),
    clientInfo: { language: "typescript" },
    env: { ["k".repeat(200)]: "v".repeat(70_000) },
  },
];

describe("handshake codec without the schema registry (protocol §3)", () => {
  it("reads the worked example of protocol §3", () => {
    const input = decodeHandshakeInput(
      hex("0a 06 2f 74 6d 70 2f 73 22 13 0a 0a 74 79 70 65 73 63 72 69 70 74 12 05 30 2e 31 2e 30"),
    );
    expect(input).toEqual({
      storageDirectory: "/tmp/s",
      clientInfo: { language: "typescript", version: "0.1.0" },
      env: {},
    });
  });

  it("writes the worked examples of protocol §3", () => {
    expect(encodeHandshakeOutput({ port: 54321, apiKey: "k3y" })).toEqual(hex("08 b1 a8 03 12 03 6b 33 79"));
    expect(
      encodeHandshakeInput({
        storageDirectory: "/tmp/s",
        clientInfo: { language: "typescript", version: "0.1.0" },
        env: {},
      }),
    ).toEqual(hex("0a 06 2f 74 6d 70 2f 73 22 13 0a 0a 74 79 70 65 73 63 72 69 70 74 12 05 30 2e 31 2e 30"));
  });

  it("InputConfig: reads what protobuf-es writes, and writes the bytes protobuf-es writes (the client side)", () => {
    for (const input of inputs) {
      const { env, ...rest } = input;
      const withSchema = encodeInputConfig(create(InputConfigSchema, { ...rest, env }));
      expect(decodeHandshakeInput(withSchema)).toEqual(input);
      expect(encodeHandshakeInput(input)).toEqual(withSchema);
      expect(decodeInputConfig(encodeHandshakeInput(input))).toEqual(create(InputConfigSchema, { ...rest, env }));
    }
  });

  it("OutputConfig: writes what protobuf-es reads, and reads what protobuf-es writes (the harness's answer)", () => {
    for (const [port, apiKey] of [
      [1, "k"],
      [65_535, "x".repeat(300)],
      [0, ""],
      [2 ** 31 - 1, "ключ"],
    ] as const) {
      const decoded = decodeOutputConfig(encodeHandshakeOutput({ port, apiKey }));
      expect({ port: decoded.port, apiKey: decoded.apiKey }).toEqual({ port, apiKey });
      expect(decodeHandshakeOutput(encodeOutputConfig(create(OutputConfigSchema, { port, apiKey })))).toEqual({
        port,
        apiKey,
      });
    }
    expect(encodeHandshakeOutput({ port: 40_000, apiKey: "key" })).toEqual(
      encodeOutputConfig(create(OutputConfigSchema, { port: 40_000, apiKey: "key" })),
    );
    // Absent fields read as protobuf-es reads them: 0 and "" (the client then refuses port 0).
    expect(decodeHandshakeOutput(new Uint8Array(0))).toEqual({ port: 0, apiKey: "" });
  });

  it("skips unknown fields of every wire type", () => {
    // field 9 varint 300, field 10 fixed64, field 11 LEN "zz", field 12 fixed32, then port 7.
    const unknownThenPort = hex("48 ac 02 51 01 02 03 04 05 06 07 08 5a 02 7a 7a 65 01 02 03 04 10 07");
    expect(decodeHandshakeInput(unknownThenPort)).toEqual({ port: 7, env: {} });
    // The same unknown fields, then OutputConfig's port (field 1) 7 and api_key (field 2) "k".
    expect(
      decodeHandshakeOutput(hex("48 ac 02 51 01 02 03 04 05 06 07 08 5a 02 7a 7a 65 01 02 03 04 08 07 12 01 6b")),
    ).toEqual({ port: 7, apiKey: "k" });
  });

  it("rejects truncated and malformed messages, saying what the other side must send", () => {
    for (const bytes of ["0a 06 2f 74", "10", "10 ff ff ff ff ff ff ff ff ff ff 01", "00 01", "0b"]) {
      expect(() => decodeHandshakeInput(hex(bytes))).toThrow(HandshakeFormatError);
      expect(() => decodeHandshakeOutput(hex(bytes))).toThrow(HandshakeFormatError);
    }
    expect(() => decodeHandshakeInput(hex("0a 06 2f 74"))).toThrow(
      /malformed InputConfig .*runs past the end.*the client must write.*protocol §3/,
    );
    expect(() => decodeHandshakeOutput(hex("12 09 6b"))).toThrow(
      /malformed OutputConfig .*runs past the end.*the harness must answer.*protocol §3/,
    );
  });

  it("refuses to write a port that is no uint32", () => {
    expect(() => encodeHandshakeOutput({ port: -1, apiKey: "" })).toThrow(RangeError);
    expect(() => encodeHandshakeInput({ port: 1.5, env: {} })).toThrow(RangeError);
  });

  it("answers any bytes a hostile peer writes with a decoded message or a HandshakeFormatError, never another throw or a hang", () => {
    const random = seededRandom(0x5eed);
    const valid = [
      ...encodeHandshakeInput(inputs[2] as HandshakeInput),
      ...encodeHandshakeOutput({ port: 443, apiKey: "k" }),
    ];
    for (let round = 0; round < 3_000; round++) {
      const length = Math.floor(random() * 64);
      // Half pure noise, half a valid message with a few bytes flipped or cut short.
      const bytes =
        round % 2 === 0
          ? Uint8Array.from({ length }, () => Math.floor(random() * 256))
          : Uint8Array.from(valid.slice(0, Math.max(1, Math.floor(random() * valid.length))), (byte) =>
              random() < 0.1 ? Math.floor(random() * 256) : byte,
            );
      for (const decode of [decodeHandshakeInput, decodeHandshakeOutput]) {
        try {
          decode(bytes);
        } catch (error) {
          expect(error, `seed 0x5eed round ${round}`).toBeInstanceOf(HandshakeFormatError);
        }
      }
    }
  });
});
