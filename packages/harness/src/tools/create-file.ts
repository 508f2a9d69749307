import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { displayPath, resolveWorkspacePath } from "../workspace-paths.js";
import { boolArg, displayArg, stringArg } from "./args.js";
import { ToolError, type BuiltinTool } from "./tool.js";

/** `create_file` (§11.1, switch `writeToFile`). Args: `{file_path, contents, overwrite?}`. */
export const createFileTool: BuiltinTool = {
  name: "create_file",
  description: "Create a text file in the workspace (parent directories are created). Fails if the file exists unless overwrite is true.",
  parameters: {
    type: "object",
    properties: {
      file_path: { type: "string", description: "File to create." },
      contents: { type: "string", description: "Full text of the file." },
      overwrite: { type: "boolean", description: "Replace an existing file." },
    },
    required: ["file_path", "contents"],
  },
  enabled: (switches) => switches?.writeToFile?.enabled === true,
  describe: (args) => ({ createFile: { filePath: displayArg(args, "file_path"), contents: displayArg(args, "contents") } }),
  async run(args, context) {
    const file = await resolveWorkspacePath(context.workspace, stringArg(args, "file_path"), { allowMissing: true });
    const contents = stringArg(args, "contents");
    const shown = displayPath(context.workspace, file);
    const existing = await stat(file).catch(() => undefined);
    if (existing?.isDirectory()) throw new ToolError(`${shown} is a directory`);
    if (existing !== undefined && !boolArg(args, "overwrite")) {
      throw new ToolError(`${shown} already exists; pass overwrite: true to replace it, or use edit_file`);
    }
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, contents, "utf8");
    const summary = `${existing === undefined ? "created" : "overwrote"} ${shown} (${Buffer.byteLength(contents)} bytes)`;
    return { action: { createFile: { filePath: file, contents } }, response: { summary } };
  },
};
