import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { ToolRunner } from "../tools/tool-runner.js";
import { defineTool, type Tool } from "../tools/tool.js";
import { AgentBehavior } from "../wire/index.js";
import { BuiltinTool } from "./builtin-tools.js";
import { subagentOnlyTools } from "./custom-subagents.js";
import { buildHarnessConfig, type HarnessConfigOptions } from "./harness-config.js";

// Mirrors upstream's tests of the static subagent configuration
// (google/antigravity/connections/local/local_connection_test.py, types_test.py).

const tool = (name: string): Tool => defineTool({ name, description: `${name} tool`, call: () => "ok" });
const build = (options: HarnessConfigOptions, tools: readonly Tool[] = [], mainTools: readonly Tool[] = tools) => {
  const only = subagentOnlyTools(options.customSubagents ?? [], mainTools);
  return buildHarnessConfig(options, {
    tools: new ToolRunner([...mainTools, ...only]),
    subagentTools: only.map((t) => t.name),
  });
};
const invalid = (run: () => unknown, message: RegExp): void => {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(SdkError);
  expect((error as SdkError).code).toBe(ErrorCode.InvalidArgument);
  expect((error as SdkError).message).toMatch(message);
};

describe("customSubagents", () => {
  it("builds the CustomAgent: name, description, instructions, built-ins and tools (test_builds_subagents_proto_correctly)", () => {
    const mine = tool("my_custom_tool");
    const another = tool("another_one");
    const config = build(
      {
        customSubagents: [
          {
            name: "test_helper",
            description: "A helpful subagent for testing",
            systemInstructions: "Always say hello.",
            capabilities: { enabledTools: [BuiltinTool.EditFile] },
            tools: [mine, "another_one"],
          },
        ],
      },
      [mine, another],
    );
    expect(config.customSubagents).toHaveLength(1);
    const agent = config.customSubagents[0];
    expect(agent?.name).toBe("test_helper");
    expect(agent?.description).toBe("A helpful subagent for testing");
    expect(agent?.harnessSideTools?.fileEdit?.enabled).toBe(true);
    expect(agent?.harnessSideTools?.viewFile?.enabled).toBe(false);
    expect(agent?.harnessSideTools?.subagents?.enabled).toBe(false);
    expect(agent?.tools.map((t) => t.name)).toEqual(["my_custom_tool", "another_one"]);
    // A name the runner knows gets that tool's declaration.
    expect(agent?.tools[1]?.description).toBe("another_one tool");
    expect(agent?.systemInstructions?.type).toEqual({
      case: "appended",
      value: expect.objectContaining({
        appendedSections: [
          expect.objectContaining({ title: "user_system_instructions", content: "Always say hello." }),
        ],
      }),
    });
    expect(agent?.agentBehavior).toBe(AgentBehavior.AUTONOMOUS);
  });

  it("sends templated sections, a custom identity and custom instructions as upstream", () => {
    const config = build({
      customSubagents: [
        {
          name: "templated_helper",
          description: "d",
          systemInstructions: { identity: "Subagent identity", sections: [{ title: "Section1", content: "Content1" }] },
        },
        {
          name: "custom_helper",
          description: "d",
          systemInstructions: { custom: "Fully custom subagent instructions." },
        },
      ],
    });
    const [templated, custom] = config.customSubagents;
    expect(templated?.systemInstructions?.type.case).toBe("appended");
    const appended = templated?.systemInstructions?.type.value as {
      customIdentity?: string;
      appendedSections: { title?: string; content?: string }[];
    };
    expect(appended.customIdentity).toBe("Subagent identity");
    expect(appended.appendedSections.map((s) => [s.title, s.content])).toEqual([["Section1", "Content1"]]);
    expect(custom?.systemInstructions?.type.case).toBe("custom");
    const parts = (custom?.systemInstructions?.type.value as { part: { part: { case: string; value: unknown } }[] })
      .part;
    expect(parts.map((p) => p.part.value)).toEqual(["Fully custom subagent instructions."]);
  });

  it("defaults to the read-only built-ins and sets the behaviour (test_subagent_agent_behavior_config_produces_valid_proto)", () => {
    const config = build({
      customSubagents: [
        { name: "reader", description: "d" },
        { name: "interactive_subagent", description: "d", capabilities: { agentBehavior: "interactive" } },
      ],
    });
    const [reader, interactive] = config.customSubagents;
    const on = (name: string): boolean =>
      (reader?.harnessSideTools as unknown as Record<string, { enabled?: boolean }>)[name]?.enabled === true;
    // 0.1.19's read_only(): without list_directory, with schedule (and manage_task, its pair).
    expect(["grepSearch", "find", "viewFile", "readUrlContent", "schedule", "manageTask"].every(on)).toBe(true);
    expect(["listDir", "writeToFile", "fileEdit", "runCommand", "subagents", "userQuestions"].some(on)).toBe(false);
    expect(interactive?.agentBehavior).toBe(AgentBehavior.INTERACTIVE);
    // Capabilities without tool lists enable the default built-ins (upstream resolve_active_tools).
    expect(interactive?.harnessSideTools?.runCommand?.enabled).toBe(true);
    expect(interactive?.harnessSideTools?.listDir?.enabled).toBe(false);
  });

  it("pins a subagent's model by name only, and refuses a blank one (upstream 0.1.18 SubagentConfig.model, _build_custom_subagents_protos)", () => {
    const config = build({
      customSubagents: [
        { name: "researcher", description: "d", model: "gemini-2.5-pro" },
        { name: "plain", description: "d" },
      ],
    });
    expect(config.customSubagents[0]?.model).toMatchObject({ name: "gemini-2.5-pro", types: [] });
    expect(config.customSubagents[0]?.model?.endpoint.case).toBeUndefined();
    expect(config.customSubagents[1]?.model).toBeUndefined();
    invalid(
      () => build({ customSubagents: [{ name: "x", description: "d", model: " " }] }),
      /model must be a non-empty model name/,
    );
  });

  it("enables nested delegation and scopes it (test_build_custom_subagents_protos_nested_subagent_enabled)", () => {
    const config = build({
      customSubagents: [
        {
          name: "researcher",
          description: "Does research",
          capabilities: { enabledTools: [BuiltinTool.StartSubagent], allowedSubagents: ["fact_checker"] },
        },
        { name: "fact_checker", description: "Checks" },
      ],
    });
    const researcher = config.customSubagents[0];
    expect(researcher?.harnessSideTools?.subagents?.enabled).toBe(true);
    expect(researcher?.harnessSideTools?.subagents?.allowedSubagents).toEqual(["fact_checker"]);
    expect(researcher?.harnessSideTools?.fileEdit?.enabled).toBe(false);
  });

  it("keeps a subagent's own tools out of the main agent's (test_subagent_exclusive_tool_scoping)", () => {
    const main = tool("main_tool");
    const sub = tool("sub_tool");
    const config = build(
      { customSubagents: [{ name: "test_helper", description: "d", tools: [sub] }] },
      [main],
      [main],
    );
    expect(config.tools.map((t) => t.name)).toEqual(["main_tool"]);
    expect(config.customSubagents[0]?.tools.map((t) => t.name)).toEqual(["sub_tool"]);
    // A tool both have stays the main agent's too.
    const shared = build({ customSubagents: [{ name: "h", description: "d", tools: [main] }] }, [main], [main]);
    expect(shared.tools.map((t) => t.name)).toEqual(["main_tool"]);
    expect(shared.customSubagents[0]?.tools.map((t) => t.name)).toEqual(["main_tool"]);
  });

  it("passes names the SDK does not know as bare tools (test_subagent_string_named_tools_builds_tool_protos)", () => {
    const config = build({
      customSubagents: [{ name: "string_tool_helper", description: "d", tools: ["view_file", "code_search"] }],
    });
    expect(config.customSubagents[0]?.tools.map((t) => [t.name, t.description ?? ""])).toEqual([
      ["view_file", ""],
      ["code_search", ""],
    ]);
  });

  it("refuses an invalid tool, and two different tools with one name", () => {
    invalid(
      () =>
        build({ customSubagents: [{ name: "invalid_helper", description: "d", tools: [12345 as unknown as string] }] }),
      /Invalid tool type in subagent 'invalid_helper' tools list: 12345/,
    );
    invalid(
      () => build({ customSubagents: [{ name: "s", description: "d", tools: [tool("same")] }] }, [tool("same")]),
      /Duplicate custom tool name 'same'/,
    );
  });

  it("validates allowed names (test_local_agent_config_validates_*allowed_subagents*)", () => {
    const researcher = { name: "researcher", description: "researcher", systemInstructions: "research" };
    const ok = build({
      customSubagents: [researcher],
      capabilities: { subagents: { allowedSubagents: ["researcher"] } },
    });
    expect(ok.harnessSideTools?.subagents?.allowedSubagents).toEqual(["researcher"]);
    invalid(
      () =>
        build({ customSubagents: [researcher], capabilities: { subagents: { allowedSubagents: ["non_existent"] } } }),
      /Unknown subagent name.*non_existent/,
    );
    invalid(
      () =>
        build({
          customSubagents: [
            {
              name: "researcher",
              description: "d",
              capabilities: { enabledTools: [BuiltinTool.StartSubagent], allowedSubagents: ["ghost_agent"] },
            },
          ],
        }),
      /Unknown subagent name.*ghost_agent/,
    );
    invalid(
      () =>
        build({
          customSubagents: [
            {
              name: "r",
              description: "d",
              capabilities: { enabledTools: [BuiltinTool.ViewFile], allowedSubagents: [] },
            },
          ],
        }),
      /allowedSubagents cannot be specified when start_subagent is disabled/,
    );
    invalid(
      () =>
        build({
          customSubagents: [
            { name: "r", description: "d", capabilities: { enabledTools: [BuiltinTool.ViewFile], disabledTools: [] } },
          ],
        }),
      /mutually exclusive/,
    );
    invalid(() => build({ customSubagents: [researcher, researcher] }), /"researcher" is used twice/);
    invalid(() => build({ customSubagents: [{ name: " ", description: "d" }] }), /non-empty name/);
    invalid(
      () =>
        build({
          customSubagents: [{ name: "b", description: "d", capabilities: { agentBehavior: "lazy" as "autonomous" } }],
        }),
      /agentBehavior must be/,
    );
    // No subagents declared: allowedSubagents names the harness's own subagents, unchecked.
    expect(build({ capabilities: { subagents: { allowedSubagents: ["anything"] } } }).customSubagents).toEqual([]);
  });
});
