import { openWorkspaceFile, replaceContents } from "./workspace-fs.js";
import { boolArg, displayArg, pathArg, stringArg } from "./args.js";
import { defineBuiltinTool, objectSchema, param } from "./tool.js";

/** `create_file` (§11.1, switch `writeToFile`). Args: `{file_path, contents, overwrite?}`. */
export const createFileTool = defineBuiltinTool({
  name: "create_file",
  toolSwitch: "writeToFile",
  description:
    "Create a text file in the workspace (parent directories are created). Fails if the file exists unless overwrite is true.",
  parameters: objectSchema(
    {
      file_path: param("string", "File to create."),
      contents: param("string", "Full text of the file."),
      overwrite: param("boolean", "Replace an existing file."),
    },
    ["file_path", "contents"],
  ),
  describe: (args) => ({
    createFile: { filePath: displayArg(args, "file_path"), contents: displayArg(args, "contents") },
  }),
  async run(args, context) {
    const file = await pathArg(args, "file_path", context.workspace, { allowMissing: true, writeTarget: true });
    const contents = stringArg(args, "contents");
    // Parents are made and the file created through pinned directories; never through a symlink.
    const create = boolArg(args, "overwrite") ? "allowed" : "exclusive";
    const opened = await openWorkspaceFile(context.workspace, file.absolute, file.shown, {
      access: "write",
      create,
      makeParents: true,
    });
    try {
      await replaceContents(opened.handle, Buffer.from(contents, "utf8"));
    } finally {
      await opened.handle.close();
    }
    const summary = `${opened.created ? "created" : "overwrote"} ${file.shown} (${Buffer.byteLength(contents)} bytes)`;
    return { action: { createFile: { filePath: file.absolute, contents } }, response: { summary } };
  },
});
