import type { Readable, Writable } from "node:stream";
import {
  LengthPrefixedReader,
  OutputConfigSchema,
  create,
  decodeInputConfig,
  encodeOutputConfig,
  frameLengthPrefixed,
  type InputConfig,
} from "@antigravity-ts/sdk/wire";

// §3: one u32-LE length-prefixed binary InputConfig on stdin, one OutputConfig back on stdout.
// stdin then stays open; its end is the signal to shut down (§2.3).

/**
 * Reads the handshake `InputConfig` from `stdin`. Bytes after it are ignored, but the stream
 * keeps flowing so that its `end` can be observed by the caller.
 */
export function readInputConfig(stdin: Readable): Promise<InputConfig> {
  return new Promise((resolve, reject) => {
    const reader = new LengthPrefixedReader();
    const cleanup = (): void => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.off("error", onError);
      stdin.on("data", () => {});
    };
    const onData = (chunk: Buffer): void => {
      let messages: Uint8Array[];
      try {
        messages = reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } catch (error) {
        cleanup();
        reject(error);
        return;
      }
      const first = messages[0];
      if (first === undefined) return;
      cleanup();
      try {
        resolve(decodeInputConfig(first));
      } catch (error) {
        reject(error);
      }
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error(`stdin closed before a complete InputConfig arrived (${reader.pendingBytes} bytes received); the client must write a u32-LE length and a binary InputConfig (protocol §3)`));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    stdin.on("data", onData);
    stdin.once("end", onEnd);
    stdin.once("error", onError);
  });
}

/** Writes the handshake reply `OutputConfig{port, apiKey}` and resolves once it is flushed. */
export function writeOutputConfig(stdout: Writable, port: number, apiKey: string): Promise<void> {
  const bytes = frameLengthPrefixed(encodeOutputConfig(create(OutputConfigSchema, { port, apiKey })));
  return new Promise((resolve, reject) => {
    stdout.write(bytes, (error) => (error ? reject(error) : resolve()));
  });
}
