import type { DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { HarnessConfig, InitializeConversationEvent, InitializeConversationEventSchema, InputEvent, InputEventSchema, OutputEvent, OutputEventSchema } from "../wire/index.js";
import { readJsonFast } from "../wire/json-reader.js";
import { writeJson } from "../wire/json-writer.js";
import { errorText } from "../error-text.js";

// The frames of §4 without the protobuf-es runtime on the hot path, for both peers (the reference
// harness uses these through `@antigravity-ts/sdk/internal`): sent frames are written from the
// schema-free wire plan (equal to `toJson(create())`, tested in wire/json-writer.test.ts);
// received frames go through the fast reader, and only a frame it leaves undecided (a null,
// bytes, an odd number, a frame that is not JSON, ...) loads the generated schema and `fromJson`
// by a dynamic import, once, and is decoded exactly as the decoders of `@antigravity-ts/sdk/wire`
// (`decodeOutputEvent`, `decodeInputFrame`, `decodeInitializeConversationEvent`) decode it.

const OUTPUT_EVENT = { typeName: "antigravity.localharness.OutputEvent" } as const;
const INPUT_EVENT = { typeName: "antigravity.localharness.InputEvent" } as const;
const INIT_EVENT = { typeName: "antigravity.localharness.InitializeConversationEvent" } as const;

type FullDecoder = typeof import("../wire/frames.js");
let fullDecoder: Promise<FullDecoder> | undefined;

/** An SDK frame after the first (§4): the JSON of an InputEvent. */
export function encodeInputFrame(event: MessageInitShape<typeof InputEventSchema>): string {
  const answer = event.event?.case === "toolResponse" ? event.event.value : undefined;
  // A client tool's usual answer (§7), an id and JSON, written as writeJson writes it without walking the plan.
  if (answer !== undefined && answer.supplementalMedia == null && answer.errorMessage == null && answer.response == null) {
    const { id, responseJson } = answer;
    if (typeof id === "string" && id !== "" && typeof responseJson === "string" && responseJson !== "")
      return `{"toolResponse":{"id":${JSON.stringify(id)},"responseJson":${JSON.stringify(responseJson)}}}`;
  }
  return JSON.stringify(writeJson("antigravity.localharness.InputEvent", event));
}

/** The first SDK frame (§5): `{"config": HarnessConfig}`. */
export function encodeInitFrame(config: HarnessConfig): string {
  return JSON.stringify(writeJson("antigravity.localharness.InitializeConversationEvent", { config }));
}

/** A harness frame (§4): the JSON of an OutputEvent, given as `create()` takes it. */
export function encodeOutputFrame(event: MessageInitShape<typeof OutputEventSchema>): string {
  return JSON.stringify(writeJson("antigravity.localharness.OutputEvent", event));
}

/**
 * Decodes a harness frame: synchronously when the fast reader decides it, else by the full
 * decoder, loaded on first need. Rejects (or throws) `SdkError` `ProtocolError` for a frame that
 * is not an OutputEvent.
 */
export function decodeOutputFrame(frame: string): OutputEvent | Promise<OutputEvent> {
  return decodeFrame<typeof OutputEventSchema>(OUTPUT_EVENT, frame, (decoder) => decoder.decodeOutputEvent(frame));
}

/**
 * Decodes an SDK frame after the first (an InputEvent), as {@link decodeOutputFrame} decodes a
 * harness frame: synchronously when the fast reader decides it. Rejects `SdkError` `ProtocolError`
 * for a frame that is not an InputEvent.
 */
export function decodeInputEventFrame(frame: string): InputEvent | Promise<InputEvent> {
  return decodeFrame<typeof InputEventSchema>(INPUT_EVENT, frame, (decoder) => decoder.decodeInputFrame(frame));
}

/** Decodes the first SDK frame (§5), an InitializeConversationEvent, like {@link decodeInputEventFrame}. */
export function decodeInitFrame(frame: string): InitializeConversationEvent | Promise<InitializeConversationEvent> {
  return decodeFrame<typeof InitializeConversationEventSchema>(INIT_EVENT, frame, (decoder) => decoder.decodeInitializeConversationEvent(frame));
}

function decodeFrame<Desc extends DescMessage>(
  type: { readonly typeName: Desc["typeName"] },
  frame: string,
  decodeFully: (decoder: FullDecoder) => MessageShape<Desc>,
): MessageShape<Desc> | Promise<MessageShape<Desc>> {
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    return loadFullDecoder().then(decodeFully); // the full decoder words the error
  }
  return readJsonFast<Desc>(type, json) ?? loadFullDecoder().then(decodeFully);
}

function loadFullDecoder(): Promise<FullDecoder> {
  fullDecoder ??= import("../wire/frames.js").catch((cause: unknown) => {
    fullDecoder = undefined; // a later frame tries again (the chunk may load once the network is back)
    throw new SdkError(
      ErrorCode.Unavailable,
      `could not load the SDK's full frame decoder (a lazily imported chunk): ${errorText(cause)}; check that the bundle's chunks are served next to the entry`,
      { cause },
    );
  });
  return fullDecoder;
}
