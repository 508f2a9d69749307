import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { displayArg, pathArg } from "./args.js";
import { defineBuiltinTool, objectSchema, param } from "./tool.js";

const MAX_ENTRIES = 1000;

/** `list_directory` (§11.1, switch `listDir`): entries of one directory. Args: `{directory_path}`. */
export const listDirectoryTool = defineBuiltinTool({
  name: "list_directory",
  toolSwitch: "listDir",
  description: "List the files and subdirectories of a directory in the workspace. Paths are relative to the workspace root unless absolute.",
  parameters: objectSchema({ directory_path: param("string", "Directory to list, e.g. \".\" for the workspace root.") }, ["directory_path"]),
  describe: (args) => ({ listDirectory: { directoryPath: displayArg(args, "directory_path") } }),
  async run(args, context) {
    const directory = await pathArg(args, "directory_path", context.workspace, { fallback: "." });
    const entries = await readdir(directory.absolute, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      throw new Error(error.code === "ENOTDIR" ? `${displayArg(args, "directory_path")} is not a directory` : error.message);
    });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const results: { name: string; isDirectory: boolean; size?: number }[] = [];
    for (const entry of entries.slice(0, MAX_ENTRIES)) {
      const info = await stat(path.join(directory.absolute, entry.name)).catch(() => undefined);
      const isDirectory = info?.isDirectory() ?? entry.isDirectory();
      results.push(isDirectory ? { name: entry.name, isDirectory } : { name: entry.name, isDirectory, size: info?.size ?? 0 });
    }
    return {
      action: {
        listDirectory: {
          directoryPath: directory.absolute,
          // ActionListDirectory.Result.info is a oneof of isDirectory | fileSize (§19).
          results: results.map((r) => ({ name: r.name, info: r.isDirectory ? { case: "isDirectory", value: true } : { case: "fileSize", value: BigInt(r.size ?? 0) } })),
        },
      },
      response: {
        directory: directory.shown,
        // Upstream's POST_TOOL hook parser reads ListDirectoryResult{entries|results: [{name, is_directory, file_size}]}
        // (connections/local/types.py, event_processor.py `_extract_tool_result`), the proto names of the step's results.
        results: results.map((r) => (r.isDirectory ? { name: r.name, type: "directory", is_directory: true } : { name: r.name, type: "file", is_directory: false, file_size: r.size ?? 0 })),
        count: entries.length,
        ...(entries.length > MAX_ENTRIES ? { truncated: true } : {}),
      },
    };
  },
});
