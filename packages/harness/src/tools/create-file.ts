import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { boolArg, displayArg, pathArg, stringArg } from "./args.js";
import { ToolError, defineBuiltinTool, objectSchema, param } from "./tool.js";

/** `create_file` (§11.1, switch `writeToFile`). Args: `{file_path, contents, overwrite?}`. */
export const createFileTool = defineBuiltinTool({
  name: "create_file",
  toolSwitch: "writeToFile",
  description: "Create a text file in the workspace (parent directories are created). Fails if the file exists unless overwrite is true.",
  parameters: objectSchema(
    { file_path: param("string", "File to create."), contents: param("string", "Full text of the file."), overwrite: param("boolean", "Replace an existing file.") },
    ["file_path", "contents"],
  ),
  describe: (args) => ({ createFile: { filePath: displayArg(args, "file_path"), contents: displayArg(args, "contents") } }),
  async run(args, context) {
    const file = await pathArg(args, "file_path", context.workspace, { allowMissing: true });
    const contents = stringArg(args, "contents");
    const existing = await stat(file.absolute).catch(() => undefined);
    if (existing?.isDirectory()) throw new ToolError(`${file.shown} is a directory`);
    if (existing !== undefined && !boolArg(args, "overwrite")) {
      throw new ToolError(`${file.shown} already exists; pass overwrite: true to replace it, or use edit_file`);
    }
    await mkdir(path.dirname(file.absolute), { recursive: true });
    await writeFile(file.absolute, contents, "utf8");
    const summary = `${existing === undefined ? "created" : "overwrote"} ${file.shown} (${Buffer.byteLength(contents)} bytes)`;
    return { action: { createFile: { filePath: file.absolute, contents } }, response: { summary } };
  },
});
