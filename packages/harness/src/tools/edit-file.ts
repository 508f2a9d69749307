import { writeFile } from "node:fs/promises";
import { ActionEditFile_DiffLine_LineAction as LineAction } from "@antigravity-ts/sdk/wire";
import { boolArg, displayArg, pathArg, stringArg } from "./args.js";
import { readTextFile } from "./text-file.js";
import { ToolError, defineBuiltinTool, objectSchema, param } from "./tool.js";

/** One replaced region, in line numbers of the original file. */
interface DiffBlock {
  startLine: number;
  endLine: number;
  lines: { text: string; action: LineAction }[];
}

/**
 * `edit_file` (§11.1, switch `fileEdit`): exact string replacement. Args: `{file_path,
 * old_string, new_string, replace_all?}`; `old_string` must occur exactly once unless
 * `replace_all`. The step carries one diff block per replacement (§11.2).
 */
export const editFileTool = defineBuiltinTool({
  name: "edit_file",
  toolSwitch: "fileEdit",
  description: "Edit a text file in the workspace by replacing old_string with new_string. old_string must match exactly once (include surrounding lines to make it unique) unless replace_all is true.",
  parameters: objectSchema(
    {
      file_path: param("string", "File to edit."),
      old_string: param("string", "Exact text to replace."),
      new_string: param("string", "Replacement text."),
      replace_all: param("boolean", "Replace every occurrence."),
    },
    ["file_path", "old_string", "new_string"],
  ),
  describe: (args) => ({ editFile: { filePath: displayArg(args, "file_path") } }),
  async run(args, context) {
    const { absolute: file, shown } = await pathArg(args, "file_path", context.workspace);
    const oldString = stringArg(args, "old_string");
    const newString = stringArg(args, "new_string");
    if (oldString === "") throw new ToolError("old_string must not be empty; use create_file to write a whole file");
    const original = await readTextFile(file, shown);
    const offsets = occurrences(original, oldString);
    if (offsets.length === 0) throw new ToolError(`old_string was not found in ${shown}`);
    if (offsets.length > 1 && !boolArg(args, "replace_all")) {
      throw new ToolError(`old_string occurs ${offsets.length} times in ${shown}; include more context to make it unique, or pass replace_all: true`);
    }
    const blocks = offsets.map((offset) => diffBlock(original, offset, oldString, newString));
    await writeFile(file, original.split(oldString).join(newString), "utf8");
    const summary = `edited ${shown}: replaced ${offsets.length} occurrence${offsets.length === 1 ? "" : "s"}`;
    return { action: { editFile: { filePath: file, diffBlock: blocks } }, response: { summary } };
  },
});

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

function diffBlock(text: string, offset: number, oldString: string, newString: string): DiffBlock {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const endOffset = offset + oldString.length;
  const nextBreak = text.indexOf("\n", endOffset);
  const lineEnd = nextBreak === -1 ? text.length : nextBreak;
  const before = text.slice(lineStart, lineEnd).split("\n");
  const after = (text.slice(lineStart, offset) + newString + text.slice(endOffset, lineEnd)).split("\n");
  const startLine = text.slice(0, lineStart).split("\n").length;
  return {
    startLine,
    endLine: startLine + before.length - 1,
    lines: [
      ...before.map((line) => ({ text: line, action: LineAction.DELETE })),
      ...after.map((line) => ({ text: line, action: LineAction.INSERT })),
    ],
  };
}
