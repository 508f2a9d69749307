import { ActionEditFile_DiffLine_LineAction as LineAction } from "@antigravity-ts/sdk/internal";
import { boolArg, stringArg } from "./args.js";
import { MAX_TEXT_FILE_BYTES } from "./text-file.js";
import { ToolError } from "./tool.js";

/** A diff shown in an `edit_file` step carries at most this many lines (the file gets every replacement). */
export const MAX_DIFF_LINES = 2000;

/** One replaced region, in line numbers of the original file (§11.2 `ActionEditFile.DiffBlock`). */
export interface DiffBlock {
  startLine: number;
  endLine: number;
  lines: { text: string; action: LineAction }[];
}

/** What an `edit_file` call does to a text. */
export interface EditPlan {
  /** Occurrences replaced. */
  count: number;
  /** The new text. */
  content: string;
  /** One block per group of occurrences sharing a line, in order; cut at {@link MAX_DIFF_LINES}. */
  blocks: DiffBlock[];
  /** False when the blocks stop before the last replacement. */
  diffComplete: boolean;
}

/** Arguments of {@link planEdit}. */
export interface EditRequest {
  oldString: string;
  newString: string;
  replaceAll: boolean;
  /** The file as shown to the model, for messages. */
  shown: string;
}

/** Reads `edit_file`'s arguments; refuses an empty `old_string` before the file is read. */
export function editRequest(args: Record<string, unknown>, shown: string): EditRequest {
  const request = {
    oldString: stringArg(args, "old_string"),
    newString: stringArg(args, "new_string"),
    replaceAll: boolArg(args, "replace_all"),
    shown,
  };
  if (request.oldString === "") throw emptyOldString();
  return request;
}

/**
 * Plans an exact-string edit in time linear in the text and the number of occurrences: one scan
 * finds the non-overlapping occurrences (left to right, as `split` does), one pass builds the new
 * text and the diff blocks. `old_string` must occur exactly once unless `replaceAll`. Throws a
 * ToolError that says what to do when it is missing, ambiguous, or when the result would exceed
 * the file tools' size limit.
 *
 * @example
 * planEdit("a x a", { oldString: "a", newString: "b", replaceAll: true, shown: "f.txt" }).content; // "b x b"
 */
export function planEdit(text: string, request: EditRequest): EditPlan {
  const { oldString, newString, shown } = request;
  if (oldString === "") throw emptyOldString();
  const offsets = occurrences(text, oldString);
  if (offsets.length === 0) throw new ToolError(`old_string was not found in ${shown}`);
  if (offsets.length > 1 && !request.replaceAll) {
    throw new ToolError(
      `old_string occurs ${offsets.length} times in ${shown}; include more context to make it unique, or pass replace_all: true`,
    );
  }
  const length = text.length + offsets.length * (newString.length - oldString.length);
  if (length > MAX_TEXT_FILE_BYTES) throw tooLarge(shown, length);
  const content = replaceAt(text, offsets, oldString.length, newString);
  const bytes = Buffer.byteLength(content);
  if (bytes > MAX_TEXT_FILE_BYTES) throw tooLarge(shown, bytes);
  const { blocks, complete } = diffBlocks(text, offsets, oldString.length, newString);
  return { count: offsets.length, content, blocks, diffComplete: complete };
}

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
export function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

function replaceAt(text: string, offsets: readonly number[], oldLength: number, replacement: string): string {
  const parts: string[] = [];
  let from = 0;
  for (const offset of offsets) {
    parts.push(text.slice(from, offset), replacement);
    from = offset + oldLength;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

/**
 * The diff blocks of the replacements at `offsets`: occurrences whose lines overlap share a block
 * (so each block's new lines show every replacement in it). Line numbers are counted while
 * scanning forward, never by rescanning from the start: linear in the text.
 */
function diffBlocks(
  text: string,
  offsets: readonly number[],
  oldLength: number,
  replacement: string,
): { blocks: DiffBlock[]; complete: boolean } {
  const blocks: DiffBlock[] = [];
  let shownLines = 0;
  let line = 1; // line number at `cursor`
  let cursor = 0;
  let lineStart = 0; // start of the line holding `cursor`
  let i = 0;
  while (i < offsets.length) {
    const first = offsets[i] as number;
    for (let nl = text.indexOf("\n", cursor); nl !== -1 && nl < first; nl = text.indexOf("\n", nl + 1)) {
      line++;
      lineStart = nl + 1;
    }
    // Extend the group while the next occurrence starts on a line the group already covers.
    let end = first + oldLength;
    let lineEnd = lineEndAt(text, end);
    let last = i;
    while (last + 1 < offsets.length && (offsets[last + 1] as number) <= lineEnd) {
      last++;
      end = (offsets[last] as number) + oldLength;
      if (end > lineEnd) lineEnd = lineEndAt(text, end);
    }
    const before = text.slice(lineStart, lineEnd).split("\n");
    const group = offsets.slice(i, last + 1).map((offset) => offset - lineStart);
    const after = replaceAt(text.slice(lineStart, lineEnd), group, oldLength, replacement).split("\n");
    if (shownLines + before.length + after.length > MAX_DIFF_LINES && blocks.length > 0)
      return { blocks, complete: false };
    shownLines += before.length + after.length;
    blocks.push({
      startLine: line,
      endLine: line + before.length - 1,
      lines: [
        ...before.map((text) => ({ text, action: LineAction.DELETE })),
        ...after.map((text) => ({ text, action: LineAction.INSERT })),
      ],
    });
    line += before.length - 1;
    cursor = lineEnd;
    lineStart = lineEnd - (before.at(-1) as string).length;
    i = last + 1;
  }
  return { blocks, complete: true };
}

/** Offset of the first line break at or after `offset`, or the text's end. */
function lineEndAt(text: string, offset: number): number {
  const at = text.indexOf("\n", offset);
  return at === -1 ? text.length : at;
}

function emptyOldString(): ToolError {
  return new ToolError("old_string must not be empty; use create_file to write a whole file");
}

function tooLarge(shown: string, size: number): ToolError {
  return new ToolError(
    `the edit would make ${shown} ${size} bytes, more than the ${MAX_TEXT_FILE_BYTES}-byte limit of the file tools; make a smaller edit`,
  );
}
