import { readFrameOfEitherEra } from "@antigravity-ts/sdk/internal";
import type { UserInput } from "@antigravity-ts/sdk/wire";
import { MAX_MEDIA_BYTES, mediaByteLength, mediaFromWire, type ModelMedia } from "../model/media.js";

/** Largest prompt text accepted (UTF-8 bytes of all text parts). */
export const MAX_PROMPT_BYTES = 1024 * 1024;

/**
 * The text the model sees for a `UserInput` (§6.1): text parts joined by newlines and slash
 * commands as `/name`. Media parts travel apart, inline ({@link userInputMedia}).
 */
export function userInputText(input: UserInput): string {
  return input.parts
    .map((part) => {
      switch (part.part.case) {
        case "text":
          return part.part.value;
        case "slashCommand":
          return `/${part.part.value.name ?? ""}`;
        default:
          return "";
      }
    })
    .filter((text) => text !== "")
    .join("\n");
}

/**
 * The media parts of a `UserInput` (images, documents, audio, video: upstream `types.Image`,
 * `Document`, `Audio`, `Video`), in order, for the model to get inline; or why the prompt is
 * refused (a part without a usable mimeType or data, or more than {@link MAX_MEDIA_BYTES}).
 */
export function userInputMedia(input: UserInput): ModelMedia[] | { refused: string } {
  const media: ModelMedia[] = [];
  for (const [index, part] of input.parts.entries()) {
    if (part.part.case !== "media") continue;
    const medium = mediaFromWire(part.part.value, `media part ${index}`);
    if (typeof medium === "string") return { refused: `prompt refused: ${medium}` };
    media.push(medium);
  }
  const bytes = media.reduce((sum, m) => sum + mediaByteLength(m), 0);
  if (bytes > MAX_MEDIA_BYTES)
    return {
      refused: `prompt refused: its media have ${bytes} bytes, more than the ${MAX_MEDIA_BYTES} a prompt may carry`,
    };
  return media;
}

/**
 * Accepts the user-input shapes of older SDKs (§6.1, §20): era A/B/C sent `{"userInput":"text"}`
 * (a string) or `{"complexUserInput":{parts}}`. Returns the frame in today's shape; anything else
 * unchanged.
 */
export function normalizeLegacyInputFrame(frame: string): string {
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    return frame;
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return frame;
  const object = json as Record<string, unknown>;
  const legacy = object["user_input"] ?? object["userInput"];
  if (typeof legacy === "string") return JSON.stringify({ userInput: { parts: [{ text: legacy }] } });
  const complex = object["complexUserInput"] ?? object["complex_user_input"];
  if (complex !== undefined && legacy === undefined) return JSON.stringify({ userInput: complex });
  // A 0.1.14 client's PreToolResult.modifiedArgumentsJson, read as the newest era's modifiedArgs (wire-era.ts).
  const read = readFrameOfEitherEra(object as Parameters<typeof readFrameOfEitherEra>[0]);
  return read.frame === object ? frame : JSON.stringify(read.frame);
}
