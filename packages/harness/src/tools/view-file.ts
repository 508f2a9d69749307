import { displayArg, optionalIntArg, pathArg } from "./args.js";
import { capText, readTextFile } from "./text-file.js";
import { ToolError, defineBuiltinTool, objectSchema, param } from "./tool.js";

const DEFAULT_MAX_LINES = 2000;
const MAX_CHARS = 64 * 1024;

/** `view_file` (§11.1, switch `viewFile`). Args: `{file_path, start_line?, end_line?}` (1-based, inclusive). */
export const viewFileTool = defineBuiltinTool({
  name: "view_file",
  toolSwitch: "viewFile",
  description: `Read a text file in the workspace, optionally a 1-based inclusive line range. Without a range at most ${DEFAULT_MAX_LINES} lines are shown.`,
  parameters: objectSchema(
    {
      file_path: param("string", "File to read."),
      start_line: param("integer", "First line (1-based)."),
      end_line: param("integer", "Last line (inclusive)."),
    },
    ["file_path"],
  ),
  describe(args) {
    const start = typeof args["start_line"] === "number" ? { startLine: args["start_line"] } : {};
    const end = typeof args["end_line"] === "number" ? { endLine: args["end_line"] } : {};
    return { viewFile: { filePath: displayArg(args, "file_path"), ...start, ...end } };
  },
  async run(args, context) {
    const file = await pathArg(args, "file_path", context.workspace);
    const lines = (await readTextFile(context.workspace, file.absolute, file.shown)).split("\n");
    const total = lines.length;
    const start = Math.max(1, optionalIntArg(args, "start_line") ?? 1);
    const end = Math.min(total, optionalIntArg(args, "end_line") ?? start + DEFAULT_MAX_LINES - 1);
    if (start > total) throw new ToolError(`start_line ${start} is past the end of ${file.shown} (${total} lines)`);
    if (end < start) throw new ToolError(`end_line ${end} is before start_line ${start}`);
    const { text, truncated } = capText(lines.slice(start - 1, end).join("\n"), MAX_CHARS);
    return {
      action: { viewFile: { filePath: file.absolute, startLine: start, endLine: end } },
      response: {
        file_path: file.shown,
        start_line: start,
        end_line: end,
        total_lines: total,
        content: text,
        ...(truncated ? { truncated } : {}),
      },
    };
  },
});
