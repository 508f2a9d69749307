import { fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  InputConfigSchema,
  OutputConfigSchema,
  type InputConfig,
  type OutputConfig,
} from "../gen/antigravity/localharness/localharness_pb.js";
import { ErrorCode, SdkError } from "../errors.js";
import { errorText } from "../error-text.js";

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
    throw new SdkError(ErrorCode.ProtocolError, `malformed ${name} in the stdio handshake: ${errorText(cause)}`, {
      cause,
    });
  }
}
