import { ErrorCode, SdkError } from "../errors.js";

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
