import { describe, expect, it } from "vitest";
import { HookRunner, ToolRunner } from "../connection/index.js";
import { allow, buildHarnessConfig, defineTool, ErrorCode, normalizeWorkspacePath, type Tool } from "../index.js";
import { toUserInput } from "../connection/user-input.js";

// Issue 10 items 11 and 13 in the core: workspace URIs normalised, appDataDir absolute, and the
// runtime checks JavaScript callers need where only the types protect.

const invalid = expect.objectContaining({ code: ErrorCode.InvalidArgument });
const directories = (config: ReturnType<typeof buildHarnessConfig>): string[] =>
  config.workspaces.map((w) =>
    w.workspaceType.case === "filesystemWorkspace" ? (w.workspaceType.value.directory ?? "") : "",
  );

describe("workspaces and appDataDir (upstream normalize_workspace_path, _validate_app_data_dir)", () => {
  it("normalises file:// and cns:// workspace URIs; keeps other schemes and relative paths for the runtime", () => {
    const config = buildHarnessConfig({
      workspaces: [
        "file:///home/me/my%20project",
        "cns://el-d/home/user/ws",
        "/cns/el-d/x",
        "/plain",
        "rel/dir",
        "gs://bucket/x",
      ],
    });
    expect(directories(config)).toEqual([
      "/home/me/my project",
      "/cns/el-d/home/user/ws",
      "/cns/el-d/x",
      "/plain",
      "rel/dir",
      "gs://bucket/x",
    ]);
    const resolved = (p: string): string => `/resolved/${p}`;
    expect(
      ["file:///a", "cns://c/b", "x", "C:\\w", "s3://b/k"].map((p) => normalizeWorkspacePath(p, resolved)),
    ).toEqual(["/resolved//a", "/cns/c/b", "/resolved/x", "/resolved/C:\\w", "s3://b/k"]);
  });

  it("refuses empty workspaces and a workspaces value that is not an array", () => {
    expect(() => buildHarnessConfig({ workspaces: [""] })).toThrow(invalid);
    expect(() => buildHarnessConfig({ workspaces: [" "] })).toThrow(invalid);
    expect(() => buildHarnessConfig({ workspaces: "/w" as unknown as string[] })).toThrow(invalid);
    expect(() => buildHarnessConfig({ workspaces: [42 as unknown as string] })).toThrow(invalid);
  });

  it("accepts an absolute appDataDir and refuses a relative one (test_app_data_dir_relative_path_raises)", () => {
    expect(buildHarnessConfig({ appDataDir: "/custom/app/data" }).appDataDir).toBe("/custom/app/data");
    expect(buildHarnessConfig({ appDataDir: "C:\\Users\\me\\ag" }).appDataDir).toBe("C:\\Users\\me\\ag");
    expect(() => buildHarnessConfig({ appDataDir: "relative/path" })).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidArgument,
        message: 'appDataDir must be an absolute path, got "relative/path"',
      }),
    );
    expect(() => buildHarnessConfig({ appDataDir: "~/x" })).toThrow(invalid);
    expect(() => buildHarnessConfig({ appDataDir: "file:///x" })).toThrow(invalid);
    expect(() => buildHarnessConfig({ appDataDir: 7 as unknown as string })).toThrow(invalid);
  });
});

