import { describe, expect, it } from "vitest";
import type { StepUpdate } from "../gen/antigravity/localharness/localharness_pb.js";
import { StepType } from "../step.js";
import { stepFromUpdate } from "./step-from-update.js";
import { toolCallsFromUpdate } from "./tool-calls-from-update.js";
import { normalizePathArguments, normalizeWirePath } from "./file-uri.js";
import { stepUpdateFromJson } from "@antigravity-ts/test-kit";

/** Decodes a stepUpdate JSON object through the real codec. */
function fromFrame(stepUpdate: Record<string, unknown>): StepUpdate {
  return stepUpdateFromJson({ trajectoryId: "t", stepIndex: 4, ...stepUpdate });
}

describe("built-in actions (§11.1 names, §11.2 payloads)", () => {
  it.each([
    [
      "listDirectory",
      {
        directoryPath: "/w",
        results: [
          { name: "a.txt", fileSize: "12" },
          { name: "src", isDirectory: true },
        ],
      },
      "list_directory",
      {
        directory_path: "/w",
        results: [
          { name: "a.txt", file_size: "12" },
          { name: "src", is_directory: true },
        ],
      },
    ],
    [
      "searchDirectory",
      { directoryPath: "/w", query: "TODO", numResults: 3 },
      "search_directory",
      { directory_path: "/w", query: "TODO", num_results: 3 },
    ],
    [
      "findFile",
      { directoryPath: "/w", query: "*.ts", output: "a.ts" },
      "find_file",
      { directory_path: "/w", pattern: "*.ts", output: "a.ts" },
    ],
    [
      "viewFile",
      { filePath: "/w/a.ts", startLine: 1, endLine: 9, contentOffset: 0 },
      "view_file",
      { file_path: "/w/a.ts", start_line: 1, end_line: 9, content_offset: 0 },
    ],
    ["createFile", { filePath: "/w/n.txt", contents: "hi" }, "create_file", { file_path: "/w/n.txt", contents: "hi" }],
    [
      "editFile",
      {
        filePath: "/w/a.ts",
        diffBlock: [
          {
            startLine: 2,
            endLine: 3,
            lines: [
              { text: "x", action: "LINE_ACTION_INSERT" },
              { text: "y", action: 2 },
            ],
          },
        ],
      },
      "edit_file",
      {
        file_path: "/w/a.ts",
        diff_block: [
          {
            start_line: 2,
            end_line: 3,
            lines: [
              { text: "x", action: "LINE_ACTION_INSERT" },
              { text: "y", action: "LINE_ACTION_DELETE" },
            ],
          },
        ],
      },
    ],
    [
      "runCommand",
      { commandLine: "ls -la", workingDir: "/w", exitCode: 0, combinedOutput: "ok" },
      "run_command",
      { CommandLine: "ls -la", Cwd: "/w", exit_code: 0, combined_output: "ok" },
    ],
    ["invokeSubagent", {}, "start_subagent", {}],
    [
      "generateImage",
      { prompt: "a cat", imagePaths: ["/w/in.png"], imageName: "cat", aspectRatio: "1:1", outputPath: "/w/cat.png" },
      "generate_image",
      {
        prompt: "a cat",
        image_paths: ["/w/in.png"],
        image_name: "cat",
        aspect_ratio: "1:1",
        output_path: "/w/cat.png",
      },
    ],
    [
      "searchWeb",
      { query: "bun", domain: "example.com", summary: "s" },
      "search_web",
      { query: "bun", domain: "example.com", summary: "s" },
    ],
    [
      "readUrlContent",
      { url: "https://example.com", title: "T", summary: "S", contentPath: "/tmp/c.md" },
      "read_url_content",
      { url: "https://example.com", title: "T", summary: "S", content_path: "/tmp/c.md" },
    ],
    [
      "skillLookup",
      { operation: "OPERATION_LOOKUP_SKILLS", requestedSkillNames: ["haiku", "nope"], resolvedSkillNames: ["haiku"] },
      "skill_lookup",
      {
        operation: "OPERATION_LOOKUP_SKILLS",
        requested_skill_names: ["haiku", "nope"],
        resolved_skill_names: ["haiku"],
      },
    ],
    [
      "skillLookup",
      { operation: 1, errorMessage: "no skills" },
      "skill_lookup",
      { operation: "OPERATION_LIST_SKILLS", error_message: "no skills" },
    ],
    [
      "questionsRequest",
      { questions: [{ multipleChoice: { question: "Which?", choices: ["a", "b"], isMultiSelect: false } }] },
      "ask_question",
      { questions: [{ multiple_choice: { question: "Which?", choices: ["a", "b"], is_multi_select: false } }] },
    ],
  ])("%s → %s with snake_case args, action fields spelled as the model's arguments", (field, payload, name, args) => {
    const update = fromFrame({ [field]: payload });
    expect(toolCallsFromUpdate(update, "t:4")).toEqual([expect.objectContaining({ id: "t:4", name, args })]);
    const step = stepFromUpdate(update);
    expect(step.type).toBe(StepType.ToolCall);
    expect(step.toolCalls).toHaveLength(1);
    expect(step.toolCalls[0]?.id).toBe(step.id);
  });

  it("gives a FINISH step a finish tool call, as upstream does", () => {
    const step = stepFromUpdate(fromFrame({ finish: { outputString: '{"a":1}' } }));
    expect(step.type).toBe(StepType.Finish);
    expect(step.toolCalls).toEqual([{ id: "t:4", name: "finish", args: { output_string: '{"a":1}' } }]);
  });

  it("sets canonicalPath only for path-carrying actions", () => {
    const [run] = toolCallsFromUpdate(fromFrame({ runCommand: { commandLine: "ls" } }), "s");
    expect(run !== undefined && "canonicalPath" in run).toBe(false);
    expect(run !== undefined && "serverName" in run).toBe(false);
    expect(toolCallsFromUpdate(fromFrame({ createFile: { filePath: "rel/n.txt" } }), "s")[0]?.canonicalPath).toBe(
      "rel/n.txt",
    );
    expect(toolCallsFromUpdate(fromFrame({ listDirectory: { directoryPath: "/w" } }), "s")[0]?.canonicalPath).toBe(
      "/w",
    );
    expect(toolCallsFromUpdate(fromFrame({ generateImage: { outputPath: "/w/i.png" } }), "s")[0]?.canonicalPath).toBe(
      "/w/i.png",
    );
  });

  it("normalises path URIs in the args and in canonicalPath", () => {
    const [view] = toolCallsFromUpdate(fromFrame({ viewFile: { filePath: "file:///home/me/my%20notes.md" } }), "s");
    expect(view?.canonicalPath).toBe("/home/me/my notes.md");
    expect(view?.args).toEqual({ file_path: "/home/me/my notes.md" });
    const [list] = toolCallsFromUpdate(fromFrame({ listDirectory: { directoryPath: "cns://el-d/home/x" } }), "s");
    expect(list?.canonicalPath).toBe("/cns/el-d/home/x");
    expect(list?.args).toEqual({ directory_path: "/cns/el-d/home/x" });
  });

  it("takes the first built-in field in upstream order when several are set", () => {
    const [call] = toolCallsFromUpdate(
      fromFrame({ viewFile: { filePath: "/a" }, createFile: { filePath: "/b" } }),
      "s",
    );
    expect(call?.name).toBe("create_file");
  });

  // Upstream's BUILTIN_TOOL_PROTO_FIELDS order, then questions_request (§11.1).
  const upstreamOrder = [
    ["createFile", "create_file"],
    ["editFile", "edit_file"],
    ["findFile", "find_file"],
    ["listDirectory", "list_directory"],
    ["runCommand", "run_command"],
    ["searchDirectory", "search_directory"],
    ["viewFile", "view_file"],
    ["invokeSubagent", "start_subagent"],
    ["generateImage", "generate_image"],
    ["searchWeb", "search_web"],
    ["readUrlContent", "read_url_content"],
    ["finish", "finish"],
    ["questionsRequest", "ask_question"],
  ] as const;

  it("with every built-in field set, names the call by each in upstream order as the earlier ones go", () => {
    const names: string[] = [];
    for (let first = 0; first < upstreamOrder.length; first++) {
      const update = Object.fromEntries(upstreamOrder.slice(first).map(([field]) => [field, {}]));
      names.push(toolCallsFromUpdate(fromFrame(update), "s")[0]?.name ?? "(none)");
    }
    expect(names).toEqual(upstreamOrder.map(([, name]) => name));
  });

  it.each(upstreamOrder)("a step with only %s set is a tool step named %s", (field, name) => {
    const step = stepFromUpdate(fromFrame({ [field]: {} }));
    expect(step.type).toBe(field === "finish" ? StepType.Finish : StepType.ToolCall);
    expect(step.toolCalls.map((call) => call.name)).toEqual([name]);
  });
});

