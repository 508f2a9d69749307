import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { errorText } from "@antigravity-ts/sdk/internal";
import { readTextFile } from "../text-file.js";
import { createWorkspaceRoots, resolveWorkspacePath, type WorkspaceRoots } from "../workspace-paths.js";
import { parseFrontMatter } from "./skill-front-matter.js";

// Skills from directories (`HarnessConfig.skills_config` = SkillsConfig{enabled, skills:
// [SkillSource{directory_path}]}, upstream localharness.proto @257f843a; and the older
// `skills_paths`, field 9). The on-disk shape is upstream's own skill
// (`skills/google-antigravity-sdk/SKILL.md`, lovicho/antigravity-sdk-python @16bed37; its example
// `examples/getting_started/agent_skills.py` @63b1ebe points `skills_paths` at that one skill
// directory): a directory with a SKILL.md whose front matter has `name` and `description`, and
// resource files beside it. A configured directory is either one skill (it has a SKILL.md) or a
// catalog of them (its subdirectories that have one).
//
// Reading follows the file tools' rules (tools/workspace-paths.ts, tools/workspace-fs.ts), with
// the skill's directory as the root: a symlink may point inside it but never out, the last
// component is opened with O_NOFOLLOW, only regular files are read (a FIFO is refused without
// blocking), each SKILL.md is at most 256 KiB of text. A catalog entry that is a symlink is not
// followed. What cannot be loaded is skipped and said in one notice each, never silently.

/** Largest SKILL.md read (bytes). */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Most skills one session loads. */
export const MAX_SKILLS = 256;
/** Most entries of a catalog directory looked at. */
export const MAX_CATALOG_ENTRIES = 4096;
/** Longest description kept (characters); longer ones are cut. */
const MAX_DESCRIPTION = 1024;
const SKILL_FILE = "SKILL.md";
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** One loaded skill. */
export interface Skill {
  readonly name: string;
  readonly description: string;
  /** SKILL.md without its front matter. */
  readonly instructions: string;
  /** The skill's directory as the only root its resources may be read from. */
  readonly root: WorkspaceRoots;
}

/** The skills of a session, by name, and what could not be loaded. */
export interface SkillCatalog {
  readonly skills: ReadonlyMap<string, Skill>;
  /** One line per directory or skill that was skipped, and why. */
  readonly notices: readonly string[];
}

/**
 * Loads the skills of `directories` (relative ones against `base`, the first workspace root), in
 * order; a name met again is skipped with a notice (the first directory wins).
 */
export async function loadSkillCatalog(directories: readonly string[], base: string): Promise<SkillCatalog> {
  const skills = new Map<string, Skill>();
  const notices: string[] = [];
  const add = (skill: Skill, from: string): void => {
    if (skills.has(skill.name))
      notices.push(`skill ${JSON.stringify(skill.name)} of ${from} skipped: a skill of that name came first`);
    else if (skills.size >= MAX_SKILLS)
      notices.push(`skill ${JSON.stringify(skill.name)} of ${from} skipped: more than ${MAX_SKILLS} skills`);
    else skills.set(skill.name, skill);
  };
  for (const directory of directories) {
    if (directory.trim() === "") continue;
    const absolute = path.resolve(base, directory);
    try {
      const root = await createWorkspaceRoots([absolute], true);
      const real = root.roots[0] ?? absolute;
      const stats = await lstat(real).catch(() => undefined);
      if (stats === undefined || !stats.isDirectory()) {
        notices.push(
          `skills directory ${absolute} skipped: ${stats === undefined ? "it does not exist" : "it is not a directory"}`,
        );
        continue;
      }
      if (await hasEntry(real, SKILL_FILE)) {
        add(await readSkill(root, path.basename(real)), absolute);
        continue;
      }
      const all = (await readdir(real, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
      if (all.length > MAX_CATALOG_ENTRIES)
        notices.push(
          `skills directory ${absolute}: only its first ${MAX_CATALOG_ENTRIES} of ${all.length} entries are looked at`,
        );
      for (const entry of all.slice(0, MAX_CATALOG_ENTRIES)) {
        if (entry.isSymbolicLink()) {
          if (await hasEntry(path.join(real, entry.name), SKILL_FILE))
            notices.push(
              `skill directory ${path.join(absolute, entry.name)} skipped: it is a symlink, which is not followed`,
            );
          continue;
        }
        if (!entry.isDirectory() || !(await hasEntry(path.join(real, entry.name), SKILL_FILE))) continue;
        const skillRoot = await createWorkspaceRoots([path.join(real, entry.name)], true);
        try {
          add(await readSkill(skillRoot, entry.name), absolute);
        } catch (error) {
          notices.push(`skill ${path.join(absolute, entry.name)} skipped: ${errorText(error)}`);
        }
      }
    } catch (error) {
      notices.push(`skills directory ${absolute} skipped: ${errorText(error)}`);
    }
  }
  return { skills, notices };
}

async function readSkill(root: WorkspaceRoots, directoryName: string): Promise<Skill> {
  const file = await resolveWorkspacePath(root, SKILL_FILE);
  const text = await readTextFile(root, file, SKILL_FILE, MAX_SKILL_FILE_BYTES);
  const { fields, body } = parseFrontMatter(text);
  const name = fields.get("name") ?? directoryName;
  if (!SKILL_NAME.test(name))
    throw new Error(`its name ${JSON.stringify(name)} is not 1-64 letters, digits, ".", "_" or "-"`);
  const description = (fields.get("description") ?? "").trim();
  if (description === "") throw new Error(`${SKILL_FILE} has no description in its front matter`);
  return {
    name,
    description: description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION)}…` : description,
    instructions: body.trim(),
    root,
  };
}

/** Whether `directory` has an entry `name` of any kind (a symlink or FIFO counts: reading it is what refuses). */
async function hasEntry(directory: string, name: string): Promise<boolean> {
  return (await lstat(path.join(directory, name)).catch(() => undefined)) !== undefined;
}
