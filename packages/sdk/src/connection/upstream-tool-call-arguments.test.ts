import { stepUpdateFromJson } from "@antigravity-ts/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { stepFromUpdate } from "../mapping/step-from-update.js";
import type { Step } from "../step.js";
import { defineTool } from "../tools/tool.js";
import { ToolRunner } from "../tools/tool-runner.js";
import { createFakeHarnessTransport, type FakeHarnessTransport } from "../transport/in-memory-harness.js";
import { TrajectoryStateUpdate_State } from "../wire/index.js";
import { createHarnessConnection } from "./harness-connection.js";

// The cases of upstream's connections/local/local_connection_test.py that are new since 0.1.14 and
// test how a tool call's arguments are read from the wire
// (Stars1233/antigravity-sdk-python google/antigravity/connections/local/local_connection_test.py
// @238766a385e2087fb98238d112a13fc9efc28b29, against lovicho/antigravity-sdk-python's 0.1.14 file):
// `_handle_tool_call` (a client tool call, `toolCall` frame, §7) and `LocalConnectionStep.from_dict`
// for `customTool` / `mcpTool` step updates (§6.4). Every frame here is JSON exactly as a harness
// writes it, decoded by the real codec. `ToolCall.arguments` is a genai.Struct (localharness.proto:
// `{fields: [{name, value: {stringValue | numberValue | …}}]}`), not google.protobuf.Struct.
//
// Skipped, Python-only (6): from_dict's hand-built dict shapes that no harness frame can carry —
// test_local_connection_step_from_dict_mcp_tool_arguments_dict, _mcp_tool_args_dict and
// _mcp_tool_arguments_precedence (ActionMcpTool has no `arguments` field in either era's proto),
// _custom_tool_nested_arguments_dict and _custom_tool_nested_args_dict (a plain dict or an `args`
// key where the wire has a genai.Struct), _custom_tool_direct_dict (call fields directly under
// `custom_tool`, where the wire has `tool_call`).
//
// Ported with the call nested as the wire nests it (ActionCustomTool.tool_call), where upstream's
// dict puts the fields directly under `custom_tool`: _custom_tool_invalid_json,
// _custom_tool_arguments_precedence, _non_dict_json_{number,null,string,list}.

const SOURCE = "Stars1233 local_connection_test.py @238766a3";
const T = "traj-main";

let transport: FakeHarnessTransport | undefined;

afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

/**
 * Sends one raw `toolCall` frame in a turn and returns what the SDK made of it: the arguments its
 * client tool was called with, and the steps the call produced.
 */
async function clientCall(toolCall: Record<string, unknown>): Promise<{ ran: unknown[]; steps: Step[] }> {
  const ran: unknown[] = [];
  const name = String(toolCall["name"]);
  const tools = new ToolRunner([
    defineTool({
      name,
      description: "Records its arguments",
      call: (args: unknown) => {
        ran.push(args);
        return "ok";
      },
    }),
  ]);
  transport = createFakeHarnessTransport(async (harness) => {
    await harness.readInit();
    harness.respondInit({ cascadeId: T });
    await harness.expect("userInput");
    harness.sendRaw(JSON.stringify({ toolCall }));
    expect(await harness.expect("toolResponse")).toMatchObject({ id: toolCall["id"], responseJson: '{"result":"ok"}' });
    harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
  });
  const connection = await createHarnessConnection({ transport, config: {}, timeoutMs: 5_000, tools });
  await connection.send("go");
  const steps: Step[] = [];
  for await (const step of connection.receiveSteps()) steps.push(step);
  await connection.disconnect();
  return { ran, steps };
}

/** genai.Struct JSON of `{query: "SELECT 1", limit: 10}` as a harness writes it. */
const QUERY_STRUCT = {
  fields: [
    { name: "query", value: { stringValue: "SELECT 1" } },
    { name: "limit", value: { numberValue: 10 } },
  ],
};

