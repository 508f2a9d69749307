import type { MessageInitShape } from "@bufbuild/protobuf";
import { assertPromptNotBlank } from "../prompt.js";
import type { Prompt } from "../prompt.js";
import type { UserInputSchema, UserInput_PartSchema } from "../wire/index.js";

// §6.1: control characters make the model API answer HTTP 400 (0.1.8 changelog); upstream
// replaces them with spaces. Tab, LF and CR are kept.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

/**
 * `text` with every control character except tab, LF and CR replaced by a space (§6.1). Text
 * that is blank once sanitised (only control characters and whitespace) is sent as one space and
 * empty text as empty, as upstream's `local_connection._sanitize_prompt` does.
 */
export function sanitizePromptText(text: string): string {
  if (text === "") return "";
  const sanitized = text.replace(CONTROL_CHARS, " ");
  return sanitized.trim() === "" ? " " : sanitized;
}

/**
 * The `userInput` payload of a prompt (§6.1): text parts sanitised, media and slash commands as
 * they are. Throws `InvalidArgument` for an empty or whitespace-only prompt (0.1.11 changelog:
 * such prompts left the session unresponsive).
 */
export function toUserInput(prompt: Prompt): MessageInitShape<typeof UserInputSchema> {
  assertPromptNotBlank(prompt);
  if (typeof prompt === "string") return { parts: [{ part: { case: "text", value: sanitizePromptText(prompt) } }] };
  const parts: MessageInitShape<typeof UserInput_PartSchema>[] = prompt.map((part) => {
    if ("text" in part) return { part: { case: "text", value: sanitizePromptText(part.text) } };
    if ("media" in part) {
      const { mimeType, data, description } = part.media;
      return {
        part: {
          case: "media",
          value: description === undefined ? { mimeType, data } : { mimeType, data, description },
        },
      };
    }
    return { part: { case: "slashCommand", value: { name: part.slashCommand } } };
  });
  return { parts };
}
