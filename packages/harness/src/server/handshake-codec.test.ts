import { describe, expect, it } from "vitest";
import { InputConfigSchema, OutputConfigSchema, create, decodeOutputConfig, encodeInputConfig, encodeOutputConfig as encodeOutputConfigWithSchema } from "@antigravity-ts/sdk/wire";
import { HandshakeFormatError, decodeInputConfig, encodeOutputConfig } from "./handshake-codec.js";

const hex = (text: string): Uint8Array => Uint8Array.from(text.split(" ").map((byte) => Number.parseInt(byte, 16)));

describe("handshake codec without the schema registry (protocol §3)", () => {
  it("reads the worked example of protocol §3", () => {
    const input = decodeInputConfig(hex("0a 06 2f 74 6d 70 2f 73 22 13 0a 0a 74 79 70 65 73 63 72 69 70 74 12 05 30 2e 31 2e 30"));
    expect(input).toEqual({ storageDirectory: "/tmp/s", clientInfo: { language: "typescript", version: "0.1.0" }, env: {} });
  });

  it("writes the worked example of protocol §3", () => {
    expect(encodeOutputConfig(54321, "k3y")).toEqual(hex("08 b1 a8 03 12 03 6b 33 79"));
  });

  it("reads every field as protobuf-es encodes it", () => {
    const configs = [
      {},
      { port: 0, bindAddress: "" },
      { storageDirectory: "/var/s ü", port: 8000, bindAddress: "127.0.0.1", env: { A: "1", "B C": "ü=2", EMPTY: "" } },
      { port: 4_294_967_295, clientInfo: { language: "typescript", version: "9", languageVersion: "v20", os: "linux", osVersion: "6.1" } },
    ];
    for (const config of configs) {
      const decoded = decodeInputConfig(encodeInputConfig(create(InputConfigSchema, config)));
      expect(decoded).toEqual({ env: {}, ...config });
    }
  });

  it("writes OutputConfig as protobuf-es reads it", () => {
    for (const [port, apiKey] of [
      [1, "k"],
      [65_535, "x".repeat(300)],
      [0, ""],
      [2 ** 31 - 1, "ключ"],
    ] as const) {
      const decoded = decodeOutputConfig(encodeOutputConfig(port, apiKey));
      expect({ port: decoded.port, apiKey: decoded.apiKey }).toEqual({ port, apiKey });
    }
    expect(encodeOutputConfig(40_000, "key")).toEqual(encodeOutputConfigWithSchema(create(OutputConfigSchema, { port: 40_000, apiKey: "key" })));
  });

  it("skips unknown fields of every wire type", () => {
    // field 9 varint 300, field 10 fixed64, field 11 LEN "zz", field 12 fixed32, then port 7.
    const input = decodeInputConfig(hex("48 ac 02 51 01 02 03 04 05 06 07 08 5a 02 7a 7a 65 01 02 03 04 10 07"));
    expect(input).toEqual({ port: 7, env: {} });
  });

  it("rejects truncated and malformed messages with what the client must send", () => {
    for (const bytes of ["0a 06 2f 74", "10", "10 ff ff ff ff ff ff ff ff ff ff 01", "00 01", "0b"]) {
      expect(() => decodeInputConfig(hex(bytes))).toThrow(HandshakeFormatError);
    }
    expect(() => decodeInputConfig(hex("0a 06 2f 74"))).toThrow(/malformed InputConfig .*runs past the end.*protocol §3/);
  });
});
