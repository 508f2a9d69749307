import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { InputConfigSchema, OutputConfigSchema, type InputConfig, type OutputConfig } from "../gen/antigravity/localharness/localharness_pb.js";
import { ErrorCode, SdkError } from "../errors.js";
import { errorText } from "../error-text.js";

// §3: the stdio handshake is one binary protobuf message each way, framed by a 4-byte
// unsigned little-endian length (not a varint, no newline).

/** Largest handshake message we accept; real ones are well under 1 KiB. */
export const MAX_HANDSHAKE_BYTES = 16 * 1024 * 1024;

/** Prefixes `bytes` with its u32-LE length. */
export function frameLengthPrefixed(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length, true);
  out.set(bytes, 4);
  return out;
}

/** Incremental deframer for u32-LE length-prefixed messages; chunks may split anywhere. */
export class LengthPrefixedReader {
  #buffer = new Uint8Array(0);

  /** Adds bytes and returns every message completed by them, in order. */
  push(chunk: Uint8Array): Uint8Array[] {
    const merged = new Uint8Array(this.#buffer.length + chunk.length);
    merged.set(this.#buffer);
    merged.set(chunk, this.#buffer.length);
    const messages: Uint8Array[] = [];
    let offset = 0;
    while (merged.length - offset >= 4) {
      const length = new DataView(merged.buffer, merged.byteOffset + offset, 4).getUint32(0, true);
      if (length > MAX_HANDSHAKE_BYTES) {
        throw new SdkError(ErrorCode.ProtocolError, `handshake frame announces ${length} bytes (limit ${MAX_HANDSHAKE_BYTES}); the peer is not speaking the localharness stdio protocol`);
      }
      if (merged.length - offset - 4 < length) break;
      messages.push(merged.slice(offset + 4, offset + 4 + length));
      offset += 4 + length;
    }
    this.#buffer = merged.slice(offset);
    return messages;
  }

  /** Bytes received but not yet part of a whole message. */
  get pendingBytes(): number {
    return this.#buffer.length;
  }
}

/** Binary `InputConfig` (SDK → harness stdin). */
export function encodeInputConfig(config: InputConfig): Uint8Array {
  return toBinary(InputConfigSchema, config);
}

/** Parses a binary `InputConfig`; throws `ProtocolError` on garbage. */
export function decodeInputConfig(bytes: Uint8Array): InputConfig {
  return decodeBinary(() => fromBinary(InputConfigSchema, bytes), "InputConfig");
}

/** Binary `OutputConfig` (harness stdout → SDK). */
export function encodeOutputConfig(config: OutputConfig): Uint8Array {
  return toBinary(OutputConfigSchema, config);
}

/** Parses a binary `OutputConfig`; throws `ProtocolError` on garbage. */
export function decodeOutputConfig(bytes: Uint8Array): OutputConfig {
  return decodeBinary(() => fromBinary(OutputConfigSchema, bytes), "OutputConfig");
}

function decodeBinary<T>(decode: () => T, name: string): T {
  try {
    return decode();
  } catch (cause) {
    throw new SdkError(ErrorCode.ProtocolError, `malformed ${name} in the stdio handshake: ${errorText(cause)}`, { cause });
  }
}