describe(`_handle_tool_call: a client tool call's arguments (${SOURCE})`, () => {
  it("test_handle_tool_call_queues_step: the call is a TOOL_CALL step from the model to the environment", async () => {
    const { steps } = await clientCall({ id: "call_123", name: "view_file", argumentsJson: '{"path": "README.md"}' });
    expect(steps[0]).toMatchObject({
      id: "call_123",
      type: "TOOL_CALL",
      source: "MODEL",
      target: "ENVIRONMENT",
      status: "ACTIVE",
      toolCalls: [{ id: "call_123", name: "view_file" }],
    });
  });

  it("test_handle_tool_call_with_proto_arguments_struct: the genai.Struct `arguments` is read", async () => {
    const { ran, steps } = await clientCall({ id: "call_456", name: "execute_query", arguments: QUERY_STRUCT });
    expect(ran).toEqual([{ query: "SELECT 1", limit: 10 }]);
    expect(steps[0]?.toolCalls).toEqual([
      expect.objectContaining({ id: "call_456", args: { query: "SELECT 1", limit: 10 } }),
    ]);
  });

  it("test_handle_tool_call_arguments_precedence_over_arguments_json: the Struct wins", async () => {
    const { ran } = await clientCall({
      id: "call_prec",
      name: "prec_tool",
      arguments: { fields: [{ name: "mode", value: { stringValue: "structured" } }] },
      argumentsJson: '{"mode": "stringified"}',
    });
    expect(ran).toEqual([{ mode: "structured" }]);
  });

  it.each([
    ["test_handle_tool_call_invalid_json_fallback", "{invalid_json}"],
    ["test_handle_tool_call_non_dict_json_number", "123"],
    ["test_handle_tool_call_non_dict_json_null", "null"],
    ["test_handle_tool_call_non_dict_json_string", '"string"'],
    ["test_handle_tool_call_non_dict_json_list", "[1, 2]"],
  ])("%s: arguments that are not a JSON object give {}", async (_name, argumentsJson) => {
    const { ran, steps } = await clientCall({ id: "call_x", name: "scalar_tool", argumentsJson });
    expect(ran).toEqual([{}]);
    expect(steps[0]?.toolCalls[0]?.args).toEqual({});
  });

  it("test_handle_tool_call_empty_arguments_fallback: neither field gives {}", async () => {
    const { ran } = await clientCall({ id: "call_000", name: "no_args_tool" });
    expect(ran).toEqual([{}]);
  });

  // Upstream queues the call as step index 1; here a call's steps take indices from 50,000
  // (docs/upstream-differences.md, "steps of client tool calls").
  it("test_handle_tool_call_populates_trajectory_id: the call's trajectory is its step's", async () => {
    const { steps } = await clientCall({
      id: "call_abc",
      name: "run_command",
      argumentsJson: '{"command": "ls"}',
      trajectoryId: "traj_sub_123",
    });
    expect(steps[0]).toMatchObject({ id: "call_abc", trajectoryId: "traj_sub_123", stepIndex: 50_000 });
    expect(steps[0]?.toolCalls).toEqual([
      expect.objectContaining({ id: "call_abc", name: "run_command", args: { command: "ls" } }),
    ]);
  });
});

/** The tool calls of a step update frame. */
const callsOf = (stepUpdate: Record<string, unknown>) =>
  stepFromUpdate(stepUpdateFromJson({ trajectoryId: "t", stepIndex: 1, state: "STATE_DONE", ...stepUpdate })).toolCalls;

describe(`LocalConnectionStep.from_dict: customTool and mcpTool steps (${SOURCE})`, () => {
  it("test_local_connection_step_from_dict_custom_tool_wire_struct: a genai.Struct `arguments` is unpacked", () => {
    expect(
      callsOf({ customTool: { toolCall: { id: "tc_wire", name: "query_tool", arguments: QUERY_STRUCT } } }),
    ).toEqual([expect.objectContaining({ id: "tc_wire", name: "query_tool", args: { query: "SELECT 1", limit: 10 } })]);
  });

  it("test_local_connection_step_from_dict_custom_tool_arguments_precedence: the Struct wins over argumentsJson", () => {
    const arguments_ = { fields: [{ name: "mode", value: { stringValue: "structured" } }] };
    expect(
      callsOf({
        customTool: {
          toolCall: {
            id: "tc_prec",
            name: "prec_tool",
            arguments: arguments_,
            argumentsJson: '{"mode": "stringified"}',
          },
        },
      })[0]?.args,
    ).toEqual({ mode: "structured" });
  });

  it("test_local_connection_step_from_dict_custom_tool_nested_arguments_json: argumentsJson is parsed", () => {
    expect(
      callsOf({
        customTool: { toolCall: { id: "tc_1", name: "search_docs", argumentsJson: '{"query": "test query"}' } },
      }),
    ).toEqual([expect.objectContaining({ id: "tc_1", name: "search_docs", args: { query: "test query" } })]);
  });

  it.each([
    ["test_local_connection_step_from_dict_custom_tool_invalid_json", "{not_valid_json}"],
    ["test_local_connection_step_from_dict_non_dict_json_number", "123"],
    ["test_local_connection_step_from_dict_non_dict_json_null", "null"],
    ["test_local_connection_step_from_dict_non_dict_json_string", '"string"'],
    ["test_local_connection_step_from_dict_non_dict_json_list", "[1, 2]"],
  ])("%s: a custom call's arguments that are not a JSON object give {}", (_name, argumentsJson) => {
    const calls = callsOf({ customTool: { toolCall: { id: "tc_scalar", name: "scalar_tool", argumentsJson } } });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args).toEqual({});
  });

  it("test_local_connection_step_from_dict_mcp_tool_arguments_json: an MCP call's argumentsJson is parsed", () => {
    expect(
      callsOf({ mcpTool: { serverName: "my_server", toolName: "my_tool", argumentsJson: '{"param1": "val1"}' } }),
    ).toEqual([expect.objectContaining({ name: "my_tool", serverName: "my_server", args: { param1: "val1" } })]);
  });

  it("test_local_connection_step_from_dict_mcp_tool_invalid_json: invalid JSON gives {}", () => {
    const calls = callsOf({
      mcpTool: { serverName: "my_server", toolName: "my_tool", argumentsJson: "{invalid_json}" },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args).toEqual({});
  });
});
