/**
 * The wire layer: generated protobuf-es schemas of `antigravity.localharness` (protocol §19),
 * the tolerant JSON frame codec (§4.1) and the binary stdio handshake (§3). Shared by the SDK
 * and the reference harness; knows nothing of steps or conversations.
 * @module
 */
export * from "../gen/antigravity/localharness/localharness_pb.js";
export { create, fromJson, toJson, toBinary, fromBinary, type MessageInitShape } from "@bufbuild/protobuf";
export { decodeJsonFrame, encodeJsonFrame } from "./json-codec.js";
export {
  LOCALHARNESS_ERAS,
  NEWEST_LOCALHARNESS_ERA,
  isLocalharnessEra,
  eraOfClientInfo,
  type LocalharnessEra,
} from "./wire-era.js";
export { initFrameForEra, inputEventForEra, outputEventForEra, readFrameOfEitherEra } from "./wire-era-spelling.js";
export {
  decodeOutputEvent,
  encodeOutputEvent,
  decodeInputFrame,
  encodeInputEvent,
  decodeInitializeConversationEvent,
  encodeInitializeConversationEvent,
} from "./frames.js";
export {
  frameLengthPrefixed,
  LengthPrefixedReader,
  MAX_HANDSHAKE_BYTES,
  type ByteEventStream,
  type ReadFirstMessageOptions,
} from "./length-prefixed.js";
export { encodeInputConfig, decodeInputConfig, encodeOutputConfig, decodeOutputConfig } from "./handshake.js";
