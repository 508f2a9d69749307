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

/**
 * Compiles a glob (`*`, `?`, `**`, `{a,b}`) to a RegExp. A pattern without `/` matches the file
 * name; one with `/` matches the path relative to the search directory.
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        source += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") source += "[^/]";
    else if (char === "{") { braces++; source += "(?:"; }
    else if (char === "}" && braces > 0) { braces--; source += ")"; }
    else if (char === "," && braces > 0) source += "|";
    else source += char.replace(/[.+^$()|[\]\\{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
