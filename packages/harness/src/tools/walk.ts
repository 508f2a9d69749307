import { readdir } from "node:fs/promises";
import path from "node:path";

/** Directories no search descends into. */
const SKIPPED_DIRECTORIES = new Set([".git", "node_modules", ".hg", ".svn"]);

/** One file or directory met by {@link walkFiles}. */
export interface WalkEntry {
  absolute: string;
  /** Relative to the walk root, `/`-separated. */
  relative: string;
  isDirectory: boolean;
}

/**
 * Depth-first walk under `root` in name order. Symlinks are not followed (a link cannot lead a
 * search out of the workspace), VCS and `node_modules` directories are skipped, and at most
 * `maxEntries` entries are visited.
 */
export async function* walkFiles(root: string, signal: AbortSignal, maxEntries = 50_000): AsyncGenerator<WalkEntry> {
  let visited = 0;
  const stack: string[] = [""];
  while (stack.length > 0) {
    signal.throwIfAborted();
    const relativeDir = stack.pop() as string;
    const entries = await readdir(path.join(root, relativeDir), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      if (++visited > maxEntries) return;
      const relative = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`;
      const isDirectory = entry.isDirectory();
      if (isDirectory && SKIPPED_DIRECTORIES.has(entry.name)) continue;
      if (!isDirectory && !entry.isFile()) continue;
      yield { absolute: path.join(root, relative), relative, isDirectory };
      if (isDirectory) subdirectories.push(relative);
    }
    stack.push(...subdirectories.reverse());
  }
}
