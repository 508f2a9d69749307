import { describe, expect, it } from "vitest";
import { plainOfStruct } from "../wire/genai-struct-read.js";
import { DEFAULT_COMPACTION_SUMMARY, HookRunner } from "../connection/index.js";
import type { CompactionEvent, Hook, HookToolCall, HookToolError, HookToolResult } from "../index.js";
import { decodeOutputEvent, PreToolResult_Decision, type CallHookRequest } from "../wire/index.js";

// Issue 10 items 8 and 10, mirroring upstream's hook_router_test.py (google-antigravity/
// antigravity-sdk-python, connections/local/hook_router_test.py): callHookRequest frames exactly as
// a harness sends them (camelCase JSON, enum names), decoded by the real codec, answered by the
// public HookRunner.

/** A callHookRequest frame as the harness writes it. */
function request(type: string, args: Record<string, unknown>): CallHookRequest {
  const event = decodeOutputEvent(
    JSON.stringify({ callHookRequest: { requestId: "r1", name: type, type: `LIFECYCLE_HOOK_${type}`, ...args } }),
  );
  if (event.event.case !== "callHookRequest") throw new Error("not a callHookRequest");
  return event.event.value;
}

function recording<K extends keyof Hook>(method: K, seen: unknown[], answer?: unknown): Hook {
  return {
    [method]: (value: unknown) => {
      seen.push(value);
      return answer;
    },
  } as Hook;
}

describe("PRE_TOOL hooks see the SDK's spelling (item 8; hook_router._handle_pre_tool)", () => {
  it("translates invoke_subagent to start_subagent, so a hook matching start_subagent fires (test_handle_pre_tool_tool_name_translation)", async () => {
    const seen: HookToolCall[] = [];
    const runner = new HookRunner([
      {
        preToolCall: (call) => {
          seen.push(call);
          return call.name === "start_subagent" ? { allow: false, reason: "no subagents here" } : undefined;
        },
      },
    ]);
    const response = await runner.handle(
      request("PRE_TOOL", {
        preToolArgs: {
          toolName: "invoke_subagent",
          argumentsJson: "{}",
          callId: "c1",
          trajectoryId: "t",
          stepIndex: 4,
        },
      }),
    );
    expect(seen.map((c) => c.name)).toEqual(["start_subagent"]);
    expect(response.result).toEqual({
      case: "preToolResult",
      value: { decision: PreToolResult_Decision.DENY, reason: "no subagents here" },
    });
  });

  it("keeps MCP tool names as they are, even one spelled like a harness tool (test_handle_pre_tool_mcp_server_name)", async () => {
    const seen: HookToolCall[] = [];
    const runner = new HookRunner([recording("preToolCall", seen)]);
    await runner.handle(
      request("PRE_TOOL", {
        preToolArgs: { toolName: "pirate_multiply", argumentsJson: '{"a": 5, "b": 7}', serverName: "pirate_math" },
      }),
    );
    await runner.handle(
      request("PRE_TOOL", { preToolArgs: { toolName: "invoke_subagent", argumentsJson: "{}", serverName: "agents" } }),
    );
    expect(seen.map((c) => [c.name, c.serverName, c.args])).toEqual([
      ["pirate_multiply", "pirate_math", { a: 5, b: 7 }],
      ["invoke_subagent", "agents", {}],
    ]);
  });

  it("normalises file:// and cns:// paths of the arguments and sets canonicalPath (test_handle_pre_tool_normalizes_wire_paths)", async () => {
    const seen: HookToolCall[] = [];
    const runner = new HookRunner([recording("preToolCall", seen)]);
    await runner.handle(
      request("PRE_TOOL", {
        preToolArgs: { toolName: "view_file", argumentsJson: '{"file_path": "file:///home/user/foo.py"}' },
      }),
    );
    await runner.handle(
      request("PRE_TOOL", {
        preToolArgs: {
          toolName: "replace_file_content",
          argumentsJson: '{"TargetFile": "file:///home/user/my%20bar.py"}',
        },
      }),
    );
    await runner.handle(
      request("PRE_TOOL", {
        preToolArgs: {
          toolName: "create_file",
          argumentsJson: '{"path": "cns://el-d/home/user/k.md", "contents": "file:///not/a/path/key"}',
        },
      }),
    );
    expect(seen.map((c) => [c.args, c.canonicalPath])).toEqual([
      [{ file_path: "/home/user/foo.py" }, "/home/user/foo.py"],
      [{ TargetFile: "/home/user/my bar.py" }, "/home/user/my bar.py"],
      [{ path: "/cns/el-d/home/user/k.md", contents: "file:///not/a/path/key" }, "/cns/el-d/home/user/k.md"],
    ]);
  });

  it("answers modifiedArgs merged over the normalised arguments (test_handle_pre_tool_modified_args)", async () => {
    const runner = new HookRunner([{ preToolCall: () => ({ allow: true, modifiedArgs: { start_line: 2 } }) }]);
    const response = await runner.handle(
      request("PRE_TOOL", {
        preToolArgs: { toolName: "view_file", argumentsJson: '{"file_path": "file:///w/a.txt"}' },
      }),
    );
    // 0.1.19: PreToolResult.modified_args, a genai.Struct (upstream localharness.proto @257f843a).
    expect(response.result).toMatchObject({ case: "preToolResult", value: { decision: PreToolResult_Decision.ALLOW } });
    const value =
      response.result?.case === "preToolResult"
        ? (response.result.value as { modifiedArgs?: Parameters<typeof plainOfStruct>[0] })
        : undefined;
    expect(value?.modifiedArgs === undefined ? undefined : plainOfStruct(value.modifiedArgs)).toEqual({
      file_path: "/w/a.txt",
      start_line: 2,
    });
  });

  it("passes arguments text that is not JSON through as text, and no arguments as {} (test_handle_pre_tool_no_args)", async () => {
    const seen: HookToolCall[] = [];
    const runner = new HookRunner([recording("preToolCall", seen)]);
    await runner.handle(request("PRE_TOOL", { preToolArgs: { toolName: "run_command" } }));
    await runner.handle(request("PRE_TOOL", { preToolArgs: { toolName: "run_command", argumentsJson: "not json" } }));
    expect(seen.map((c) => c.args)).toEqual([{}, "not json"]);
  });
});

