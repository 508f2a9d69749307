import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActionSkillLookup_Operation } from "@antigravity-ts/sdk/internal";
import { loadSkillCatalog, MAX_CATALOG_ENTRIES, MAX_SKILL_FILE_BYTES } from "./skill-catalog.js";
import { loadRulesFiles, MAX_RULES_FILE_BYTES, MAX_RULES_FILES } from "./rules-files.js";
import { createSkillLookupTool } from "../skill-lookup.js";
import type { ToolContext } from "../tool.js";
import { createWorkspaceRoots } from "../workspace-paths.js";

// Skills and rules are read with the file tools' rules: what a symlink, a FIFO, a huge or binary
// file or a `..` would reach outside the skill's directory (or the workspace) is refused with a
// notice, and the rest still loads.

let root = "";
const skill = (name: string, description: string, body = "Do it well.") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-skills-"));
  await writeFile(path.join(root, "secret.txt"), "outside-secret-4411\n");
  // One skill directory.
  await mkdir(path.join(root, "single", "references"), { recursive: true });
  await writeFile(path.join(root, "single", "SKILL.md"), skill("deploy", '"Deploys: the \\"safe\\" way"', "Step 1."));
  await writeFile(path.join(root, "single", "references", "guide.md"), "guide text\n");
  await symlink(path.join(root, "secret.txt"), path.join(root, "single", "references", "leak.md"));
  await symlink(path.join(root, "single", "references", "guide.md"), path.join(root, "single", "inner-link.md"));
  execFileSync("mkfifo", [path.join(root, "single", "pipe.md")]);
  // A catalog with good and bad entries.
  const catalog = path.join(root, "catalog");
  for (const name of ["alpha", "badname", "nodesc", "linked", "fifo", "huge", "binary", "dup"])
    await mkdir(path.join(catalog, name), { recursive: true });
  await writeFile(path.join(catalog, "alpha", "SKILL.md"), skill("alpha", "First skill", "Alpha body."));
  await writeFile(path.join(catalog, "badname", "SKILL.md"), skill("bad name!", "x"));
  await writeFile(path.join(catalog, "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nbody\n");
  await symlink(path.join(root, "secret.txt"), path.join(catalog, "linked", "SKILL.md"));
  execFileSync("mkfifo", [path.join(catalog, "fifo", "SKILL.md")]);
  await writeFile(path.join(catalog, "huge", "SKILL.md"), skill("huge", "big", "x".repeat(MAX_SKILL_FILE_BYTES + 10)));
  await writeFile(path.join(catalog, "binary", "SKILL.md"), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01]));
  await writeFile(path.join(catalog, "dup", "SKILL.md"), skill("deploy", "A second deploy"));
  await symlink(path.join(root, "single"), path.join(catalog, "zz-symlinked-skill"));
  // Rules.
  await mkdir(path.join(root, "ws1"));
  await mkdir(path.join(root, "ws2"));
  await writeFile(path.join(root, "ws2", "AGENTS.md"), "Always write tests.\n");
  await symlink(path.join(root, "secret.txt"), path.join(root, "ws1", "LEAK.md"));
  execFileSync("mkfifo", [path.join(root, "ws1", "PIPE.md")]);
  await writeFile(path.join(root, "ws1", "BIG.md"), "y".repeat(MAX_RULES_FILE_BYTES + 1));
  await writeFile(path.join(root, "rules-abs.md"), "Absolute rule.\n");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function context(): ToolContext {
  return { signal: new AbortController().signal } as unknown as ToolContext;
}

describe("loadSkillCatalog", () => {
  it("loads one skill directory and a catalog, and says what it skipped", async () => {
    const catalog = await loadSkillCatalog(["single", path.join(root, "catalog"), "missing"], root);
    expect([...catalog.skills.keys()]).toEqual(["deploy", "alpha"]);
    expect(catalog.skills.get("deploy")).toMatchObject({
      description: 'Deploys: the "safe" way',
      instructions: "Step 1.",
    });
    const notices = catalog.notices.join("\n");
    expect(notices).toMatch(/badname.*not 1-64 letters/);
    expect(notices).toMatch(/nodesc.*no description/);
    expect(notices).toMatch(/linked.*symlink/);
    expect(notices).toMatch(/fifo.*(FIFO|not a regular file)/i);
    expect(notices).toMatch(/huge.*\d+ bytes, more than the 262144-byte limit/);
    expect(notices).toMatch(/binary.*binary/);
    expect(notices).toMatch(/"deploy" of .*catalog skipped: a skill of that name came first/);
    expect(notices).toMatch(/zz-symlinked-skill skipped: it is a symlink/);
    expect(notices).toMatch(/missing skipped: it does not exist/);
    expect(notices).not.toContain("outside-secret-4411");
  });
});

