import { ActionSkillLookup_Operation } from "@antigravity-ts/sdk/internal";
import { displayPath, resolveWorkspacePath } from "./workspace-paths.js";
import { stringArg } from "./args.js";
import { capText, readTextFile } from "./text-file.js";
import { ToolError, objectSchema, param, type BuiltinTool } from "./tool.js";
import { walkFiles } from "./walk.js";
import type { Skill, SkillCatalog } from "./skills/skill-catalog.js";

/** Largest resource text returned (characters), as view_file. */
const MAX_RESOURCE_CHARS = 64 * 1024;
/** Most resource files listed per skill. */
const MAX_RESOURCES = 500;
/** Most skills one lookup returns. */
const MAX_LOOKUP = 16;

const OPERATIONS = {
  list_skills: ActionSkillLookup_Operation.LIST_SKILLS,
  lookup_skills: ActionSkillLookup_Operation.LOOKUP_SKILLS,
  get_skill_resources: ActionSkillLookup_Operation.GET_SKILL_RESOURCES,
} as const;
type Operation = keyof typeof OPERATIONS;

/**
 * `skill_lookup`: the model's way into the session's skills (skills/skill-catalog.ts). Its step
 * carries `StepUpdate.skill_lookup` = ActionSkillLookup{operation, requested_skill_names,
 * resolved_skill_names, error_message} (upstream localharness.proto @257f843a), whose three
 * operations are the tool's: `list_skills` (names and descriptions), `lookup_skills` (each named
 * skill's instructions; unknown names are reported, a call resolving none fails) and
 * `get_skill_resources` (the files of one skill, or with `resource_path` one file's text, read
 * confined to the skill's directory as the file tools read the workspace). Offered when the
 * session has at least one skill and `skills_config.enabled` is not false. The tool's name and
 * argument names are ours: upstream's harness does not publish them.
 */
export function createSkillLookupTool(catalog: SkillCatalog): BuiltinTool {
  return {
    name: "skill_lookup",
    description:
      "Use the skills listed in the system instructions: list_skills lists them, lookup_skills returns the instructions of the named skills (read them before doing the task they cover), get_skill_resources lists one skill's files or, with resource_path, returns one file's text.",
    parameters: objectSchema(
      {
        operation: { type: "string", enum: Object.keys(OPERATIONS), description: "What to do." },
        skill_names: {
          type: "array",
          items: { type: "string" },
          description: "Skills to look up (lookup_skills), or the one skill whose resources to get.",
        },
        resource_path: param("string", "get_skill_resources: a file of the skill, relative to its directory."),
      },
      ["operation"],
    ),
    enabled: () => catalog.skills.size > 0,
    describe: (args) => ({
      skillLookup: {
        operation: OPERATIONS[args["operation"] as Operation] ?? ActionSkillLookup_Operation.UNSPECIFIED,
        requestedSkillNames: namesOf(args, false),
      },
    }),
    async run(args, context) {
      const operation = stringArg(args, "operation");
      if (!(operation in OPERATIONS))
        throw new ToolError(
          `operation must be one of ${Object.keys(OPERATIONS).join(", ")}, got ${JSON.stringify(operation)}`,
        );
      const requested = namesOf(args, true);
      const action = (resolved: readonly string[], errorMessage?: string) => ({
        skillLookup: {
          operation: OPERATIONS[operation as Operation],
          requestedSkillNames: requested,
          resolvedSkillNames: [...resolved],
          ...(errorMessage === undefined ? {} : { errorMessage }),
        },
      });
      if (operation === "list_skills") {
        const skills = [...catalog.skills.values()];
        return {
          action: action(skills.map((skill) => skill.name)),
          response: { skills: skills.map((skill) => ({ name: skill.name, description: skill.description })) },
        };
      }
      if (requested.length === 0) throw new ToolError(`${operation} needs skill_names`);
      const found = requested.filter((name) => catalog.skills.has(name));
      const unknown = requested.filter((name) => !catalog.skills.has(name));
      const known = `known skills: ${[...catalog.skills.keys()].join(", ")}`;
      if (found.length === 0) throw new ToolError(`no skill named ${unknown.join(", ")}; ${known}`);
      const missing = unknown.length === 0 ? undefined : `unknown skill(s): ${unknown.join(", ")}; ${known}`;
      if (operation === "lookup_skills") {
        if (found.length > MAX_LOOKUP) throw new ToolError(`look up at most ${MAX_LOOKUP} skills at once`);
        const skills = found.map((name) => catalog.skills.get(name) as Skill);
        return {
          action: action(found, missing),
          response: {
            skills: skills.map((skill) => ({
              name: skill.name,
              description: skill.description,
              instructions: skill.instructions,
            })),
            ...(missing === undefined ? {} : { error: missing }),
          },
        };
      }
      if (found.length !== 1 || unknown.length > 0)
        throw new ToolError("get_skill_resources takes exactly one skill name (of a known skill)");
      const skill = catalog.skills.get(found[0] as string) as Skill;
      const resourcePath = args["resource_path"];
      if (resourcePath === undefined || resourcePath === null || resourcePath === "") {
        const resources: string[] = [];
        for await (const entry of walkFiles(skill.root.roots[0] ?? "", context.signal, MAX_RESOURCES * 4)) {
          if (!entry.isDirectory) resources.push(entry.relative);
          if (resources.length >= MAX_RESOURCES) break;
        }
        return { action: action(found), response: { skill: skill.name, resources } };
      }
      const relative = stringArg(args, "resource_path");
      const absolute = await resolveWorkspacePath(skill.root, relative);
      const shown = displayPath(skill.root, absolute);
      const { text, truncated } = capText(await readTextFile(skill.root, absolute, shown), MAX_RESOURCE_CHARS);
      return {
        action: action(found),
        response: { skill: skill.name, resource_path: shown, content: text, ...(truncated ? { truncated: true } : {}) },
      };
    },
  };
}

/** The `skill_names` argument: a list of strings (a single string is taken as one name). */
function namesOf(args: Record<string, unknown>, strict: boolean): string[] {
  const value = args["skill_names"];
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((name) => typeof name === "string")) return [...new Set(value)];
  if (strict) throw new ToolError('argument "skill_names" must be a list of skill names');
  return [];
}
