import type { DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import { errorText } from "../error-text.js";
import type {
  HarnessConfig,
  InitializeConversationEvent,
  InitializeConversationEventSchema,
  InputEvent,
  InputEventSchema,
  OutputEvent,
  OutputEventSchema,
} from "./index.js";
import { readJsonFast } from "./json-reader.js";
import { writeJson } from "./json-writer.js";
import type { Json } from "./json-writer.js";

/**
 * Rewrites a frame's JSON for a wire era other than the newest (wire-era-spelling.ts:
 * `initFrameForEra`, `inputEventForEra`, `outputEventForEra` bound to an era); may throw `SdkError`.
 */
export type FrameSpelling = (json: { [key: string]: Json }) => { [key: string]: Json };

// The frames of §4 without the protobuf-es runtime on the hot path, for both peers (the reference
// harness uses these through `@antigravity-ts/sdk/internal`). Sent frames are written from the
// schema-free wire plan (equal to `toJson(create())`, tested in json-writer.test.ts). A received
// frame has two doors: `tryDecode…` is the fast reader alone, synchronous, and answers `undefined`
// for a frame it leaves undecided (a null, bytes, an odd number, a frame that is not JSON, ...);
// `decode…Fully` loads the generated schema and `fromJson` by a dynamic import, once, and decodes
// any frame exactly as the decoders of `@antigravity-ts/sdk/wire` (`decodeOutputEvent`,
// `decodeInputFrame`, `decodeInitializeConversationEvent`) do. A reader tries the first and awaits
// the second only when it must:
//   const event = tryDecodeOutputFrame(frame) ?? (await decodeOutputFrameFully(frame));

const OUTPUT_EVENT = { typeName: "antigravity.localharness.OutputEvent" } as const;
const INPUT_EVENT = { typeName: "antigravity.localharness.InputEvent" } as const;
const INIT_EVENT = { typeName: "antigravity.localharness.InitializeConversationEvent" } as const;

type FullDecoder = typeof import("./frames.js");
let fullDecoder: Promise<FullDecoder> | undefined;

/** An SDK frame after the first (§4): the JSON of an InputEvent, in the newest era's spelling unless `spell` rewrites it. */
export function encodeInputFrame(event: MessageInitShape<typeof InputEventSchema>, spell?: FrameSpelling): string {
  const json = writeJson("antigravity.localharness.InputEvent", event);
  return JSON.stringify(spell === undefined ? json : spell(json));
}

/**
 * The first SDK frame (§5): `{"config": HarnessConfig}`, in the newest era's spelling unless
 * `spell` rewrites it (an older era's writer throws `SdkError` `Unsupported` for a field it lacks).
 */
export function encodeInitFrame(config: HarnessConfig, spell?: FrameSpelling): string {
  const json = writeJson("antigravity.localharness.InitializeConversationEvent", { config });
  return JSON.stringify(spell === undefined ? json : spell(json));
}

/**
 * A harness frame (§4): the JSON of an OutputEvent, given as `create()` takes it, in the newest
 * era's spelling unless `spell` rewrites it (for a 0.1.14 client, `outputEventForEra`).
 */
export function encodeOutputFrame(event: MessageInitShape<typeof OutputEventSchema>, spell?: FrameSpelling): string {
  const json = writeJson("antigravity.localharness.OutputEvent", event);
  return JSON.stringify(spell === undefined ? json : spell(json));
}

/**
 * A harness frame decoded by the fast reader, or `undefined` when it leaves the frame undecided
 * (then {@link decodeOutputFrameFully} decides it). Never throws.
 */
export function tryDecodeOutputFrame(frame: string): OutputEvent | undefined {
  return tryDecode<typeof OutputEventSchema>(OUTPUT_EVENT, frame);
}

/**
 * Decodes any harness frame with the full decoder, loaded on first need. Rejects with `SdkError`
 * `ProtocolError` for a frame that is not an OutputEvent, `Unavailable` when the decoder's chunk
 * cannot be loaded.
 */
export async function decodeOutputFrameFully(frame: string): Promise<OutputEvent> {
  return (await loadFullDecoder()).decodeOutputEvent(frame);
}

/** An SDK frame after the first (an InputEvent) decoded by the fast reader, as {@link tryDecodeOutputFrame}. */
export function tryDecodeInputEventFrame(frame: string): InputEvent | undefined {
  return tryDecode<typeof InputEventSchema>(INPUT_EVENT, frame);
}

/** Decodes any SDK frame after the first, as {@link decodeOutputFrameFully}; `ProtocolError` for one that is not an InputEvent. */
export async function decodeInputEventFrameFully(frame: string): Promise<InputEvent> {
  return (await loadFullDecoder()).decodeInputFrame(frame);
}

/** The first SDK frame (§5), an InitializeConversationEvent, decoded by the fast reader, as {@link tryDecodeOutputFrame}. */
export function tryDecodeInitFrame(frame: string): InitializeConversationEvent | undefined {
  return tryDecode<typeof InitializeConversationEventSchema>(INIT_EVENT, frame);
}

/** Decodes any first SDK frame, as {@link decodeOutputFrameFully}; `ProtocolError` for one that is not an InitializeConversationEvent. */
export async function decodeInitFrameFully(frame: string): Promise<InitializeConversationEvent> {
  return (await loadFullDecoder()).decodeInitializeConversationEvent(frame);
}

function tryDecode<Desc extends DescMessage>(
  type: { readonly typeName: Desc["typeName"] },
  frame: string,
): MessageShape<Desc> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    return undefined; // the full decoder words the error
  }
  return readJsonFast<Desc>(type, json);
}

function loadFullDecoder(): Promise<FullDecoder> {
  fullDecoder ??= import("./frames.js").catch((cause: unknown) => {
    fullDecoder = undefined; // a later frame tries again (the chunk may load once the network is back)
    throw new SdkError(
      ErrorCode.Unavailable,
      `could not load the SDK's full frame decoder (a lazily imported chunk): ${errorText(cause)}; check that the bundle's chunks are served next to the entry`,
      { cause },
    );
  });
  return fullDecoder;
}
