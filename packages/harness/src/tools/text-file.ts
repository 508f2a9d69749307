import { openWorkspaceFile, readAtMost, replaceContents } from "./workspace-fs.js";
import type { WorkspaceRoots } from "./workspace-paths.js";
import { ToolError } from "./tool.js";

/** Largest file the file tools read (bytes). */
export const MAX_TEXT_FILE_BYTES = 8 * 1024 * 1024;

/** Whether `bytes` look binary (a NUL byte in the first 8 KiB), as search_directory skips them. */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

/**
 * Reads a UTF-8 text file of the workspace, refusing directories, special files, symlinks that
 * changed after the path check, huge files and binary content (workspace-fs.ts checks what was
 * opened). `absolute` comes from `pathArg`; `maxBytes` is the limit (skills and rules files use a smaller one).
 */
export async function readTextFile(
  workspace: WorkspaceRoots,
  absolute: string,
  shownAs: string,
  maxBytes = MAX_TEXT_FILE_BYTES,
): Promise<string> {
  const file = await openWorkspaceFile(workspace, absolute, shownAs, { access: "read" });
  try {
    checkSize(file.stats.size, shownAs, maxBytes);
    return decodeText(await readAtMost(file.handle, maxBytes), shownAs, maxBytes);
  } finally {
    await file.handle.close();
  }
}

/**
 * Edits a text file in place: opens it once for reading and writing (never through a symlink),
 * reads it, asks `edit` for the new `content` and writes that through the same descriptor, so
 * the file read is the file written. Nothing is written when `edit` throws. Returns `edit`'s
 * result.
 */
export async function editTextFile<T extends { content: string }>(
  workspace: WorkspaceRoots,
  absolute: string,
  shownAs: string,
  edit: (original: string) => T | Promise<T>,
): Promise<T> {
  const file = await openWorkspaceFile(workspace, absolute, shownAs, { access: "read-write" });
  try {
    checkSize(file.stats.size, shownAs);
    const result = await edit(decodeText(await readAtMost(file.handle, MAX_TEXT_FILE_BYTES), shownAs));
    await replaceContents(file.handle, Buffer.from(result.content, "utf8"));
    return result;
  } finally {
    await file.handle.close();
  }
}

/** Cuts `text` to `max` characters, saying so. */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, max)}\n… [truncated: ${text.length - max} more characters]`, truncated: true };
}

function checkSize(size: number, shownAs: string, maxBytes = MAX_TEXT_FILE_BYTES): void {
  if (size > maxBytes) throw new ToolError(`${shownAs} is ${size} bytes, more than the ${maxBytes}-byte limit`);
}

function decodeText(bytes: Buffer, shownAs: string, maxBytes = MAX_TEXT_FILE_BYTES): string {
  if (bytes.length > maxBytes) throw new ToolError(`${shownAs} grew past the ${maxBytes}-byte limit while it was read`);
  if (looksBinary(bytes)) throw new ToolError(`${shownAs} looks like a binary file`);
  return bytes.toString("utf8");
}
