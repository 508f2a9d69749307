import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { RulesConfigSchema, SkillsConfigSchema } from "../wire/index.js";

/**
 * Skills (`HarnessConfig.skills_config` = SkillsConfig{enabled, skills: [SkillSource{directory_path}]},
 * upstream localharness.proto @257f843a): directories of skills, each a directory with a `SKILL.md`
 * (front matter `name`, `description`) or a catalog of such directories. `enabled: false` sends the
 * sources but turns skills off (upstream's default is on). Not sent to a 0.1.14 harness: `start()`
 * fails with `Unsupported` there (`wireEra`).
 */
export interface SkillsOptions {
  directories: readonly string[];
  /** Default true. */
  enabled?: boolean;
}

/** `skills_config` of `skills`, or undefined when none is asked for. */
export function skillsConfigOf(
  skills: SkillsOptions | undefined,
): MessageInitShape<typeof SkillsConfigSchema> | undefined {
  if (skills === undefined) return undefined;
  if (typeof skills !== "object" || skills === null || !Array.isArray(skills.directories))
    invalid('skills must be { directories: ["path", …], enabled?: boolean }');
  if (skills.enabled !== undefined && typeof skills.enabled !== "boolean") invalid("skills.enabled must be a boolean");
  const directories = nonEmptyStrings(skills.directories, "skills.directories");
  return {
    enabled: skills.enabled ?? true,
    skills: directories.map((directory) => ({ source: { case: "directoryPath" as const, value: directory } })),
  };
}

/**
 * `rules_config` (RulesConfig{filenames}, upstream localharness.proto @257f843a) of `rules`: files
 * whose text the harness reads into the system instructions. Not sent to a 0.1.14 harness.
 */
export function rulesConfigOf(
  rules: readonly string[] | undefined,
): MessageInitShape<typeof RulesConfigSchema> | undefined {
  if (rules === undefined) return undefined;
  return { filenames: nonEmptyStrings(rules, "rules") };
}

function nonEmptyStrings(values: unknown, option: string): string[] {
  if (!Array.isArray(values)) invalid(`${option} must be an array of paths`);
  for (const value of values as unknown[]) {
    if (typeof value !== "string" || value.trim() === "")
      invalid(`${option} must hold non-empty paths, got ${JSON.stringify(value)}`);
  }
  return [...(values as string[])];
}

function invalid(message: string): never {
  throw new SdkError(ErrorCode.InvalidArgument, message);
}
