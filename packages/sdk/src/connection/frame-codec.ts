import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { HarnessConfig, InputEventSchema, OutputEvent, OutputEventSchema } from "../wire/index.js";
import { readJsonFast } from "../wire/json-reader.js";
import { writeJson } from "../wire/json-writer.js";
import { errorText } from "../error-text.js";

// The connection's frames (protocol §4) without the protobuf-es runtime on the hot path: sent
// frames are written from the schema-free wire plan (equal to `toJson(create())`, tested in
// wire/json-writer.test.ts); received frames go through the fast reader, and only a frame it
// leaves undecided (a null, bytes, an odd number, a frame that is not JSON, ...) loads the
// generated schema and `fromJson` by a dynamic import, once, and is decoded exactly as
// `decodeOutputEvent` of `@antigravity-ts/sdk/wire` decodes it.

const OUTPUT_EVENT = { typeName: "antigravity.localharness.OutputEvent" } as const;

type FullDecoder = typeof import("../wire/frames.js");
let fullDecoder: Promise<FullDecoder> | undefined;

/** An SDK frame after the first (§4): the JSON of an InputEvent. */
export function encodeInputFrame(event: MessageInitShape<typeof InputEventSchema>): string {
  return JSON.stringify(writeJson("antigravity.localharness.InputEvent", event));
}

/** The first SDK frame (§5): `{"config": HarnessConfig}`. */
export function encodeInitFrame(config: HarnessConfig): string {
  return JSON.stringify(writeJson("antigravity.localharness.InitializeConversationEvent", { config }));
}

/**
 * Decodes a harness frame: synchronously when the fast reader decides it, else by the full
 * decoder, loaded on first need. Rejects (or throws) `SdkError` `ProtocolError` for a frame that
 * is not an OutputEvent.
 */
export function decodeOutputFrame(frame: string): OutputEvent | Promise<OutputEvent> {
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    return decodeFully(frame); // the full decoder words the error
  }
  return readJsonFast<typeof OutputEventSchema>(OUTPUT_EVENT, json) ?? decodeFully(frame);
}

function decodeFully(frame: string): Promise<OutputEvent> {
  fullDecoder ??= import("../wire/frames.js").catch((cause: unknown) => {
    fullDecoder = undefined; // a later frame tries again (the chunk may load once the network is back)
    throw new SdkError(ErrorCode.Unavailable, `could not load the SDK's full frame decoder (a lazily imported chunk): ${errorText(cause)}; check that the bundle's chunks are served next to the entry`, { cause });
  });
  return fullDecoder.then((decoder) => decoder.decodeOutputEvent(frame));
}
