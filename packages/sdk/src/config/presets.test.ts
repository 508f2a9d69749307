import { describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { ErrorCode } from "../errors.js";
import { allowAll, deny } from "../policies/policy.js";
import { BuiltinTool, MINIMAL_TOOLS } from "./builtin-tools.js";
import { ThinkingLevel } from "./model-options.js";
import { applyPresets, benchmarkRetry, type AgentPreset, type PresetTarget } from "./presets.js";

// Upstream's preset tests, connection_test.py (Stars1233 @238766a3): test_eval_method_*,
// test_eval_raises_*, test_lightweight_method_*, test_compute_lightweight_presets_*.

const EVAL: AgentPreset = { name: "eval", thinkingLevel: ThinkingLevel.High };
const LIGHT: AgentPreset = { name: "lightweight" };
const NONE: PresetTarget = {};

describe("eval() (upstream AgentConfig.eval)", () => {
  it("disables image generation and subagents, enables daemons, retries like a benchmark, thinks high", () => {
    expect(applyPresets(NONE, [EVAL])).toEqual({
      capabilities: {
        disabledTools: [BuiltinTool.GenerateImage, BuiltinTool.StartSubagent],
        runCommand: { enableDaemonCommands: true },
      },
      retryConfig: { apiRetry: { maxRetries: 4_294_967_295, initialSleepDurationMs: 1000 } },
      modelOptions: { thinkingLevel: "high" },
    });
    expect(benchmarkRetry()).toEqual({ apiRetry: { maxRetries: 2 ** 32 - 1, initialSleepDurationMs: 1000 } });
  });

  it("keeps what the agent sets (test_eval_method_preserves_explicit_overrides)", () => {
    const retryConfig = { apiRetry: { maxRetries: 3 } };
    const out = applyPresets(
      {
        retryConfig,
        capabilities: {
          disabledTools: [BuiltinTool.SearchWeb],
          runCommand: { enableDaemonCommands: false, maxTimeoutMs: 120_000 },
        },
        modelOptions: { serviceTier: "priority" },
      },
      [EVAL],
    );
    expect(out.retryConfig).toBe(retryConfig);
    // The given disabledTools replace the preset's (image generation stays on); subagents stay off.
    expect(out.capabilities?.disabledTools).toEqual([BuiltinTool.SearchWeb, BuiltinTool.StartSubagent]);
    expect(out.capabilities?.runCommand).toEqual({ enableDaemonCommands: false, maxTimeoutMs: 120_000 });
    expect(out.modelOptions).toEqual({ serviceTier: "priority", thinkingLevel: "high" });
  });

  it("keeps enabledTools and adds no disabledTools (test_eval_method_with_enabled_tools_drops_disabled_tools)", () => {
    const out = applyPresets({ capabilities: { enabledTools: [BuiltinTool.ViewFile] } }, [EVAL]);
    expect(out.capabilities).toEqual({ enabledTools: ["view_file"], runCommand: { enableDaemonCommands: true } });
  });

  it("refuses a level the agent already sets; thinkingLevel null keeps it (test_eval_raises_when_*)", () => {
    const set = { modelOptions: { thinkingLevel: ThinkingLevel.Low } };
    expect(() => applyPresets(set, [EVAL])).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidArgument,
        message: expect.stringContaining("eval({ thinkingLevel: null })"),
      }),
    );
    expect(applyPresets(set, [{ name: "eval", thinkingLevel: null }]).modelOptions).toEqual({ thinkingLevel: "low" });
    expect(() => applyPresets(NONE, [{ name: "eval", thinkingLevel: "huge" as ThinkingLevel }])).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
  });
});

describe("lightweight() (upstream AgentConfig.lightweight)", () => {
  it("selects the minimal tools, minimal behaviour and compaction at 65,536 tokens", () => {
    expect(MINIMAL_TOOLS).toEqual(["run_command", "view_file", "create_file", "edit_file", "search_directory"]);
    expect(applyPresets(NONE, [LIGHT])).toEqual({
      capabilities: { enabledTools: MINIMAL_TOOLS },
      agentBehavior: "minimal",
      compaction: { tokenThreshold: 65_536 },
    });
  });

  it("keeps a set compaction, threshold or behaviour, and takes disabledTools out of the minimal set", () => {
    expect(applyPresets({ compaction: { tokenThreshold: 12_345 } }, [LIGHT]).compaction).toEqual({
      tokenThreshold: 12_345,
    });
    const threshold = applyPresets({ capabilities: { compactionThreshold: 4000 } }, [LIGHT]);
    expect(threshold).not.toHaveProperty("compaction");
    expect(threshold.capabilities).toEqual({ compactionThreshold: 4000, enabledTools: MINIMAL_TOOLS });
    expect(applyPresets({ agentBehavior: "interactive" }, [LIGHT]).agentBehavior).toBe("interactive");
    const filtered = applyPresets({ capabilities: { disabledTools: [BuiltinTool.RunCommand] } }, [LIGHT]);
    expect(filtered.capabilities).toEqual({
      enabledTools: ["view_file", "create_file", "edit_file", "search_directory"],
    });
  });

  it("composes with eval() in call order: eval keeps the lightweight tools", () => {
    const out = applyPresets(NONE, [LIGHT, EVAL]);
    expect(out.capabilities).toEqual({ enabledTools: MINIMAL_TOOLS, runCommand: { enableDaemonCommands: true } });
    expect(out.agentBehavior).toBe("minimal");
  });
});

describe("the builder's presets", () => {
  it("records them in call order; eval() chooses allowAll() when no policy is chosen, not over a chosen one", () => {
    const evaluated = Agent.builder().lightweight().eval({ thinkingLevel: null }).build();
    expect(evaluated.options.presets).toEqual([LIGHT, { name: "eval", thinkingLevel: null }]);
    expect(evaluated.options.policies).toEqual([expect.objectContaining({ name: allowAll().name, tool: "*" })]);
    const chosen = Agent.builder().policy(deny("run_command")).eval().build();
    expect(chosen.options.policies).toHaveLength(1);
    expect(chosen.options.presets).toEqual([EVAL]);
    // lightweight() alone chooses no policy: buildUnchecked() keeps upstream's default.
    expect(Agent.builder().lightweight().buildUnchecked().options.policies?.flat()).toHaveLength(2);
  });
});
