import { readdir } from "node:fs/promises";
import path from "node:path";
import { openExactDirectory, readRegularFileIn } from "./workspace-fs.js";

/** Directories no search descends into. */
const SKIPPED_DIRECTORIES = new Set([".git", "node_modules", ".hg", ".svn"]);

/** One file or directory met by {@link walkFiles}. */
export interface WalkEntry {
  absolute: string;
  /** Relative to the walk root, `/`-separated. */
  relative: string;
  isDirectory: boolean;
  /**
   * Reads this file through the walk's held directory (at most `maxBytes + 1` bytes); undefined
   * when it is no longer a regular file. Only valid until the walk moves on.
   */
  readFile(maxBytes: number): Promise<Buffer | undefined>;
}

/**
 * Depth-first walk under `root` (a real path) in name order. Symlinks are not followed (a link
 * cannot lead a search out of the workspace), special files (FIFOs, sockets, devices) are not
 * yielded, VCS and `node_modules` directories are skipped, and at most `maxEntries` entries are
 * visited. Each directory is opened by descriptor and must still be exactly where the walk found
 * it (workspace-fs.ts): one swapped for a symlink meanwhile is skipped, not followed.
 */
export async function* walkFiles(root: string, signal: AbortSignal, maxEntries = 50_000): AsyncGenerator<WalkEntry> {
  let visited = 0;
  const stack: string[] = [""];
  while (stack.length > 0) {
    signal.throwIfAborted();
    const relativeDir = stack.pop() as string;
    const directory = await openExactDirectory(path.join(root, relativeDir));
    if (directory === undefined) continue;
    try {
      const entries = await readdir(directory.via, { withFileTypes: true }).catch(() => []);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const subdirectories: string[] = [];
      for (const entry of entries) {
        if (++visited > maxEntries) return;
        const relative = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`;
        const isDirectory = entry.isDirectory();
        if (isDirectory && SKIPPED_DIRECTORIES.has(entry.name)) continue;
        if (!isDirectory && !entry.isFile()) continue;
        yield {
          absolute: path.join(root, relative),
          relative,
          isDirectory,
          readFile: (maxBytes) => readRegularFileIn(directory, entry.name, maxBytes),
        };
        if (isDirectory) subdirectories.push(relative);
      }
      stack.push(...subdirectories.reverse());
    } finally {
      await directory.close();
    }
  }
}