describe("mcpTool", () => {
  it("uses toolName, serverName and the parsed argumentsJson; the id is the step id", () => {
    const step = stepFromUpdate(
      fromFrame({
        mcpTool: { serverName: "fs", toolName: "read", argumentsJson: '{"path":"file:///etc/hosts","n":2}' },
      }),
    );
    expect(step.toolCalls).toEqual([
      { id: "t:4", name: "read", serverName: "fs", args: { path: "/etc/hosts", n: 2 }, canonicalPath: "/etc/hosts" },
    ]);
  });

  it.each([
    ["invalid JSON", "{not json"],
    ["a JSON array", "[1,2]"],
    ["a JSON number", "5"],
    ["JSON null", "null"],
    ["blank text", "   "],
    ["no argumentsJson", undefined],
  ])("gives {} args for %s", (_, argumentsJson) => {
    const [call] = toolCallsFromUpdate(
      fromFrame({
        mcpTool: { serverName: "fs", toolName: "read", ...(argumentsJson === undefined ? {} : { argumentsJson }) },
      }),
      "s",
    );
    expect(call?.args).toEqual({});
  });

  it("keeps serverName even when empty", () => {
    expect(toolCallsFromUpdate(fromFrame({ mcpTool: { toolName: "x" } }), "s")[0]?.serverName).toBe("");
  });

  it("drops a call without a tool name but the step stays TOOL_CALL", () => {
    const step = stepFromUpdate(fromFrame({ mcpTool: { serverName: "fs" } }));
    expect(step.type).toBe(StepType.ToolCall);
    expect(step.toolCalls).toEqual([]);
  });

  it("loses to a built-in action on the same step", () => {
    expect(toolCallsFromUpdate(fromFrame({ mcpTool: { toolName: "m" }, runCommand: {} }), "s")[0]?.name).toBe(
      "run_command",
    );
  });
});

