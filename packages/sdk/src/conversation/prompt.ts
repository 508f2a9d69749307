import { ErrorCode, SdkError } from "../errors.js";
import type { Prompt } from "../types.js";

/** True for a prompt with nothing to send: empty or whitespace-only text, no media, no slash command. */
export function isBlankPrompt(prompt: Prompt): boolean {
  if (typeof prompt === "string") return prompt.trim() === "";
  return prompt.every((part) => "text" in part && part.text.trim() === "");
}

/** Throws `InvalidArgument` for a {@link isBlankPrompt blank} prompt (§6.1: upstream refuses empty prompts). */
export function assertPromptNotBlank(prompt: Prompt): void {
  if (isBlankPrompt(prompt)) {
    throw new SdkError(ErrorCode.InvalidArgument, "the prompt is empty: pass some text, media or a slash command");
  }
}
