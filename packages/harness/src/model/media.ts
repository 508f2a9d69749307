/**
 * Media the model sees inline: the image, document, audio and video parts of a prompt
 * (`UserInput.Media`, §19) and a client tool's `ToolResponse.supplementalMedia`. Kept as base64 so
 * the transcript stays JSON (it is stored in the session file); each provider turns it into its
 * own inline form (Gemini `inlineData`, Chat Completions content parts).
 */
/** One inline medium. */
export interface ModelMedia {
  /** IANA type/subtype, e.g. `image/png`, `application/pdf`, `audio/wav`. */
  mimeType: string;
  /** The bytes, base64 (standard alphabet, padded). */
  data: string;
  /** The sender's description (`Media.description`), shown to the model beside the medium. */
  description?: string;
}

/** The media of one prompt, or of one tool response, may hold this many bytes (Gemini's inline request limit). */
export const MAX_MEDIA_BYTES = 20 * 1024 * 1024;

/** Tokens a non-text medium counts in estimates (Gemini bills a small image as 258). */
const MEDIA_TOKENS = 258;
/** ... per started chunk of this many bytes. */
const MEDIA_TOKEN_CHUNK = 256 * 1024;

const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/** What a medium is, for providers that have one input form per kind. */
export type MediaKind = "image" | "audio" | "video" | "text" | "document";

/** The kind of `mimeType` (parameters such as `; charset=utf-8` ignored). */
export function mediaKind(mimeType: string): MediaKind {
  const type = baseMimeType(mimeType);
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("audio/")) return "audio";
  if (type.startsWith("video/")) return "video";
  if (
    type.startsWith("text/") ||
    /^application\/(json|xml|yaml|x-yaml|toml|javascript|x-sh|csv)$/.test(type) ||
    /\+(json|xml)$/.test(type)
  )
    return "text";
  return "document";
}

/** `type/subtype`, lowercased, without parameters. */
export function baseMimeType(mimeType: string): string {
  return (mimeType.split(";")[0] ?? "").trim().toLowerCase();
}

/** A wire medium (`UserInput.Media` or `Media`) the model can take, or a message saying what is wrong with it. */
export function mediaFromWire(
  media: { mimeType?: string | undefined; data?: Uint8Array | undefined; description?: string | undefined },
  where: string,
): ModelMedia | string {
  const mimeType = (media.mimeType ?? "").trim();
  if (!MIME_TYPE.test(baseMimeType(mimeType)))
    return `${where} has mimeType ${JSON.stringify(mimeType)}: give a type/subtype such as image/png, application/pdf or audio/wav`;
  const bytes = media.data ?? new Uint8Array();
  if (bytes.length === 0) return `${where} (${mimeType}) has no data`;
  return {
    mimeType: baseMimeType(mimeType),
    data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
    ...(media.description ? { description: media.description } : {}),
  };
}

/** Byte length of a medium (from its base64). */
export function mediaByteLength(media: ModelMedia): number {
  const padding = media.data.endsWith("==") ? 2 : media.data.endsWith("=") ? 1 : 0;
  return Math.floor((media.data.length * 3) / 4) - padding;
}

/** The bytes of a text medium as UTF-8 text. */
export function mediaText(media: ModelMedia): string {
  return Buffer.from(media.data, "base64").toString("utf8");
}

/**
 * JSON of `value` for token estimates (ceil(characters / 4)): a medium's base64 is replaced by
 * its text for text media, and by {@link MEDIA_TOKENS} tokens' worth of characters per started
 * 256 KiB for the others, so an estimate counts what a medium costs the model rather than the
 * length of its base64. Equals `JSON.stringify(value)` when there are no media.
 */
export function jsonForEstimate(value: unknown): string {
  return JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
    if (key !== "data" || !isMedia(this)) return item;
    if (mediaKind(this.mimeType) === "text") return mediaText(this);
    return "·".repeat(4 * MEDIA_TOKENS * Math.max(1, Math.ceil(mediaByteLength(this) / MEDIA_TOKEN_CHUNK)));
  });
}

function isMedia(value: unknown): value is ModelMedia {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record["mimeType"] === "string" && typeof record["data"] === "string";
}
