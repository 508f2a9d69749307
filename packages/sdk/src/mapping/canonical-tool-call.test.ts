import { describe, expect, it } from "vitest";
import { HookRunner } from "../connection/index.js";
import { decidePolicyRequest, deny, type ToolCall } from "../index.js";
import { stepUpdateFromJson } from "@antigravity-ts/test-kit";
import { decodeOutputEvent, PolicyEvaluationOutcome, type PolicyDecisionRequest } from "../wire/index.js";
import { canonicalToolCall, sdkToolName, toolCallFromPreToolArgs } from "./canonical-tool-call.js";
import { stepFromUpdate } from "./step-from-update.js";

// Issue 10 item 9: one spelling of a call wherever a user sees it. The same run_command call as
// a step shows it (the action sub-message) and as the harness asks policies and hooks about it
// (the model's arguments) must read the same.

/** A policyDecisionRequest decoded from the JSON of its frame through the real codec. */
function policyRequest(value: Record<string, unknown>): PolicyDecisionRequest {
  const event = decodeOutputEvent(JSON.stringify({ policyDecisionRequest: value }));
  if (event.event.case !== "policyDecisionRequest") throw new Error("not a policyDecisionRequest");
  return event.event.value;
}

describe("canonicalToolCall", () => {
  it("gives a step's run_command call and the harness's PRE_TOOL call the same argument names", async () => {
    // What the reference harness sends for one call: the step (docs/harness.md) and the PreToolArgs.
    const step = stepFromUpdate(
      stepUpdateFromJson({
        trajectoryId: "t",
        stepIndex: 2,
        state: "STATE_ACTIVE",
        runCommand: { commandLine: "rm -rf build", workingDir: "/w" },
      }),
    );
    const asked = policyRequest({
      requestId: "p",
      ruleId: "rule_0",
      toolArgs: { toolName: "run_command", argumentsJson: '{"CommandLine":"rm -rf build","Cwd":"/w"}', callId: "c" },
    });
    const fromStream = step.toolCalls[0];
    expect(fromStream?.args).toEqual({ CommandLine: "rm -rf build", Cwd: "/w" });
    expect(toolCallFromPreToolArgs(asked.toolArgs).args).toEqual(fromStream?.args);

    // A predicate written from what the stream shows matches what the harness asks about.
    const key =
      Object.keys(fromStream?.args as object).find(
        (k) => (fromStream?.args as Record<string, unknown>)[k] === "rm -rf build",
      ) ?? "";
    const rule = deny("run_command", "no rm").when((call) =>
      String((call.args as Record<string, unknown>)[key]).startsWith("rm"),
    );
    expect(await decidePolicyRequest([rule], asked)).toEqual({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "no rm",
    });

    // A PRE_TOOL hook sees the same spelling too.
    const seen: ToolCall[] = [];
    await new HookRunner([{ preToolCall: (call) => void seen.push(call) }]).handle(
      decodeOutputEvent(
        JSON.stringify({
          callHookRequest: { requestId: "h", type: "LIFECYCLE_HOOK_PRE_TOOL", preToolArgs: asked.toolArgs },
        }),
      ).event.value as never,
    );
    expect(seen[0]?.args).toEqual(fromStream?.args);
  });

  it("renames only the fields of built-in actions, and only the listed ones; results keep their names", () => {
    expect(
      canonicalToolCall(
        {
          id: "1",
          name: "run_command",
          args: { command_line: "ls", working_dir: "/w", exit_code: 0, combined_output: "x" },
        },
        "action",
      ).args,
    ).toEqual({
      CommandLine: "ls",
      Cwd: "/w",
      exit_code: 0,
      combined_output: "x",
    });
    expect(
      canonicalToolCall(
        { id: "1", name: "find_file", args: { directory_path: "/w", query: "*.ts", output: "a.ts" } },
        "action",
      ).args,
    ).toEqual({
      directory_path: "/w",
      pattern: "*.ts",
      output: "a.ts",
    });
    // Arguments as the model wrote them are never renamed: a client tool may well call its field command_line.
    expect(canonicalToolCall({ id: "1", name: "run_command", args: { command_line: "ls" } }, "arguments").args).toEqual(
      { command_line: "ls" },
    );
    expect(canonicalToolCall({ id: "1", name: "search_directory", args: { query: "q" } }, "action").args).toEqual({
      query: "q",
    });
  });

  it("copies the arguments instead of changing the caller's object", () => {
    const args = { file_path: "file:///a/b.txt" };
    const call = canonicalToolCall({ id: "1", name: "view_file", args }, "arguments");
    expect(call).toEqual({ id: "1", name: "view_file", args: { file_path: "/a/b.txt" }, canonicalPath: "/a/b.txt" });
    expect(args).toEqual({ file_path: "file:///a/b.txt" });
  });

  it("keeps arguments that are not an object, sets no canonicalPath for an empty path, keeps serverName", () => {
    expect(canonicalToolCall({ id: "1", name: "t", args: "raw text" }, "arguments")).toEqual({
      id: "1",
      name: "t",
      args: "raw text",
    });
    expect(canonicalToolCall({ id: "1", name: "t", args: [1] }, "arguments")).toEqual({
      id: "1",
      name: "t",
      args: [1],
    });
    expect(canonicalToolCall({ id: "1", name: "view_file", args: { file_path: "" } }, "arguments")).toEqual({
      id: "1",
      name: "view_file",
      args: { file_path: "" },
    });
    expect(canonicalToolCall({ id: "1", name: "q", args: {}, serverName: "" }, "arguments")).toEqual({
      id: "1",
      name: "q",
      args: {},
      serverName: "",
    });
  });
});

describe("sdkToolName (upstream PROTO_FIELD_TO_SDK_NAME)", () => {
  it("maps invoke_subagent to start_subagent except for MCP tools; other names are kept", () => {
    expect(sdkToolName("invoke_subagent")).toBe("start_subagent");
    expect(sdkToolName("invoke_subagent", "")).toBe("start_subagent");
    expect(sdkToolName("invoke_subagent", "srv")).toBe("invoke_subagent");
    expect(
      ["run_command", "start_subagent", "toString", "__proto__", "constructor"].map((n) => sdkToolName(n)),
    ).toEqual(["run_command", "start_subagent", "toString", "__proto__", "constructor"]);
  });
});
