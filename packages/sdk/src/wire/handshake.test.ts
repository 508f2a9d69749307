import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import { InputConfigSchema, OutputConfigSchema } from "../gen/antigravity/localharness/localharness_pb.js";
import { decodeInputConfig, decodeOutputConfig, encodeInputConfig, encodeOutputConfig } from "./handshake.js";
import { frameLengthPrefixed, LengthPrefixedReader, MAX_HANDSHAKE_BYTES } from "./length-prefixed.js";

function bytes(...values: number[]): Uint8Array {
  return new Uint8Array(values);
}

describe("frameLengthPrefixed (§3)", () => {
  it("prefixes a u32 little-endian length, not a varint", () => {
    expect(frameLengthPrefixed(bytes(7, 8, 9))).toEqual(bytes(3, 0, 0, 0, 7, 8, 9));
    expect(frameLengthPrefixed(new Uint8Array(300)).subarray(0, 4)).toEqual(bytes(0x2c, 0x01, 0, 0));
    expect(frameLengthPrefixed(new Uint8Array(0))).toEqual(bytes(0, 0, 0, 0));
  });
});

describe("LengthPrefixedReader", () => {
  it("returns several messages delivered in one chunk, in order", () => {
    const reader = new LengthPrefixedReader();
    const chunk = new Uint8Array([
      ...frameLengthPrefixed(bytes(1)),
      ...frameLengthPrefixed(bytes()),
      ...frameLengthPrefixed(bytes(2, 3)),
    ]);
    expect(reader.push(chunk)).toEqual([bytes(1), bytes(), bytes(2, 3)]);
    expect(reader.pendingBytes).toBe(0);
  });

  it("waits for the rest of a split length or body", () => {
    const reader = new LengthPrefixedReader();
    const framed = frameLengthPrefixed(bytes(10, 20, 30));
    expect(reader.push(framed.subarray(0, 2))).toEqual([]);
    expect(reader.push(framed.subarray(2, 5))).toEqual([]);
    expect(reader.pendingBytes).toBe(5);
    expect(reader.push(framed.subarray(5))).toEqual([bytes(10, 20, 30)]);
    expect(reader.pendingBytes).toBe(0);
  });

  it("keeps trailing bytes of the next message", () => {
    const reader = new LengthPrefixedReader();
    const two = new Uint8Array([...frameLengthPrefixed(bytes(1)), ...frameLengthPrefixed(bytes(2, 2))]);
    expect(reader.push(two.subarray(0, 7))).toEqual([bytes(1)]);
    expect(reader.pendingBytes).toBe(2);
    expect(reader.push(two.subarray(7))).toEqual([bytes(2, 2)]);
  });

  it("rejects an absurd length with a ProtocolError instead of buffering forever", () => {
    const reader = new LengthPrefixedReader();
    const header = new Uint8Array(4);
    new DataView(header.buffer).setUint32(0, MAX_HANDSHAKE_BYTES + 1, true);
    const attempt = (): unknown => reader.push(header);
    expect(attempt).toThrowError(SdkError);
    expect(attempt).toThrowError(/not speaking the localharness stdio protocol/);
  });

  it("does not alias the caller's chunk", () => {
    const reader = new LengthPrefixedReader();
    const chunk = frameLengthPrefixed(bytes(5, 6));
    const [message] = reader.push(chunk);
    chunk.fill(0);
    expect(message).toEqual(bytes(5, 6));
  });
});

describe("LengthPrefixedReader.readFirstMessage", () => {
  it("reads a Node stream up to its first whole message, split anywhere, and stops listening", async () => {
    const stream = new PassThrough();
    const reader = new LengthPrefixedReader();
    const reading = reader.readFirstMessage(stream);
    const framed = new Uint8Array([...frameLengthPrefixed(bytes(1, 2, 3)), 9]);
    stream.write(framed.subarray(0, 3));
    stream.write(framed.subarray(3));
    expect(await reading).toEqual(bytes(1, 2, 3));
    expect(reader.receivedBytes).toBe(8);
    expect(reader.pendingBytes).toBe(1);
    expect([stream.listenerCount("data"), stream.listenerCount("end"), stream.listenerCount("error")]).toEqual([
      0, 0, 0,
    ]);
  });

  it("resolves undefined when the stream or `ended` ends it first, with what came counted", async () => {
    const stream = new PassThrough();
    const reader = new LengthPrefixedReader();
    const reading = reader.readFirstMessage(stream);
    stream.end(bytes(5, 0, 0, 0, 1));
    expect(await reading).toBeUndefined();
    expect([reader.receivedBytes, reader.pendingBytes]).toEqual([5, 5]);
    expect(
      await new LengthPrefixedReader().readFirstMessage(new PassThrough(), { ended: Promise.resolve() }),
    ).toBeUndefined();
  });

  it("rejects with the stream's error, the signal's reason, or ProtocolError for an absurd length", async () => {
    const failing = new PassThrough();
    const failed = new LengthPrefixedReader().readFirstMessage(failing);
    failing.destroy(new Error("EPIPE"));
    await expect(failed).rejects.toThrow("EPIPE");
    const controller = new AbortController();
    const aborted = new LengthPrefixedReader().readFirstMessage(new PassThrough(), { signal: controller.signal });
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    const absurd = new PassThrough();
    const refused = new LengthPrefixedReader().readFirstMessage(absurd);
    absurd.write(bytes(0xff, 0xff, 0xff, 0xff));
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.ProtocolError });
  });
});

describe("InputConfig / OutputConfig binary codec", () => {
  it("round-trips every InputConfig field, the env map included", () => {
    const config = create(InputConfigSchema, {
      storageDirectory: "/tmp/s",
      port: 8000,
      bindAddress: "127.0.0.1",
      clientInfo: { language: "typescript", version: "0.1.0", languageVersion: "20", os: "linux", osVersion: "6" },
      env: { PATH: "/usr/bin", SHELL: "/bin/sh" },
    });
    expect(decodeInputConfig(encodeInputConfig(config))).toEqual(config);
  });

  it("round-trips OutputConfig and keeps an explicit port 0", () => {
    const config = create(OutputConfigSchema, { port: 0, apiKey: "" });
    const decoded = decodeOutputConfig(encodeOutputConfig(config));
    expect(decoded.port).toBe(0);
    expect(decoded.apiKey).toBe("");
    expect(decodeOutputConfig(new Uint8Array(0)).port).toBeUndefined();
  });

  it.each([
    ["a truncated varint", bytes(0x08, 0xff)],
    ["a length past the end", bytes(0x12, 0x05, 0x61)],
    ["an invalid wire type", bytes(0x0f)],
  ])("rejects %s with a ProtocolError", (_, garbage) => {
    try {
      decodeOutputConfig(garbage);
      expect.unreachable("garbage decoded");
    } catch (error) {
      expect(error).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(ErrorCode.ProtocolError);
      expect((error as SdkError).message).toMatch(/^malformed OutputConfig in the stdio handshake: /);
    }
    expect(() => decodeInputConfig(garbage)).toThrowError(/malformed InputConfig/);
  });
});
