import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, harnessConfig, type Frame } from "../test-support/ws-client.js";

// Skills (`skillsConfig`, `skillsPaths`) and rules files (`rulesConfig`), upstream
// localharness.proto @257f843a, against the harness process: the model lists and looks up skills
// with skill_lookup (ActionSkillLookup steps), reads a resource inside a skill and is refused one
// through a symlink out; the rules files' text and the skills' descriptions are in its system
// instruction; what cannot be loaded is said on stderr.

const SCRIPT = {
  turns: [
    {
      match: "use skills",
      calls: [
        { toolCalls: [{ name: "skill_lookup", args: { operation: "list_skills" } }] },
        {
          toolCalls: [
            { name: "skill_lookup", args: { operation: "lookup_skills", skill_names: ["greeting", "nope"] } },
          ],
        },
        {
          toolCalls: [
            {
              name: "skill_lookup",
              args: { operation: "get_skill_resources", skill_names: ["greeting"], resource_path: "phrases.md" },
            },
          ],
        },
        {
          text: "resource: {{result.content}}",
          toolCalls: [
            {
              name: "skill_lookup",
              args: { operation: "get_skill_resources", skill_names: ["greeting"], resource_path: "leak.md" },
            },
          ],
        },
        { text: "done" },
      ],
    },
    { match: "instructions", calls: [{ text: "{{system}}" }] },
  ],
};

describe("skills and rules files", () => {
  const fixture = useHarnessFixture({
    name: "skills-rules",
    script: SCRIPT,
    prepare: async (root, workspace) => {
      const skills = path.join(root, "skills");
      await mkdir(path.join(skills, "greeting"), { recursive: true });
      await mkdir(path.join(skills, "broken"), { recursive: true });
      await writeFile(
        path.join(skills, "greeting", "SKILL.md"),
        "---\nname: greeting\ndescription: How to greet people politely\n---\nSay hello, then the name.\n",
      );
      await writeFile(path.join(skills, "greeting", "phrases.md"), "Good morning\n");
      await writeFile(path.join(root, "outside.txt"), "outside-secret-9120\n");
      await symlink(path.join(root, "outside.txt"), path.join(skills, "greeting", "leak.md"));
      await writeFile(path.join(skills, "broken", "SKILL.md"), "no front matter\n");
      await writeFile(path.join(workspace, "AGENTS.md"), "Always answer in French.\n");
    },
  });
  const config = (): Frame => ({
    skillsConfig: { enabled: true, skills: [{ directoryPath: path.join(fixture.root, "skills") }] },
    rulesConfig: { filenames: ["AGENTS.md", "MISSING.md"] },
  });

  it("looks skills up with skill_lookup steps, inside the skill's directory only", async () => {
    const client = await fixture.connect(config());
    client.prompt("use skills");
    const frames = await client.turn();
    const lookups = finalSteps(frames).filter((step) => step["skillLookup"] !== undefined);
    expect(lookups.map((step) => [step["state"], step["skillLookup"]])).toEqual([
      ["STATE_DONE", { operation: "OPERATION_LIST_SKILLS", resolvedSkillNames: ["greeting"] }],
      [
        "STATE_DONE",
        {
          operation: "OPERATION_LOOKUP_SKILLS",
          requestedSkillNames: ["greeting", "nope"],
          resolvedSkillNames: ["greeting"],
          errorMessage: "unknown skill(s): nope; known skills: greeting",
        },
      ],
      [
        "STATE_DONE",
        {
          operation: "OPERATION_GET_SKILL_RESOURCES",
          requestedSkillNames: ["greeting"],
          resolvedSkillNames: ["greeting"],
        },
      ],
      ["STATE_ERROR", { operation: "OPERATION_GET_SKILL_RESOURCES", requestedSkillNames: ["greeting"] }],
    ]);
    const errors = lookups.map((step) => step["errorMessage"] ?? "");
    expect(errors[3]).toMatch(/leak\.md.*outside/);
    const text = JSON.stringify(frames);
    expect(finalSteps(frames).some((step) => step["text"] === "resource: Good morning\n")).toBe(true);
    expect(text).not.toContain("outside-secret-9120");
    client.close();
  });

  it("puts the rules files and the skills' descriptions in the system instruction, and warns about the rest", async () => {
    const client = await fixture.connect(config());
    client.prompt("instructions");
    const text = finalSteps(await client.turn())
      .map((step) => step["text"] ?? "")
      .join("\n");
    expect(text).toContain("## Rules");
    expect(text).toContain("Always answer in French.");
    expect(text).toContain("- greeting: How to greet people politely");
    const stderr = fixture.harness.stderr();
    expect(stderr).toMatch(/skill .*broken skipped: SKILL.md has no description/);
    expect(stderr).toMatch(/rules file "MISSING.md" skipped: not found/);
    expect(stderr).not.toMatch(/does not honour:[^\n]*(skills|rules)/);
    client.close();
  });

  it("gives a 0.1.14 client (skillsPaths, templateName) the lookups without the skillLookup field its schema lacks", async () => {
    const client = await fixture.open();
    await client.init(
      harnessConfig(fixture.workspace, {
        skillsPaths: [path.join(fixture.root, "skills")],
        systemInstructions: { custom: { part: [{ text: "Be brief." }, { template: { templateName: "identity" } }] } },
      }),
    );
    client.prompt("use skills");
    const frames = await client.turn();
    expect(JSON.stringify(frames)).not.toContain("skillLookup");
    expect(finalSteps(frames).some((step) => step["text"] === "resource: Good morning\n")).toBe(true);
    client.close();
  });

  it("turns skills off with skillsConfig.enabled false, and reads the older skillsPaths", async () => {
    const off = await fixture.connect({
      skillsConfig: { enabled: false, skills: [{ directoryPath: path.join(fixture.root, "skills") }] },
    });
    off.prompt("instructions");
    expect(JSON.stringify(await off.turn())).not.toContain("greeting");
    off.close();
    const legacy = await fixture.connect({ skillsPaths: [path.join(fixture.root, "skills", "greeting")] });
    legacy.prompt("instructions");
    expect(JSON.stringify(await legacy.turn())).toContain("- greeting: How to greet people politely");
    legacy.close();
  });
});
