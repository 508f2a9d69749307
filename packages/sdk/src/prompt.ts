import { ErrorCode, SdkError } from "./errors.js";

/** One part of a user prompt (protocol §6.1). */
export type PromptPart =
  | { text: string }
  | { media: { mimeType: string; data: Uint8Array; description?: string } }
  | { slashCommand: string };

/** A prompt: plain text or a list of parts. */
export type Prompt = string | readonly PromptPart[];

/** True for a prompt with nothing to send: empty or whitespace-only text, no media, no slash command. */
export function isBlankPrompt(prompt: Prompt): boolean {
  if (typeof prompt === "string") return prompt.trim() === "";
  return prompt.every((part) => "text" in part && part.text.trim() === "");
}

/**
 * Throws `InvalidArgument` for a prompt that is not a {@link Prompt} (JavaScript callers have no
 * types to stop them) or is {@link isBlankPrompt blank} (§6.1: upstream refuses empty prompts).
 */
export function assertPromptNotBlank(prompt: Prompt): void {
  assertPromptShape(prompt);
  if (isBlankPrompt(prompt)) {
    throw new SdkError(ErrorCode.InvalidArgument, "the prompt is empty: pass some text, media or a slash command");
  }
}

const PART_HELP =
  "each part must be { text: string }, { media: { mimeType: string, data: Uint8Array, description?: string } } or { slashCommand: string }";

function assertPromptShape(prompt: unknown): asserts prompt is Prompt {
  if (typeof prompt === "string") return;
  if (!Array.isArray(prompt)) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `the prompt must be a string or an array of parts, got ${describe(prompt)}; ${PART_HELP}`,
    );
  }
  prompt.forEach((part: unknown, index) => {
    if (!isPart(part))
      throw new SdkError(ErrorCode.InvalidArgument, `prompt part ${index} is ${describe(part)}; ${PART_HELP}`);
  });
}

function isPart(part: unknown): boolean {
  if (typeof part !== "object" || part === null) return false;
  const p = part as Record<string, unknown>;
  if ("text" in p) return typeof p["text"] === "string";
  if ("slashCommand" in p) return typeof p["slashCommand"] === "string";
  if (!("media" in p) || typeof p["media"] !== "object" || p["media"] === null) return false;
  const m = p["media"] as Record<string, unknown>;
  return (
    typeof m["mimeType"] === "string" &&
    m["data"] instanceof Uint8Array &&
    (m["description"] === undefined || typeof m["description"] === "string")
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an object with keys ${JSON.stringify(Object.keys(value))}`;
  return `${typeof value} ${typeof value === "string" ? JSON.stringify(value) : String(value)}`;
}
