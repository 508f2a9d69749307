import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { HarnessConfigSchema, ModelType, toJson } from "../wire/index.js";
import { BuiltinTool } from "./builtin-tools.js";
import { buildHarnessConfig, type HarnessConfigOptions } from "./harness-config.js";
import { ThinkingLevel } from "./model-options.js";
import { resolvedOptions, type AgentPreset } from "./presets.js";

// The eval() / lightweight() cases of upstream's connections/local/local_connection_test.py that
// are new since 0.1.14 (Stars1233/antigravity-sdk-python google/antigravity/connections/local/
// local_connection_test.py @238766a385e2087fb98238d112a13fc9efc28b29, LocalAgentConfigTest and
// LocalAgentConfigEvalE2ETest), checked on the HarnessConfig JSON the agent sends at start()
// (`resolvedOptions`, then `buildHarnessConfig`). The presets' own semantics are ported from
// connection_test.py in presets.test.ts; the policy half of eval() (allowAll() when no policy is
// chosen) is the builder's and is tested there and in test/node/e2e/presets.test.ts.
//
// Skipped, Python-only (1): test_eval_shorthand_model_retains_thinking_level_after_field_assignment
// (pydantic re-validation after assigning a field of a finished config; a builder has no such step).
// Ported elsewhere (1): test_eval_e2e_http_payload_policy_and_retry is test/node/e2e/presets.test.ts
// (the reference harness against a fake Gemini API: the 503 retried, thinkingLevel high, no image or
// subagent tools).

const SOURCE = "Stars1233 local_connection_test.py @238766a3";
const EVAL = (thinkingLevel: ThinkingLevel | null = ThinkingLevel.High): AgentPreset => ({
  name: "eval",
  thinkingLevel,
});
const LIGHT: AgentPreset = { name: "lightweight" };

/** The HarnessConfig JSON the agent sends for these options and presets. */
function wire(options: HarnessConfigOptions, presets: readonly AgentPreset[]): Record<string, unknown> {
  return toJson(HarnessConfigSchema, buildHarnessConfig(resolvedOptions({ ...options, presets }))) as Record<
    string,
    unknown
  >;
}

function enabled(json: Record<string, unknown>): Record<string, boolean> {
  const tools = json["harnessSideTools"] as Record<string, { enabled?: boolean }>;
  return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, tool.enabled === true]));
}

type Model = { name?: string; geminiApiEndpoint?: { options?: unknown }; vertexEndpoint?: { options?: unknown } };
const models = (json: Record<string, unknown>): Model[] => json["models"] as Model[];

describe(`lightweight() on the wire (${SOURCE})`, () => {
  // Upstream's minimal() of the fork's types.py @4bfe2531 has no search_directory (its deprecated()
  // set); this SDK keeps 0.1.19's minimal() with it (docs/upstream-differences.md, "default built-in tools").
  it("test_lightweight_method: minimal behaviour, compaction at 65,536, the minimal tools, no subagents", () => {
    const json = wire({ model: "gemini-3.8-flash", apiKey: "k" }, [LIGHT]);
    expect(json["agentBehavior"]).toBe("AGENT_BEHAVIOR_MINIMAL");
    expect(json["compactionThreshold"]).toBe(65_536);
    expect(json["compactionConfig"]).toMatchObject({ tokenThreshold: 65_536 });
    expect(enabled(json)).toMatchObject({
      subagents: false,
      runCommand: true,
      viewFile: true,
      writeToFile: true,
      fileEdit: true,
      listDir: false,
      grepSearch: true,
      find: false,
      userQuestions: false,
    });
  });

  it("test_lightweight_method_with_overrides: capabilities.compactionThreshold stays the only compaction dial", () => {
    const json = wire({ model: "gemini-2.5-flash-lite", capabilities: { compactionThreshold: 8000 } }, [LIGHT]);
    expect(json["compactionThreshold"]).toBe(8000);
    expect(json["compactionConfig"]).toEqual({ tokenThreshold: 8000 });
    expect(json["agentBehavior"]).toBe("AGENT_BEHAVIOR_MINIMAL");
    expect(enabled(json)["subagents"]).toBe(false);
  });

  it("test_lightweight_method_preserves_explicit_compaction_config", () => {
    const json = wire({ model: "gemini-3.8-flash", compaction: { tokenThreshold: 12_345 } }, [LIGHT]);
    expect(json["compactionThreshold"]).toBe(12_345);
    expect(json["compactionConfig"]).toEqual({ tokenThreshold: 12_345 });
  });
});

