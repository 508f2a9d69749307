import type { Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { pinDirectory } from "./workspace-fs.js";
import { displayArg, pathArg } from "./args.js";
import { defineBuiltinTool, objectSchema, param } from "./tool.js";

const MAX_ENTRIES = 1000;

/** `list_directory` (§11.1, switch `listDir`): entries of one directory. Args: `{directory_path}`. */
export const listDirectoryTool = defineBuiltinTool({
  name: "list_directory",
  toolSwitch: "listDir",
  description:
    "List the files and subdirectories of a directory in the workspace. Paths are relative to the workspace root unless absolute.",
  parameters: objectSchema({ directory_path: param("string", 'Directory to list, e.g. "." for the workspace root.') }, [
    "directory_path",
  ]),
  describe: (args) => ({ listDirectory: { directoryPath: displayArg(args, "directory_path") } }),
  async run(args, context) {
    const directory = await pathArg(args, "directory_path", context.workspace, { fallback: "." });
    // Listed through a held descriptor (a swapped path cannot list somewhere else), and each entry
    // by its own lstat: a symlink is reported as a link, never as its target (issue 8 item 11).
    const pinned = await pinDirectory(context.workspace, directory.absolute, directory.shown);
    const results: { name: string; type: EntryType; size: number }[] = [];
    let count: number;
    try {
      const entries = await readdir(pinned.via, { withFileTypes: true });
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      count = entries.length;
      for (const entry of entries.slice(0, MAX_ENTRIES)) {
        const info = await lstat(path.join(pinned.via, entry.name)).catch(() => undefined);
        if (info !== undefined)
          results.push({ name: entry.name, type: entryType(info), size: info.isDirectory() ? 0 : info.size });
      }
    } finally {
      await pinned.close();
    }
    return {
      action: {
        listDirectory: {
          directoryPath: directory.absolute,
          // ActionListDirectory.Result.info is a oneof of isDirectory | fileSize (§19).
          results: results.map((r) => ({
            name: r.name,
            info:
              r.type === "directory"
                ? { case: "isDirectory", value: true }
                : { case: "fileSize", value: BigInt(r.size) },
          })),
        },
      },
      response: {
        directory: directory.shown,
        // Upstream's POST_TOOL hook parser reads ListDirectoryResult{entries|results: [{name, is_directory, file_size}]}
        // (connections/local/types.py, event_processor.py `_extract_tool_result`), the proto names of the step's results.
        results: results.map((r) =>
          r.type === "directory"
            ? { name: r.name, type: r.type, is_directory: true }
            : { name: r.name, type: r.type, is_directory: false, file_size: r.size },
        ),
        count,
        ...(count > MAX_ENTRIES ? { truncated: true } : {}),
      },
    };
  },
});

/** What the model is told an entry is; a symlink stays a symlink (its size is the link's own). */
type EntryType = "directory" | "file" | "symlink" | "fifo" | "socket" | "device";

function entryType(info: Stats): EntryType {
  if (info.isDirectory()) return "directory";
  if (info.isSymbolicLink()) return "symlink";
  if (info.isFIFO()) return "fifo";
  if (info.isSocket()) return "socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "device";
  return "file";
}