describe("skill_lookup", () => {
  it("lists, looks up and reads resources inside the skill only", async () => {
    const catalog = await loadSkillCatalog([path.join(root, "single"), path.join(root, "catalog")], root);
    const tool = createSkillLookupTool(catalog);
    expect(tool.enabled(undefined)).toBe(true);
    const listed = await tool.run({ operation: "list_skills" }, context());
    expect(listed.response).toEqual({
      skills: [
        { name: "deploy", description: 'Deploys: the "safe" way' },
        { name: "alpha", description: "First skill" },
      ],
    });
    expect(listed.action).toMatchObject({
      skillLookup: { operation: ActionSkillLookup_Operation.LIST_SKILLS, resolvedSkillNames: ["deploy", "alpha"] },
    });
    const looked = await tool.run({ operation: "lookup_skills", skill_names: ["alpha", "nope"] }, context());
    expect(looked.response["skills"]).toEqual([
      { name: "alpha", description: "First skill", instructions: "Alpha body." },
    ]);
    expect(looked.action).toMatchObject({
      skillLookup: { requestedSkillNames: ["alpha", "nope"], resolvedSkillNames: ["alpha"] },
    });
    expect(JSON.stringify(looked.action)).toContain("unknown skill(s): nope");
    await expect(tool.run({ operation: "lookup_skills", skill_names: ["nope"] }, context())).rejects.toThrow(
      /no skill named nope; known skills: deploy, alpha/,
    );
    const files = await tool.run({ operation: "get_skill_resources", skill_names: ["deploy"] }, context());
    expect(files.response["resources"]).toEqual(["SKILL.md", "references/guide.md"]);
    const guide = await tool.run(
      { operation: "get_skill_resources", skill_names: ["deploy"], resource_path: "references/guide.md" },
      context(),
    );
    expect(guide.response).toMatchObject({ resource_path: "references/guide.md", content: "guide text\n" });
    const viaLink = await tool.run(
      { operation: "get_skill_resources", skill_names: ["deploy"], resource_path: "inner-link.md" },
      context(),
    );
    expect(viaLink.response["content"]).toBe("guide text\n");
  });

  it("refuses resources outside the skill, symlinks out, FIFOs and unknown operations", async () => {
    const tool = createSkillLookupTool(await loadSkillCatalog([path.join(root, "single")], root));
    const get = (resource: string) =>
      tool.run({ operation: "get_skill_resources", skill_names: ["deploy"], resource_path: resource }, context());
    await expect(get("../secret.txt")).rejects.toThrow(/outside/);
    await expect(get(path.join(root, "secret.txt"))).rejects.toThrow(/outside/);
    await expect(get("references/leak.md")).rejects.toThrow(/outside/);
    await expect(get("pipe.md")).rejects.toThrow(/FIFO|not a regular file/i);
    await expect(tool.run({ operation: "delete_skills" }, context())).rejects.toThrow(/operation must be one of/);
    await expect(tool.run({ operation: "lookup_skills", skill_names: [1] }, context())).rejects.toThrow(
      /list of skill names/,
    );
  });

  it("is not offered without skills", async () => {
    expect(createSkillLookupTool(await loadSkillCatalog([], root)).enabled(undefined)).toBe(false);
  });
});

describe("loadRulesFiles", () => {
  it("reads relative names in every root and absolute paths, and refuses links out, FIFOs and huge files", async () => {
    const workspace = await createWorkspaceRoots([path.join(root, "ws1"), path.join(root, "ws2")]);
    const rules = await loadRulesFiles(
      ["AGENTS.md", path.join(root, "rules-abs.md"), "LEAK.md", "PIPE.md", "BIG.md", "NONE.md", "../secret.txt"],
      workspace,
    );
    expect(rules.files.map((file) => [path.basename(file.path), file.text])).toEqual([
      ["AGENTS.md", "Always write tests."],
      ["rules-abs.md", "Absolute rule."],
    ]);
    const notices = rules.notices.join("\n");
    expect(notices).toMatch(/"LEAK.md" skipped: .*outside/);
    expect(notices).toMatch(/"PIPE.md" skipped: .*(FIFO|not a regular file)/i);
    expect(notices).toMatch(/"BIG.md" skipped: .*65536-byte limit/);
    expect(notices).toMatch(/"NONE.md" skipped: not found in/);
    expect(notices).toMatch(/"..\/secret.txt" skipped: .*outside/);
    expect(notices).not.toContain("outside-secret-4411");
  });
});

describe("bounds", () => {
  it("looks at a bounded number of catalog entries and rules files, and says so", async () => {
    const wide = path.join(root, "wide");
    await mkdir(wide);
    await Promise.all(
      Array.from({ length: MAX_CATALOG_ENTRIES + 3 }, (_, i) => writeFile(path.join(wide, `f${i}`), "")),
    );
    expect((await loadSkillCatalog([wide], root)).notices).toEqual([
      `skills directory ${wide}: only its first ${MAX_CATALOG_ENTRIES} of ${MAX_CATALOG_ENTRIES + 3} entries are looked at`,
    ]);
    const workspace = await createWorkspaceRoots([path.join(root, "ws2")]);
    const names = Array.from({ length: MAX_RULES_FILES + 1 }, () => "AGENTS.md");
    const rules = await loadRulesFiles(names, workspace);
    expect(rules.files).toHaveLength(MAX_RULES_FILES);
    expect(rules.notices).toEqual([`only the first ${MAX_RULES_FILES} of ${MAX_RULES_FILES + 1} rules files are read`]);
  });
});