describe("POST_TOOL and ON_TOOL_ERROR (items 8 and 10; hook_router._handle_post_tool, _handle_on_tool_error)", () => {
  it("gives a failed call its error and no result, even when the harness sent result text (test_extract_bypassed_when_pta_error_present)", async () => {
    const seen: HookToolResult[] = [];
    const runner = new HookRunner([recording("postToolCall", seen)]);
    await runner.handle(
      request("POST_TOOL", {
        postToolArgs: { toolName: "list_directory", result: '{"entries": []}', error: "Command failed" },
      }),
    );
    await runner.handle(
      request("POST_TOOL", { postToolArgs: { toolName: "run_command", error: "command not found" } }),
    );
    expect(seen).toEqual([
      { trajectoryId: "", id: "", name: "list_directory", error: "Command failed" },
      { trajectoryId: "", id: "", name: "run_command", error: "command not found" },
    ]);
    expect(seen.some((r) => "result" in r)).toBe(false);
  });

  it("keeps the parsed result of a call that succeeded, under the SDK tool name (test_handle_post_tool, test_extract_invoke_subagent)", async () => {
    const seen: HookToolResult[] = [];
    const runner = new HookRunner([recording("postToolCall", seen)]);
    await runner.handle(
      request("POST_TOOL", {
        postToolArgs: {
          toolName: "run_command",
          result: '{"output": "hi"}',
          callId: "c2",
          trajectoryId: "t",
          stepIndex: 3,
        },
      }),
    );
    await runner.handle(request("POST_TOOL", { postToolArgs: { toolName: "invoke_subagent", result: "done" } }));
    expect(seen).toEqual([
      { trajectoryId: "t", stepIndex: 3, id: "c2", name: "run_command", result: { output: "hi" } },
      { trajectoryId: "", id: "", name: "start_subagent", result: "done" },
    ]);
  });

  it("keeps a result that is not a JSON object as the harness's text (test_handle_post_tool_mcp, test_extract_non_dict_json_returns_fallback_str, test_extract_null_results_returns_fallback_str)", async () => {
    const seen: HookToolResult[] = [];
    const runner = new HookRunner([recording("postToolCall", seen)]);
    await runner.handle(
      request("POST_TOOL", {
        postToolArgs: { toolName: "pirate_multiply", serverName: "pirate_math", result: "35", callId: "call_post" },
      }),
    );
    await runner.handle(
      request("POST_TOOL", { postToolArgs: { toolName: "list_directory", result: '["just", "a", "list"]' } }),
    );
    await runner.handle(
      request("POST_TOOL", { postToolArgs: { toolName: "list_directory", result: '{"results": null}' } }),
    );
    await runner.handle(
      request("POST_TOOL", { postToolArgs: { toolName: "list_directory", result: '{"results": [not valid json...' } }),
    );
    expect(seen.map((r) => r.result)).toEqual([
      "35",
      '["just", "a", "list"]',
      '{"results": null}',
      '{"results": [not valid json...',
    ]);
    expect(seen[0]).toMatchObject({ name: "pirate_multiply", serverName: "pirate_math", id: "call_post" });
  });

  it("answers emptyResult when an on-tool-error hook throws, so the tool's own error stands (hook_runner_test.py test_dispatch_on_tool_error_exception)", async () => {
    const runner = new HookRunner([
      {
        onToolError: () => {
          throw new Error("Hook failed");
        },
      },
    ]);
    const answer = await runner.handle(
      request("ON_TOOL_ERROR", { onToolErrorArgs: { toolName: "edit_file", errorMessage: "no match" } }),
    );
    expect(answer.result).toEqual({ case: "emptyResult", value: {} });
  });

  it('names errors by SDK name, reads an empty message as "Tool failed" and sends a replacement trimmed, blank ones not at all', async () => {
    const seen: HookToolError[] = [];
    let replacement = "   ";
    const runner = new HookRunner([
      {
        onToolError: (error) => {
          seen.push(error);
          return replacement;
        },
      },
    ]);
    const blank = await runner.handle(
      request("ON_TOOL_ERROR", { onToolErrorArgs: { toolName: "invoke_subagent", errorMessage: "" } }),
    );
    replacement = "  try view_file instead \n";
    const replaced = await runner.handle(
      request("ON_TOOL_ERROR", {
        onToolErrorArgs: { toolName: "edit_file", errorMessage: "no match", serverName: "" },
      }),
    );
    expect(seen.map((e) => [e.name, e.message])).toEqual([
      ["start_subagent", "Tool failed"],
      ["edit_file", "no match"],
    ]);
    expect(blank.result).toEqual({ case: "emptyResult", value: {} });
    expect(replaced.result).toEqual({
      case: "onToolErrorResult",
      value: { customErrorMessage: "try view_file instead" },
    });
  });
});

