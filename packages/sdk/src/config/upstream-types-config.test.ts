import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { HarnessConfigSchema, toJson } from "../wire/index.js";
import { BuiltinTool, DEFAULT_TOOLS, MINIMAL_TOOLS } from "./builtin-tools.js";
import { buildHarnessConfig, type HarnessConfigOptions } from "./harness-config.js";

// The configuration cases of upstream's types_test.py that are new since 0.1.14
// (Stars1233/antigravity-sdk-python google/antigravity/types_test.py
// @4bfe2531e50bac328103eed7f78465f287c3479d, against lovicho/antigravity-sdk-python's 0.1.14
// file), on what buildHarnessConfig accepts, refuses (InvalidArgument) and sends. Upstream's
// pydantic models are this SDK's option objects; a value upstream refuses at construction is
// refused here when the configuration is built.
//
// Skipped (2): test_deprecated_returns_legacy_search_tools (no deprecated() set here: see the
// "default built-in tools" row of docs/upstream-differences.md) and
// test_tool_output_truncation_config_instance (pydantic keeps the instance it was given, `assertIs`).

const SOURCE = "Stars1233 types_test.py @4bfe2531";

const wire = (options: HarnessConfigOptions): Record<string, unknown> =>
  toJson(HarnessConfigSchema, buildHarnessConfig(options)) as Record<string, unknown>;
const refused = (options: HarnessConfigOptions): void => {
  expect(() => buildHarnessConfig(options)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
};

describe(`CapabilitiesConfig.tool_output_truncation_config (${SOURCE})`, () => {
  it("test_tool_output_truncation_config_default: none is sent", () => {
    expect(wire({})).not.toHaveProperty("toolOutputTruncation");
  });

  it("test_tool_output_truncation_config_int_shorthand / _zero / _dict", () => {
    expect(wire({ toolOutputTruncation: 2048 })["toolOutputTruncation"]).toEqual({ truncate: { maxTokens: 2048 } });
    expect(wire({ toolOutputTruncation: 0 })["toolOutputTruncation"]).toEqual({ truncate: { maxTokens: 0 } });
    expect(wire({ toolOutputTruncation: { maxTokens: 512 } })["toolOutputTruncation"]).toEqual({
      truncate: { maxTokens: 512 },
    });
  });

  it("test_tool_output_truncation_config_boolean_rejected / _invalid_types_rejected / _negative_or_overflow_raises", () => {
    for (const value of [true, false, "unlimited", -1, 2 ** 31]) refused({ toolOutputTruncation: value as never });
  });
});

describe(`ToolOutputTruncationConfig (${SOURCE})`, () => {
  it("test_zero_max_tokens_allowed; test_negative_max_tokens_raises; test_overflow_max_tokens_raises", () => {
    expect(wire({ toolOutputTruncation: { maxTokens: 0 } })["toolOutputTruncation"]).toEqual({
      truncate: { maxTokens: 0 },
    });
    refused({ toolOutputTruncation: { maxTokens: -1 } });
    refused({ toolOutputTruncation: { maxTokens: 2 ** 31 } });
  });
});

describe(`CompactionConfig (${SOURCE})`, () => {
  it("test_explicit_fields", () => {
    expect(wire({ compaction: { tokenThreshold: 50_000 } })["compactionConfig"]).toEqual({ tokenThreshold: 50_000 });
  });

  // Upstream requires token_threshold > 0. Here 0 is accepted and means the harness's default, as
  // every 0 of this SDK's session dials does (docs/upstream-differences.md, "compaction threshold 0").
  it("test_non_positive_values_raise: a negative threshold is refused; 0 is the harness default here", () => {
    refused({ compaction: { tokenThreshold: -1 } });
    expect(wire({ compaction: { tokenThreshold: 0 } })["compactionThreshold"] ?? 0).toBe(0);
  });
});

describe(`BuiltinTools sets (${SOURCE})`, () => {
  // The fork's types.py @4bfe2531 moves search_directory and find_file into deprecated(), which no
  // release note announces; this SDK keeps 0.1.19's sets (docs/upstream-differences.md, "default built-in tools").
  it("test_minimal_returns_four_minimal_tools: ours is 0.1.19's minimal(), with search_directory", () => {
    expect(MINIMAL_TOOLS).toEqual([
      BuiltinTool.RunCommand,
      BuiltinTool.ViewFile,
      BuiltinTool.CreateFile,
      BuiltinTool.EditFile,
      BuiltinTool.SearchDirectory,
    ]);
  });

  it("test_default_excludes_ask_question_and_deprecated_tools: ask_question and list_directory are out", () => {
    expect(DEFAULT_TOOLS).not.toContain(BuiltinTool.AskQuestion);
    expect(DEFAULT_TOOLS).not.toContain(BuiltinTool.ListDirectory);
    expect(DEFAULT_TOOLS).toContain(BuiltinTool.SearchDirectory);
    expect(DEFAULT_TOOLS).toContain(BuiltinTool.FindFile);
  });
});

describe(`SubagentConfig.model (${SOURCE})`, () => {
  it("test_model_configuration: a model name is sent; a model target is refused", () => {
    const json = wire({ customSubagents: [{ name: "flash_helper", description: "d", model: "gemini-2.5-flash" }] });
    expect((json["customSubagents"] as { model?: unknown }[])[0]?.model).toEqual({ name: "gemini-2.5-flash" });
    refused({
      customSubagents: [{ name: "pro_helper", description: "d", model: { name: "gemini-2.5-pro" } as never }],
    });
  });
});
