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

/**
 * The part of a byte stream {@link LengthPrefixedReader.readFirstMessage} listens to. A Node
 * `Readable` (a child's stdout, the harness's stdin) has this shape; the core names it by shape so
 * that it imports no `node:` module.
 */
export interface ByteEventStream {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  once(event: "end", listener: () => void): unknown;
  once(event: "error", listener: (error: Error) => void): unknown;
  off(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  off(event: "end", listener: () => void): unknown;
  off(event: "error", listener: (error: Error) => void): unknown;
}

/** Options of {@link LengthPrefixedReader.readFirstMessage}. */
export interface ReadFirstMessageOptions {
  /** Stops reading; the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /**
   * Settles when no more bytes can come even if the stream's `end` was missed (e.g. a child's
   * exit: Node drains the stdout of a process that exited before anyone read it); then the read
   * ends as at `end`.
   */
  ended?: PromiseLike<unknown> | undefined;
}

/** Incremental deframer for u32-LE length-prefixed messages; chunks may split anywhere. */
export class LengthPrefixedReader {
  #buffer = new Uint8Array(0);
  #received = 0;

  /** Adds bytes and returns every message completed by them, in order. */
  push(chunk: Uint8Array): Uint8Array[] {
    this.#received += chunk.length;
    const merged = new Uint8Array(this.#buffer.length + chunk.length);
    merged.set(this.#buffer);
    merged.set(chunk, this.#buffer.length);
    const messages: Uint8Array[] = [];
    let offset = 0;
    while (merged.length - offset >= 4) {
      const length = new DataView(merged.buffer, merged.byteOffset + offset, 4).getUint32(0, true);
      if (length > MAX_HANDSHAKE_BYTES) {
        throw new SdkError(
          ErrorCode.ProtocolError,
          `handshake frame announces ${length} bytes (limit ${MAX_HANDSHAKE_BYTES}); the peer is not speaking the localharness stdio protocol`,
        );
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

  /** Bytes pushed so far. */
  get receivedBytes(): number {
    return this.#received;
  }

  /**
   * Reads `stream` until its first whole message (the §3 handshake is one message each way) and
   * stops listening: resolves with the message, or with `undefined` when the stream ends first
   * (or `options.ended` settles). Rejects with the stream's error, the signal's reason, or
   * `ProtocolError` for a length past {@link MAX_HANDSHAKE_BYTES}. Bytes after the message stay
   * unread in {@link pendingBytes}; the caller decides what becomes of the rest of the stream.
   *
   * @example
   * const reply = await new LengthPrefixedReader().readFirstMessage(child.stdout, { signal });
   */
  readFirstMessage(stream: ByteEventStream, options: ReadFirstMessageOptions = {}): Promise<Uint8Array | undefined> {
    const { signal, ended } = options;
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (settle: () => void): void => {
        if (settled) return;
        settled = true;
        stream.off("data", onData);
        stream.off("end", onEnd);
        stream.off("error", onError);
        signal?.removeEventListener("abort", onAbort);
        settle();
      };
      const onData = (chunk: Uint8Array): void => {
        try {
          const [message] = this.push(chunk);
          if (message !== undefined) finish(() => resolve(message));
        } catch (error) {
          finish(() => reject(error));
        }
      };
      const onEnd = (): void => finish(() => resolve(undefined));
      const onError = (error: Error): void => finish(() => reject(error));
      const onAbort = (): void => finish(() => reject(signal?.reason));
      stream.on("data", onData);
      stream.once("end", onEnd);
      stream.once("error", onError);
      ended?.then(onEnd, onEnd);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