describe("ON_COMPACTION (item 10; hook_router._handle_on_compaction)", () => {
  it("reads an empty summary as upstream's default and keeps a given one (test_handle_on_compaction, test_handle_on_compaction_default_summary)", async () => {
    const seen: CompactionEvent[] = [];
    const runner = new HookRunner([recording("onCompaction", seen)]);
    const answer = await runner.handle(
      request("ON_COMPACTION", { onCompactionArgs: { trajectoryId: "traj-def", stepIndex: 2, summary: "" } }),
    );
    await runner.handle(
      request("ON_COMPACTION", {
        onCompactionArgs: { trajectoryId: "traj-123", stepIndex: 5, summary: "Custom compaction summary" },
      }),
    );
    await runner.handle(request("ON_COMPACTION", {}));
    expect(DEFAULT_COMPACTION_SUMMARY).toBe("Context compaction");
    expect(seen).toEqual([
      { trajectoryId: "traj-def", stepIndex: 2, summary: "Context compaction" },
      { trajectoryId: "traj-123", stepIndex: 5, summary: "Custom compaction summary" },
      { trajectoryId: "", stepIndex: 0, summary: "Context compaction" },
    ]);
    expect(answer).toEqual({ requestId: "r1", result: { case: "emptyResult", value: {} } });
  });
});
