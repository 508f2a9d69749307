import type { UserInput } from "@antigravity-ts/sdk/wire";

/** Largest prompt text accepted (UTF-8 bytes of all text parts). */
export const MAX_PROMPT_BYTES = 1024 * 1024;

/**
 * The text the model sees for a `UserInput` (§6.1): text parts joined by newlines, slash
 * commands as `/name`, and a note per media part (providers get text only).
 */
export function userInputText(input: UserInput): string {
  return input.parts
    .map((part) => {
      switch (part.part.case) {
        case "text": return part.part.value;
        case "slashCommand": return `/${part.part.value.name ?? ""}`;
        case "media": {
          const media = part.part.value;
          const description = media.description ? `: ${media.description}` : "";
          return `[attached ${media.mimeType || "media"}${description} (${media.data?.length ?? 0} bytes)]`;
        }
        default: return "";
      }
    })
    .filter((text) => text !== "")
    .join("\n");
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
  return frame;
}
