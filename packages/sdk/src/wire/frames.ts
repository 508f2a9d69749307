import {
  InitializeConversationEventSchema,
  InputEventSchema,
  OutputEventSchema,
  type InitializeConversationEvent,
  type InputEvent,
  type OutputEvent,
} from "../gen/antigravity/localharness/localharness_pb.js";
import { decodeJsonFrame, encodeJsonFrame } from "./json-codec.js";

// §4: harness → SDK frames are OutputEvents; SDK → harness frames are InputEvents, except the
// first, which is an InitializeConversationEvent.

/** Decodes a harness frame. Throws `SdkError` `ProtocolError` when it is not an OutputEvent. */
export function decodeOutputEvent(frame: string): OutputEvent {
  return decodeJsonFrame(OutputEventSchema, frame);
}

/** Encodes a harness frame. */
export function encodeOutputEvent(event: OutputEvent): string {
  return encodeJsonFrame(OutputEventSchema, event);
}

/** Decodes an SDK frame after the first. */
export function decodeInputFrame(frame: string): InputEvent {
  return decodeJsonFrame(InputEventSchema, frame);
}

/** Encodes an SDK frame after the first. */
export function encodeInputEvent(event: InputEvent): string {
  return encodeJsonFrame(InputEventSchema, event);
}

/** Decodes the first SDK frame (§5). */
export function decodeInitializeConversationEvent(frame: string): InitializeConversationEvent {
  return decodeJsonFrame(InitializeConversationEventSchema, frame);
}

/** Encodes the first SDK frame (§5): `{"config": HarnessConfig}`. */
export function encodeInitializeConversationEvent(event: InitializeConversationEvent): string {
  return encodeJsonFrame(InitializeConversationEventSchema, event);
}
