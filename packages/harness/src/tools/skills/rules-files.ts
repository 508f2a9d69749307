import path from "node:path";
import { errorText } from "@antigravity-ts/sdk/internal";
import { readTextFile } from "../text-file.js";
import { createWorkspaceRoots, resolveWorkspacePath, type WorkspaceRoots } from "../workspace-paths.js";

// Rules files (`HarnessConfig.rules_config` = RulesConfig{filenames}, upstream localharness.proto
// @257f843a, which says no more than the field's name): each file's text joins the system
// instructions. A relative name is looked for in every workspace root, in order (a root without
// it is passed over); an absolute one is read where it is. Either is read with the file tools'
// rules (tools/workspace-fs.ts): confined to its root, no symlink as the last component, regular
// files only (a FIFO is refused without blocking), at most 64 KiB of text each and 256 KiB in
// all. A name found nowhere, or refused, is said in one notice; the session goes on without it.

/** Largest rules file read (bytes). */
export const MAX_RULES_FILE_BYTES = 64 * 1024;
/** Most rules files a session names. */
export const MAX_RULES_FILES = 64;
/** Most rules text of a session (characters). */
export const MAX_RULES_TOTAL = 256 * 1024;

/** One rules file read. */
export interface RulesFile {
  /** Where it was read (absolute). */
  readonly path: string;
  readonly text: string;
}

/** The rules files of a session and what could not be read. */
export interface LoadedRules {
  readonly files: readonly RulesFile[];
  readonly notices: readonly string[];
}

/** Reads `filenames` against the workspace roots. */
export async function loadRulesFiles(filenames: readonly string[], workspace: WorkspaceRoots): Promise<LoadedRules> {
  const files: RulesFile[] = [];
  const notices: string[] = [];
  let total = 0;
  if (filenames.length > MAX_RULES_FILES)
    notices.push(`only the first ${MAX_RULES_FILES} of ${filenames.length} rules files are read`);
  for (const name of filenames.slice(0, MAX_RULES_FILES)) {
    if (name.trim() === "") continue;
    const candidates = path.isAbsolute(name)
      ? [await createWorkspaceRoots([path.dirname(name)], true)]
      : workspace.roots.map((root) => ({ roots: [root], containment: true }));
    const found: RulesFile[] = [];
    const refused: string[] = [];
    for (const root of candidates) {
      try {
        const absolute = await resolveWorkspacePath(root, path.isAbsolute(name) ? path.basename(name) : name);
        found.push({ path: absolute, text: (await readTextFile(root, absolute, name, MAX_RULES_FILE_BYTES)).trim() });
      } catch (error) {
        const why = errorText(error);
        if (!/does not exist/.test(why)) refused.push(why);
      }
    }
    for (const why of refused) notices.push(`rules file ${JSON.stringify(name)} skipped: ${why}`);
    if (found.length === 0 && refused.length === 0)
      notices.push(
        `rules file ${JSON.stringify(name)} skipped: not found in ${candidates.flatMap((c) => c.roots).join(", ")}`,
      );
    for (const file of found) {
      if (total + file.text.length > MAX_RULES_TOTAL) {
        notices.push(`rules file ${file.path} skipped: the rules would pass ${MAX_RULES_TOTAL} characters`);
        continue;
      }
      total += file.text.length;
      files.push(file);
    }
  }
  return { files, notices };
}
