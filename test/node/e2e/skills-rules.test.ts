import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ErrorCode, StepType, WebSocketTransport, allowAll, localHarness } from "@antigravity-ts/node";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// The SDK's skills and rules options (HarnessConfig.skills_config / rules_config, upstream
// localharness.proto @257f843a) against the reference harness process: the scripted model looks a
// skill up with skill_lookup and answers from its instructions, and sees the rules file in its
// system instruction; the 0.1.14 wire era refuses both at start().

const SCRIPT = {
  turns: [
    {
      match: "skill",
      calls: [
        { toolCalls: [{ name: "skill_lookup", args: { operation: "lookup_skills", skill_names: ["haiku"] } }] },
        { text: "{{result.skills.0.instructions}}" },
      ],
    },
    { match: "rules", calls: [{ text: "{{system}}" }] },
  ],
};

let root = "";
let workspace = "";
let harness: ListeningHarness;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-skills-e2e-"));
  workspace = path.join(root, "ws");
  await mkdir(path.join(root, "skills", "haiku"), { recursive: true });
  await mkdir(workspace);
  await writeFile(
    path.join(root, "skills", "haiku", "SKILL.md"),
    "---\nname: haiku\ndescription: Writing haiku\n---\nFive, seven, five syllables.\n",
  );
  await writeFile(path.join(workspace, "RULES.md"), "Never use the passive voice.\n");
  await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
  harness = await startListeningHarness({ env: harnessEnv(path.join(root, "script.json")), workspace });
});

afterAll(async () => {
  await killAllHarnesses();
  await rm(root, { recursive: true, force: true });
});

function agent(era?: "0.1.14"): Agent {
  const transport = new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey });
  return new Agent({
    connection: localHarness(transport, era === undefined ? {} : { wireEra: era }),
    workspaces: [workspace],
    skills: { directories: [path.join(root, "skills")] },
    rules: ["RULES.md"],
    policies: [allowAll()],
  });
}

describe("skills and rules through the SDK", () => {
  it("the model looks a skill up and reads the rules", async () => {
    const started = await agent().start({ timeoutMs: 30_000 });
    try {
      const skill = await started.chatToCompletion("use the skill");
      expect(skill.text).toBe("Five, seven, five syllables.");
      // The lookup is a tool call of its step, its arguments ActionSkillLookup's fields (= 37, proto names).
      const lookups = skill.steps.filter((step) => step.toolCalls.some((call) => call.name === "skill_lookup"));
      expect(lookups).toHaveLength(1);
      expect(lookups[0]?.type).toBe(StepType.ToolCall);
      expect(lookups[0]?.toolCalls).toEqual([
        {
          id: lookups[0]?.id,
          name: "skill_lookup",
          args: {
            operation: "OPERATION_LOOKUP_SKILLS",
            requested_skill_names: ["haiku"],
            resolved_skill_names: ["haiku"],
          },
        },
      ]);
      const system = (await started.chatToCompletion("rules?")).text;
      expect(system).toContain("Never use the passive voice.");
      expect(system).toContain("- haiku: Writing haiku");
    } finally {
      await started.stop();
    }
  });

  it("is refused with Unsupported for a 0.1.14 harness", async () => {
    await expect(agent("0.1.14").start({ timeoutMs: 30_000 })).rejects.toMatchObject({
      code: ErrorCode.Unsupported,
    });
  });
});
