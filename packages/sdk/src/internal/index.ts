/**
 * Building blocks the sibling packages (`@antigravity-ts/node`, `@antigravity-ts/harness`) share
 * with the core: the wire→step mappers, the bounded async queue, abort helpers and log throttling.
 * They are not the SDK's API and may change in any release; the public root
 * (`@antigravity-ts/sdk`) leaves them out so a browser app does not carry them in its import map.
 * @module
 */
export {
  stepFromUpdate,
  stepIdOf,
  toolCallsFromUpdate,
  normalizeWirePath,
  usageFromWire,
  stopReasonFromWire,
} from "../mapping/index.js";
export { AsyncQueue, type AsyncQueueOptions } from "../util/async-queue.js";
export { abortError, delay, linkSignal, raceSignal, throwIfAborted, type LinkedSignal } from "../util/abort.js";
export { LogThrottle } from "../util/log-throttle.js";
export { peerCloseError } from "../transport/websocket-errors.js";
export { closeSocket, registerWebSocketAdapter } from "../transport/websocket-adapter.js";
export {
  rulesInPrecedence,
  type CallTarget,
  type PrecedenceDecision,
  type RuleTarget,
} from "../policies/precedence.js";
export { checkJsonSchema } from "../tools/json-schema-check.js";
export { registerAgentDefaults } from "../agent/runtime-defaults.js";
export { errorText } from "../error-text.js";
export { definedProperties, type DefinedProperties } from "../defined-properties.js";
// The frames of §4 and the schema's messages and enums without the generated schema registry, so
// the reference harness starts without building it (it loads lazily for an undecided frame).
export {
  decodeInitFrameFully,
  decodeInputEventFrameFully,
  decodeOutputFrameFully,
  encodeOutputFrame,
  tryDecodeInitFrame,
  tryDecodeInputEventFrame,
  tryDecodeOutputFrame,
} from "../wire/frame-codec.js";
export { writeJson } from "../wire/json-writer.js";
export { readJsonFast } from "../wire/json-reader.js";
export { createMessage } from "../wire/plain-message.js";
export { plainOfStruct } from "../wire/genai-struct-read.js";
export { structInitOf } from "../wire/genai-struct.js";
export { eraOfClientInfo, NEWEST_LOCALHARNESS_ERA, type LocalharnessEra } from "../wire/wire-era.js";
export { outputEventForEra, readFrameOfEitherEra } from "../wire/wire-era-spelling.js";
export * from "../wire/wire-enums.gen.js";
// The stdio handshake (protocol §3) without the schema registry: the node package's client side
// and the reference harness's server side, so neither loads the generated schema to start.
export { frameLengthPrefixed, LengthPrefixedReader, MAX_HANDSHAKE_BYTES } from "../wire/length-prefixed.js";
export {
  HandshakeFormatError,
  decodeHandshakeInput,
  decodeHandshakeOutput,
  encodeHandshakeInput,
  encodeHandshakeOutput,
  type HandshakeInput,
  type HandshakeOutput,
} from "../wire/handshake-codec.js";