describe("customTool", () => {
  it("takes name, id and args from customTool.toolCall", () => {
    const step = stepFromUpdate(
      fromFrame({ customTool: { toolCall: { id: "c1", name: "add", argumentsJson: '{"a":2,"b":3}' } } }),
    );
    expect(step.toolCalls).toEqual([{ id: "c1", name: "add", args: { a: 2, b: 3 } }]);
  });

  it("falls back to the step id when the call has no id", () => {
    expect(toolCallsFromUpdate(fromFrame({ customTool: { toolCall: { name: "add" } } }), "t:4")[0]?.id).toBe("t:4");
  });

  it("normalises TargetFile like any path key", () => {
    const [call] = toolCallsFromUpdate(
      fromFrame({ customTool: { toolCall: { id: "c", name: "w", argumentsJson: '{"TargetFile":"file:///x/y"}' } } }),
      "s",
    );
    expect(call).toMatchObject({ canonicalPath: "/x/y", args: { TargetFile: "/x/y" } });
  });

  it("has no call without a toolCall, and loses to mcpTool", () => {
    expect(toolCallsFromUpdate(fromFrame({ customTool: {} }), "s")).toEqual([]);
    expect(
      toolCallsFromUpdate(fromFrame({ customTool: { toolCall: { name: "c" } }, mcpTool: { toolName: "m" } }), "s")[0]
        ?.name,
    ).toBe("m");
  });
});

describe("normalizeWirePath (§6.4)", () => {
  it.each([
    ["file:///home/me/a.txt", "/home/me/a.txt"],
    ["file://localhost/home/me/a.txt", "/home/me/a.txt"],
    ["file:/home/me/a.txt", "/home/me/a.txt"],
    ["FILE:///Upper/Case", "/Upper/Case"],
    ["file:///a%20b/c%2Bd", "/a b/c+d"],
    ["file:///bad%zzescape", "/bad%zzescape"],
    ["file:///C:/Users/me/x.txt", "C:/Users/me/x.txt"],
    ["file:///a/b?query#frag", "/a/b"],
    ["file://", "/"],
    ["cns://cell/rest/of/path", "/cns/cell/rest/of/path"],
    ["cns://cell", "/cns/cell"],
    ["/already/absolute", "/already/absolute"],
    ["relative/path.txt", "relative/path.txt"],
    ["C:\\Windows\\path", "C:\\Windows\\path"],
    ["https://example.com/x", "https://example.com/x"],
    ["", ""],
  ])("%s → %s", (input, expected) => {
    expect(normalizeWirePath(input)).toBe(expected);
  });

  it("normalises only string values of path keys, in place", () => {
    const args: Record<string, unknown> = {
      path: "file:///p",
      file_path: "cns://c/f",
      other: "file:///o",
      output_path: 5,
    };
    expect(normalizePathArguments(args)).toBe("/p");
    expect(args).toEqual({ path: "/p", file_path: "/cns/c/f", other: "file:///o", output_path: 5 });
    expect(normalizePathArguments({ command_line: "ls" })).toBeUndefined();
  });
});
