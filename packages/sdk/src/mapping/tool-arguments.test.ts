import { stepUpdateFromJson } from "@antigravity-ts/test-kit";
import { describe, expect, it } from "vitest";
import { toolCallFromPreToolArgs } from "./canonical-tool-call.js";
import { parseToolArguments } from "./tool-arguments.js";
import { toolCallsFromUpdate } from "./tool-calls-from-update.js";

/**
 * One table for every reader of a wire `argumentsJson`: `text` is what PRE_TOOL hooks and dynamic
 * policies get (upstream `test_handle_pre_tool_no_args`), `empty` what steps and client tools get
 * (upstream `LocalConnectionStep.from_dict`).
 */
const CASES: readonly { json: string | undefined; text: unknown; empty: Record<string, unknown> }[] = [
  { json: undefined, text: {}, empty: {} },
  { json: "", text: {}, empty: {} },
  { json: '{"a":{"b":[1]}}', text: { a: { b: [1] } }, empty: { a: { b: [1] } } },
  { json: "{}", text: {}, empty: {} },
  { json: "not json", text: "not json", empty: {} },
  { json: "  ", text: "  ", empty: {} },
  { json: "[1,2]", text: [1, 2], empty: {} },
  { json: "42", text: 42, empty: {} },
  { json: '"s"', text: "s", empty: {} },
  { json: "null", text: null, empty: {} },
];

describe.each(CASES)("argumentsJson $json", ({ json, text, empty }) => {
  it("parses to the table's value under each option", () => {
    expect(parseToolArguments(json, { nonObject: "text" })).toEqual(text);
    expect(parseToolArguments(json, { nonObject: "empty" })).toEqual(empty);
  });

  it("reaches a PRE_TOOL hook or policy as the text option says", () => {
    const args = json === undefined ? {} : { argumentsJson: json };
    expect(
      toolCallFromPreToolArgs({
        $typeName: "antigravity.localharness.PreToolArgs",
        toolName: "my_tool",
        ...args,
      } as never).args,
    ).toEqual(text);
  });

  it("reaches a step's MCP and custom tool call as the empty option says", () => {
    const args = json === undefined ? {} : { argumentsJson: json };
    const mcp = stepUpdateFromJson({
      trajectoryId: "t",
      stepIndex: 1,
      mcpTool: { serverName: "s", toolName: "my_tool", ...args },
    });
    const custom = stepUpdateFromJson({
      trajectoryId: "t",
      stepIndex: 2,
      customTool: { toolCall: { id: "c", name: "my_tool", ...args } },
    });
    expect(toolCallsFromUpdate(mcp, "t:1")[0]?.args).toEqual(empty);
    expect(toolCallsFromUpdate(custom, "t:2")[0]?.args).toEqual(empty);
  });
});
