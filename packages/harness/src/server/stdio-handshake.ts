import type { Readable, Writable } from "node:stream";
import {
  LengthPrefixedReader,
  decodeHandshakeInput,
  encodeHandshakeOutput,
  frameLengthPrefixed,
  type HandshakeInput,
} from "@antigravity-ts/sdk/internal";

// §3: one u32-LE length-prefixed binary InputConfig on stdin, one OutputConfig back on stdout.
// stdin then stays open; its end is the signal to shut down (§2.3). Nothing here loads the
// generated schema registry (the SDK's wire/handshake-codec.ts reads and writes the two messages by hand).

/**
 * Reads the handshake `InputConfig` from `stdin`. Bytes after it are ignored, but the stream
 * keeps flowing so that its `end` can be observed by the caller.
 */
export async function readInputConfig(stdin: Readable): Promise<HandshakeInput> {
  const reader = new LengthPrefixedReader();
  try {
    // Rejects with ProtocolError for a length past MAX_HANDSHAKE_BYTES: the client is not speaking §3.
    const message = await reader.readFirstMessage(stdin);
    if (message === undefined) {
      throw new Error(
        `stdin closed before a complete InputConfig arrived (${reader.receivedBytes} bytes received); the client must write a u32-LE length and a binary InputConfig (protocol §3)`,
      );
    }
    return decodeHandshakeInput(message);
  } finally {
    stdin.on("data", () => {});
  }
}

/** Writes the handshake reply `OutputConfig{port, apiKey}` and resolves once it is flushed. */
export function writeOutputConfig(stdout: Writable, port: number, apiKey: string): Promise<void> {
  const bytes = frameLengthPrefixed(encodeHandshakeOutput({ port, apiKey }));
  return new Promise((resolve, reject) => {
    stdout.write(bytes, (error) => (error ? reject(error) : resolve()));
  });
}
