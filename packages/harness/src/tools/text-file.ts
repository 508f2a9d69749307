import { readFile, stat } from "node:fs/promises";
import { ToolError } from "./tool.js";

/** Largest file the file tools read (bytes). */
export const MAX_TEXT_FILE_BYTES = 8 * 1024 * 1024;

/** Reads a UTF-8 text file, refusing directories, huge files and binary content (NUL bytes). */
export async function readTextFile(absolute: string, shownAs: string): Promise<string> {
  const info = await stat(absolute);
  if (info.isDirectory()) throw new ToolError(`${shownAs} is a directory; use list_directory`);
  if (info.size > MAX_TEXT_FILE_BYTES) throw new ToolError(`${shownAs} is ${info.size} bytes, more than the ${MAX_TEXT_FILE_BYTES}-byte limit of the file tools`);
  const bytes = await readFile(absolute);
  if (bytes.subarray(0, 8192).includes(0)) throw new ToolError(`${shownAs} looks like a binary file`);
  return bytes.toString("utf8");
}

/** Cuts `text` to `max` characters, saying so. */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, max)}\n… [truncated: ${text.length - max} more characters]`, truncated: true };
}
