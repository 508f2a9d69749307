import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { buildHarnessConfig } from "./harness-config.js";
import { initFrameForEra } from "../wire/wire-era-spelling.js";
import { HarnessConfigSchema, toJson, type HarnessConfig } from "../wire/index.js";

const json = (config: HarnessConfig) => toJson(HarnessConfigSchema, config) as Record<string, unknown>;

// skills and rules fill HarnessConfig.skills_config / rules_config exactly as upstream's
// localharness.proto @257f843a defines them, and a 0.1.14 harness never gets them.

describe("skills and rules options", () => {
  it("fill skillsConfig {enabled, skills: [{directoryPath}]} and rulesConfig {filenames}", () => {
    const config = buildHarnessConfig({ skills: { directories: ["/s/a", "rel/b"] }, rules: ["AGENTS.md", "/r.md"] });
    expect(json(config)["skillsConfig"]).toEqual({
      enabled: true,
      skills: [{ directoryPath: "/s/a" }, { directoryPath: "rel/b" }],
    });
    expect(json(config)["rulesConfig"]).toEqual({ filenames: ["AGENTS.md", "/r.md"] });
    const off = json(buildHarnessConfig({ skills: { directories: ["/s"], enabled: false } }));
    expect(off["skillsConfig"]).toEqual({ enabled: false, skills: [{ directoryPath: "/s" }] });
  });

  it("sends neither when not asked", () => {
    const plain = json(buildHarnessConfig({}));
    expect(plain).not.toHaveProperty("skillsConfig");
    expect(plain).not.toHaveProperty("rulesConfig");
  });

  it("refuses malformed options with InvalidArgument", () => {
    const bad: unknown[] = [
      { skills: { directories: "/s" } },
      { skills: { directories: [""] } },
      { skills: { directories: ["/s"], enabled: "yes" } },
      { skills: ["/s"] },
      { rules: "AGENTS.md" },
      { rules: [" "] },
      { rules: [7] },
    ];
    for (const options of bad) {
      expect(() => buildHarnessConfig(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidArgument }),
      );
    }
  });

  it("refuses them for a 0.1.14 harness with Unsupported", () => {
    for (const options of [{ skills: { directories: ["/s"] } }, { rules: ["AGENTS.md"] }]) {
      const config = json(buildHarnessConfig(options)) as never;
      let caught: unknown;
      try {
        initFrameForEra({ config }, "0.1.14");
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(SdkError);
      expect((caught as SdkError).code).toBe(ErrorCode.Unsupported);
    }
  });
});

describe("the builder's skills, rules and toolOutputTruncation", () => {
  it("record the options buildHarnessConfig sends", async () => {
    const { Agent } = await import("../agent/agent.js");
    const options = Agent.builder()
      .skills({ directories: ["/s"], enabled: true })
      .rules("AGENTS.md", "/r.md")
      .toolOutputTruncation(512).options;
    expect(options).toMatchObject({
      skills: { directories: ["/s"], enabled: true },
      rules: ["AGENTS.md", "/r.md"],
      toolOutputTruncation: 512,
    });
    expect(json(buildHarnessConfig(options))).toMatchObject({
      skillsConfig: { enabled: true, skills: [{ directoryPath: "/s" }] },
      rulesConfig: { filenames: ["AGENTS.md", "/r.md"] },
      toolOutputTruncation: { truncate: { maxTokens: 512 } },
    });
  });
});
