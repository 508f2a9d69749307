import { displayPath, resolveWorkspacePath } from "../workspace-paths.js";
import { displayArg, optionalIntArg, stringArg } from "./args.js";
import { capText, readTextFile } from "./text-file.js";
import { ToolError, type BuiltinTool } from "./tool.js";

const DEFAULT_MAX_LINES = 2000;
const MAX_CHARS = 64 * 1024;

/** `view_file` (§11.1, switch `viewFile`). Args: `{file_path, start_line?, end_line?}` (1-based, inclusive). */
export const viewFileTool: BuiltinTool = {
  name: "view_file",
  description: `Read a text file in the workspace, optionally a 1-based inclusive line range. Without a range at most ${DEFAULT_MAX_LINES} lines are shown.`,
  parameters: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "File to read." },
      start_line: { type: "integer", description: "First line (1-based)." },
      end_line: { type: "integer", description: "Last line (inclusive)." },
    },
    required: ["file_path"],
  },
  enabled: (switches) => switches?.viewFile?.enabled === true,
  describe(args) {
    const start = typeof args["start_line"] === "number" ? { startLine: args["start_line"] } : {};
    const end = typeof args["end_line"] === "number" ? { endLine: args["end_line"] } : {};
    return { viewFile: { filePath: displayArg(args, "file_path"), ...start, ...end } };
  },
  async run(args, context) {
    const file = await resolveWorkspacePath(context.workspace, stringArg(args, "file_path"));
    const shown = displayPath(context.workspace, file);
    const lines = (await readTextFile(file, shown)).split("\n");
    const total = lines.length;
    const start = Math.max(1, optionalIntArg(args, "start_line") ?? 1);
    const end = Math.min(total, optionalIntArg(args, "end_line") ?? start + DEFAULT_MAX_LINES - 1);
    if (start > total) throw new ToolError(`start_line ${start} is past the end of ${shown} (${total} lines)`);
    if (end < start) throw new ToolError(`end_line ${end} is before start_line ${start}`);
    const { text, truncated } = capText(lines.slice(start - 1, end).join("\n"), MAX_CHARS);
    return {
      action: { viewFile: { filePath: file, startLine: start, endLine: end } },
      response: { file_path: shown, start_line: start, end_line: end, total_lines: total, content: text, ...(truncated ? { truncated } : {}) },
    };
  },
};