describe(`eval() on the wire (${SOURCE})`, () => {
  it("test_eval_method: no subagents or image generation, the coding tools, benchmark retries", () => {
    const json = wire({ model: "gemini-3.1-pro-preview", apiKey: "k" }, [EVAL()]);
    expect(enabled(json)).toMatchObject({
      subagents: false,
      generateImage: false,
      userQuestions: false,
      runCommand: true,
      viewFile: true,
      writeToFile: true,
      fileEdit: true,
      listDir: false,
    });
    expect(json["retryConfig"]).toEqual({ apiRetry: { maxRetries: 0xffffffff, initialSleepDurationMs: 1000 } });
  });

  // Here turning subagents off also lists start_subagent in disabledTools (docs/upstream-differences.md,
  // "eval() / lightweight() presets"): the harness gets the same switches.
  it("test_eval_method_with_overrides: the agent's retries and disabled tools are kept", () => {
    const json = wire(
      {
        model: "gemini-3.1-pro-preview",
        retryConfig: { apiRetry: { maxRetries: 3 } },
        capabilities: { disabledTools: [BuiltinTool.SearchWeb] },
      },
      [EVAL()],
    );
    expect(json["retryConfig"]).toEqual({ apiRetry: { maxRetries: 3 } });
    expect(enabled(json)).toMatchObject({ searchWeb: false, subagents: false, generateImage: true });
  });

  // Upstream also sends a default image model, untouched; here no image model is sent unless given
  // (docs/upstream-differences.md, "default models").
  it("test_eval_defaults_text_model_thinking_level_high_without_mutating_original", () => {
    const options = { apiKey: "test-key" };
    expect(models(wire(options, []))[0]?.geminiApiEndpoint).toEqual({ apiKey: "test-key" });
    const json = wire(options, [EVAL()]);
    expect(models(json)).toHaveLength(1);
    expect(models(json)[0]?.geminiApiEndpoint?.options).toEqual({ thinkingLevel: "high" });
    expect(options).toEqual({ apiKey: "test-key" });
  });

  it("test_eval_all_thinking_level_enum_values_and_none", () => {
    for (const level of [ThinkingLevel.Minimal, ThinkingLevel.Low, ThinkingLevel.Medium, ThinkingLevel.High]) {
      expect(models(wire({ apiKey: "k" }, [EVAL(level)]))[0]?.geminiApiEndpoint?.options).toEqual({
        thinkingLevel: level,
      });
    }
    expect(models(wire({ apiKey: "k" }, [EVAL(null)]))[0]?.geminiApiEndpoint).not.toHaveProperty("options");
  });

  it("test_eval_vertex_endpoint_sets_thinking_level_high_and_preserves_fields", () => {
    const json = wire({ model: "m", vertex: { project: "p", location: "us-central1" } }, [EVAL()]);
    expect(models(json)[0]?.vertexEndpoint).toEqual({
      project: "p",
      location: "us-central1",
      options: { thinkingLevel: "high" },
    });
  });

  it("test_eval_preserves_existing_endpoint_options_when_thinking_level_unset: the service tier stays", () => {
    const image = {
      name: "custom-image",
      types: [ModelType.IMAGE],
      endpoint: { case: "geminiApiEndpoint" as const, value: { apiKey: "img-key" } },
    };
    const json = wire({ models: [image], model: "m", apiKey: "k", modelOptions: { serviceTier: "priority" } }, [
      EVAL(ThinkingLevel.Medium),
    ]);
    expect(models(json).map((m) => m.name)).toEqual(["custom-image", "m"]);
    expect(models(json)[0]?.geminiApiEndpoint).toEqual({ apiKey: "img-key" });
    expect(models(json)[1]?.geminiApiEndpoint?.options).toEqual({ serviceTier: "priority", thinkingLevel: "medium" });
  });

  it("test_eval_multiple_text_models_and_multimodal_target: every text model, not the image-only one", () => {
    const gemini = (name: string, types: ModelType[]) => ({
      name,
      types,
      endpoint: { case: "geminiApiEndpoint" as const, value: { apiKey: "k" } },
    });
    const json = wire(
      {
        models: [
          gemini("primary-text", [ModelType.TEXT]),
          {
            name: "fallback-text",
            types: [ModelType.TEXT],
            endpoint: { case: "vertexEndpoint" as const, value: { project: "p", location: "global" } },
          },
          gemini("multimodal", [ModelType.TEXT, ModelType.IMAGE]),
          gemini("image-only", [ModelType.IMAGE]),
        ],
      },
      [EVAL(ThinkingLevel.Low)],
    );
    const level = (m: Model | undefined) =>
      ((m?.geminiApiEndpoint ?? m?.vertexEndpoint)?.options as { thinkingLevel?: string } | undefined)?.thinkingLevel;
    expect(models(json).map(level)).toEqual(["low", "low", "low", undefined]);
  });

  it("test_eval_raises_when_model_target_already_sets_thinking_level; null keeps it", () => {
    const options = { apiKey: "k", modelOptions: { thinkingLevel: ThinkingLevel.Low } };
    for (const preset of [EVAL(), EVAL(ThinkingLevel.Medium)]) {
      expect(() => wire(options, [preset])).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
    }
    expect(() => wire({ apiKey: "k" }, [EVAL(), EVAL()])).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    expect(models(wire(options, [EVAL(null)]))[0]?.geminiApiEndpoint?.options).toEqual({ thinkingLevel: "low" });
  });

  // Upstream raises ValueError; an option a backend cannot honour is `Unsupported` here
  // (docs/upstream-differences.md, "thinkingLevel").
  it("test_eval_raises_when_explicit_model_target_has_none_endpoint", () => {
    expect(() => wire({ models: [{ name: "custom", types: [ModelType.TEXT] }] }, [EVAL()])).toThrow(
      expect.objectContaining({ code: ErrorCode.Unsupported }),
    );
  });

  it("test_eval_raises_on_litert_and_local_openai_configs_unless_thinking_level_none", () => {
    const gemma = {
      name: "qwen2.5-coder",
      types: [ModelType.TEXT],
      endpoint: { case: "gemmaEndpoint" as const, value: { baseUrl: "http://localhost:11434/v1" } },
    };
    for (const preset of [EVAL(), EVAL(ThinkingLevel.Medium)]) {
      expect(() => wire({ models: [gemma] }, [preset])).toThrow(
        expect.objectContaining({ code: ErrorCode.Unsupported }),
      );
    }
    expect(enabled(wire({ models: [gemma] }, [EVAL(null)]))["subagents"]).toBe(false);
  });
});