describe("runtime checks for JavaScript callers (item 13)", () => {
  it("refuses a response schema that is not an object or JSON text", () => {
    for (const schema of [42, true, null, ["a"]]) {
      expect(() => buildHarnessConfig({ responseSchema: schema as unknown as string })).toThrow(
        expect.objectContaining({
          code: ErrorCode.InvalidArgument,
          message: expect.stringContaining("responseSchema must be a JSON Schema object"),
        }),
      );
    }
    expect(buildHarnessConfig({ responseSchema: { type: "object" } }).finishToolSchemaJson).toBe('{"type":"object"}');
  });

  it("refuses tools whose name, description, parameters or call are not what the types say", () => {
    const base = { name: "t", description: "d", call: () => 1 };
    const bad: unknown[] = [
      { ...base, name: ["t"] },
      { ...base, name: 42 },
      { ...base, description: undefined },
      { ...base, parameters: "object" },
      { ...base, parameters: [] },
      { ...base, call: "run" },
      { ...base, call: undefined },
      null,
      "t",
    ];
    for (const tool of bad) {
      expect(() => defineTool(tool as never)).toThrow(invalid);
      expect(() => new ToolRunner([tool as Tool])).toThrow(invalid);
    }
    expect(() => defineTool({ ...base, call: "run" } as never)).toThrow(/call must be a function/);
  });

  it("refuses hooks that are not objects or whose hook methods are not functions", () => {
    for (const hook of [null, 42, "preToolCall", [], { preToolCall: true }, { postTurn: "log" }]) {
      expect(() => new HookRunner([hook as never])).toThrow(invalid);
    }
    expect(() => new HookRunner([{ preToolCall: true } as never])).toThrow(
      /hook method preToolCall must be a function, got boolean/,
    );
    expect(new HookRunner([{ somethingElse: 1 } as never]).size).toBe(1);
  });

  it("refuses prompts that are not a string or a list of parts", () => {
    for (const prompt of [
      42,
      null,
      undefined,
      { text: "hi" },
      [{ text: 1 }],
      [{ media: { mimeType: "image/png", data: "base64" } }],
      ["hi"],
    ]) {
      expect(() => toUserInput(prompt as never)).toThrow(invalid);
    }
    expect(() => toUserInput(42 as never)).toThrow(/the prompt must be a string or an array of parts, got number 42/);
  });

  it("refuses policies built from values of the wrong type", async () => {
    const { deny, askUser, flattenPolicies } = await import("../policies/policy.js");
    expect(() => deny(42 as never)).toThrow(invalid);
    expect(() => allow("run_command").when("rm" as never)).toThrow(/takes a function/);
    expect(() => askUser("run_command", undefined as never)).toThrow(/needs a function/);
    expect(() => deny("run_command", 42 as never)).toThrow(/reason .* must be a string/);
    expect(() => flattenPolicies(["run_command" as never])).toThrow(/policies must be made with/);
    expect(() => flattenPolicies([{ tool: "x" } as never])).toThrow(invalid);
  });
});

describe("prompts blank after sanitising are sent as upstream sends them (local_connection._sanitize_prompt)", () => {
  it("sends control-character-only text as one space, empty text as empty, and keeps the rest", () => {
    const texts = (prompt: Parameters<typeof toUserInput>[0]): unknown[] =>
      (toUserInput(prompt).parts ?? []).map((p) => p.part?.value);
    expect(texts("\x00\x00")).toEqual([" "]);
    expect(texts("Hello\x00World\x07!\x7f\x80")).toEqual(["Hello World !  "]);
    expect(texts("Line1\nLine2\r\tTab")).toEqual(["Line1\nLine2\r\tTab"]);
    expect(texts([{ text: "look" }, { text: "" }, { text: "\x01 \x02" }])).toEqual(["look", "", " "]);
  });
});

describe("agent option types (item 13)", () => {
  it("refuses options of the wrong type with a message saying what to pass", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ model: 42 }, /model must be a string, got number 42/],
      [{ apiKey: ["k"] }, /apiKey must be a string, got an array/],
      [{ agentBehavior: "lazy" }, /agentBehavior must be one of "autonomous", "interactive", "minimal", got "lazy"/],
      [{ sessionContinuationMode: 1 }, /sessionContinuationMode must be one of/],
      [{ skillsPaths: "/skills" }, /skillsPaths must be an array of strings/],
      [{ systemInstructions: 42 }, /systemInstructions must be a string/],
      [{ systemInstructions: { sections: [{ title: "t" }] } }, /systemInstructions must be a string/],
      [{ capabilities: { enabledTools: "view_file" } }, /capabilities.enabledTools must be an array/],
      [{ budget: { maxModelCalls: -1 } }, /budget.maxModelCalls must be an integer >= 0, got number -1/],
      [{ budget: { maxInputTokens: "50" } }, /budget.maxInputTokens must be an integer >= 0/],
      [{ models: {} }, /models must be an array/],
    ];
    for (const [options, message] of cases) {
      expect(() => buildHarnessConfig(options as never)).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidArgument, message: expect.stringMatching(message) }),
      );
    }
    expect(() =>
      buildHarnessConfig({
        model: "m",
        agentBehavior: "minimal",
        systemInstructions: { sections: [{ title: "t", content: "c" }] },
        budget: { maxModelCalls: 3 },
      }),
    ).not.toThrow();
  });
});
