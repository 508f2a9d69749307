import { describe, expect, it } from "vitest";
import { StepSource, StepStatus, StepTarget, StepType } from "../step.js";
import { stepFromUpdate, stepIdOf } from "./step-from-update.js";
import { stepUpdate, stepUpdateFromJson } from "@antigravity-ts/test-kit";

describe("step id (§6.4)", () => {
  it("is <trajectoryId>:<stepIndex>", () => {
    expect(stepFromUpdate(stepUpdate({ trajectoryId: "t-1", stepIndex: 7 })).id).toBe("t-1:7");
    expect(stepIdOf("abc", 0)).toBe("abc:0");
  });

  it("is just the index without a trajectory id", () => {
    expect(stepFromUpdate(stepUpdate({ stepIndex: 3 })).id).toBe("3");
    expect(stepFromUpdate(stepUpdate({ trajectoryId: "", stepIndex: 4 })).id).toBe("4");
    expect(stepFromUpdate(stepUpdate({})).id).toBe("0");
  });

  it("copies the step index and the ids", () => {
    const step = stepFromUpdate(
      stepUpdate({ cascadeId: "c", trajectoryId: "t", parentTrajectoryId: "p", stepIndex: 12 }),
    );
    expect(step).toMatchObject({ stepIndex: 12, cascadeId: "c", trajectoryId: "t", parentTrajectoryId: "p" });
    expect(stepFromUpdate(stepUpdate({}))).toMatchObject({
      stepIndex: 0,
      cascadeId: "",
      trajectoryId: "",
      parentTrajectoryId: "",
    });
  });
});

describe("type classification precedence (§6.4)", () => {
  const all = {
    compaction: {},
    finish: { outputString: "{}" },
    runCommand: { commandLine: "ls" },
    text: "hi",
    thinking: "hmm",
  };

  it("compaction wins over everything", () => {
    expect(stepFromUpdate(stepUpdate(all)).type).toBe(StepType.Compaction);
  });

  it("finish wins over tool actions and text", () => {
    const { compaction: _, ...rest } = all;
    expect(stepFromUpdate(stepUpdate(rest)).type).toBe(StepType.Finish);
  });

  it("a tool action wins over text and thinking", () => {
    expect(stepFromUpdate(stepUpdate({ runCommand: {}, text: "hi", thinking: "hmm" })).type).toBe(StepType.ToolCall);
    expect(stepFromUpdate(stepUpdate({ mcpTool: { toolName: "x" }, text: "hi" })).type).toBe(StepType.ToolCall);
    expect(stepFromUpdate(stepUpdate({ customTool: { toolCall: { name: "x" } }, text: "hi" })).type).toBe(
      StepType.ToolCall,
    );
  });

  it("text wins over thinking", () => {
    expect(stepFromUpdate(stepUpdate({ text: "hi", thinking: "hmm" })).type).toBe(StepType.TextResponse);
  });

  it("thinking alone is THINKING", () => {
    expect(stepFromUpdate(stepUpdate({ thinking: "hmm" })).type).toBe(StepType.Thinking);
  });

  it("empty text and thinking are UNKNOWN", () => {
    expect(stepFromUpdate(stepUpdate({})).type).toBe(StepType.Unknown);
    expect(stepFromUpdate(stepUpdate({ text: "", thinking: "" })).type).toBe(StepType.Unknown);
  });

  it.each([
    ["listDirectory", { listDirectory: {} }],
    ["findFile", { findFile: {} }],
    ["searchDirectory", { searchDirectory: {} }],
    ["viewFile", { viewFile: {} }],
    ["createFile", { createFile: {} }],
    ["editFile", { editFile: {} }],
    ["runCommand", { runCommand: {} }],
    ["invokeSubagent", { invokeSubagent: {} }],
    ["generateImage", { generateImage: {} }],
    ["searchWeb", { searchWeb: {} }],
    ["readUrlContent", { readUrlContent: {} }],
    ["questionsRequest", { questionsRequest: {} }],
    ["mcpTool", { mcpTool: {} }],
    ["customTool", { customTool: {} }],
  ] as const)("%s alone (even empty) is TOOL_CALL", (_, init) => {
    expect(stepFromUpdate(stepUpdate(init)).type).toBe(StepType.ToolCall);
  });

  it("an error action keeps the classification and reports the error", () => {
    const step = stepFromUpdate(
      stepUpdateFromJson({
        trajectoryId: "t",
        stepIndex: 5,
        state: "STATE_ERROR",
        source: "SOURCE_SYSTEM",
        error: { errorMessage: "API key not valid", httpCode: 401 },
      }),
    );
    expect(step).toMatchObject({
      type: StepType.Unknown,
      status: StepStatus.Error,
      source: StepSource.System,
      error: "API key not valid",
      httpCode: 401,
    });
    const withText = stepFromUpdate(
      stepUpdate({ text: "quota", state: 4, error: { errorMessage: "quota", httpCode: 429 } }),
    );
    expect(withText).toMatchObject({ type: StepType.TextResponse, status: StepStatus.Error, httpCode: 429 });
  });
});

describe("enums (§6.4)", () => {
  it.each([
    [1, StepSource.System],
    [2, StepSource.User],
    [3, StepSource.Model],
    [0, StepSource.Unknown],
    [99, StepSource.Unknown],
    [undefined, StepSource.Unknown],
  ])("source %s → %s", (source, expected) => {
    expect(stepFromUpdate(stepUpdate(source === undefined ? {} : { source })).source).toBe(expected);
  });

  it.each([
    [1, StepTarget.User],
    [3, StepTarget.Environment],
    [0, StepTarget.Unspecified],
    [2, StepTarget.Unknown], // TARGET_MODEL has no SDK counterpart upstream
    [42, StepTarget.Unknown],
    [undefined, StepTarget.Unknown],
  ])("target %s → %s", (target, expected) => {
    expect(stepFromUpdate(stepUpdate(target === undefined ? {} : { target })).target).toBe(expected);
  });

  it.each([
    [1, StepStatus.Active],
    [2, StepStatus.Done],
    [3, StepStatus.WaitingForUser],
    [4, StepStatus.Error],
    [0, StepStatus.Unknown],
    [5, StepStatus.Unknown], // the short-lived STATE_TERMINAL_ERROR is not mapped upstream
    [77, StepStatus.Unknown],
    [undefined, StepStatus.Unknown],
  ])("state %s → %s", (state, expected) => {
    expect(stepFromUpdate(stepUpdate(state === undefined ? {} : { state })).status).toBe(expected);
  });

  it("maps enum names and unknown names from a JSON frame", () => {
    const step = stepFromUpdate(
      stepUpdateFromJson({ state: "STATE_WAITING_FOR_USER", source: "SOURCE_MODEL", target: "TARGET_ENVIRONMENT" }),
    );
    expect(step).toMatchObject({
      status: StepStatus.WaitingForUser,
      source: StepSource.Model,
      target: StepTarget.Environment,
    });
    const unknown = stepFromUpdate(
      stepUpdateFromJson({ state: "STATE_TERMINAL_ERROR", source: "SOURCE_ALIEN", target: "TARGET_MODEL" }),
    );
    expect(unknown).toMatchObject({
      status: StepStatus.Unknown,
      source: StepSource.Unknown,
      target: StepTarget.Unknown,
    });
  });
});

describe("content and errors", () => {
  it("copies text, thinking and their deltas", () => {
    const step = stepFromUpdate(
      stepUpdate({ text: "It is 5.", textDelta: " 5.", thinking: "add", thinkingDelta: "d" }),
    );
    expect(step).toMatchObject({ content: "It is 5.", contentDelta: " 5.", thinking: "add", thinkingDelta: "d" });
    expect(stepFromUpdate(stepUpdate({}))).toMatchObject({
      content: "",
      contentDelta: "",
      thinking: "",
      thinkingDelta: "",
      error: "",
      httpCode: 0,
      toolCalls: [],
    });
  });

  it("takes error.errorMessage first, then errorMessage (field 7)", () => {
    expect(
      stepFromUpdate(stepUpdate({ errorMessage: "tool failed", error: { errorMessage: "api failed" } })).error,
    ).toBe("api failed");
    expect(stepFromUpdate(stepUpdate({ errorMessage: "tool failed" })).error).toBe("tool failed");
    expect(stepFromUpdate(stepUpdate({ errorMessage: "tool failed", error: { errorMessage: "" } })).error).toBe(
      "tool failed",
    );
    expect(stepFromUpdate(stepUpdate({ error: { httpCode: 403 } }))).toMatchObject({ error: "", httpCode: 403 });
  });

  it("never sets per-step usage", () => {
    expect("usageMetadata" in stepFromUpdate(stepUpdate({ text: "x" }))).toBe(false);
  });
});

describe("isCompleteResponse", () => {
  const complete = { source: 3, state: 2, target: 1, text: "done" } as const;

  it("is true for a DONE model step with text addressed to the user", () => {
    expect(stepFromUpdate(stepUpdate(complete)).isCompleteResponse).toBe(true);
  });

  it.each([
    ["source USER", { source: 2 }],
    ["source unset", { source: undefined }],
    ["state ACTIVE", { state: 1 }],
    ["state ERROR", { state: 4 }],
    ["target ENVIRONMENT", { target: 3 }],
    ["target MODEL", { target: 2 }],
    ["target unset", { target: undefined }],
    ["empty text", { text: "" }],
  ] as const)("is false with %s", (_, change) => {
    expect(stepFromUpdate(stepUpdate({ ...complete, ...change })).isCompleteResponse).toBe(false);
  });
});

describe("structuredOutput (FINISH steps)", () => {
  it("parses finish.outputString as JSON", () => {
    expect(stepFromUpdate(stepUpdate({ finish: { outputString: '{"answer":5,"ok":true}' } })).structuredOutput).toEqual(
      { answer: 5, ok: true },
    );
    expect(stepFromUpdate(stepUpdate({ finish: { outputString: '"done"' } })).structuredOutput).toBe("done");
  });

  it("keeps a JSON null as an explicit null", () => {
    const step = stepFromUpdate(stepUpdate({ finish: { outputString: "null" } }));
    expect("structuredOutput" in step).toBe(true);
    expect(step.structuredOutput).toBeNull();
  });

  it("keeps the raw string when it is not valid JSON", () => {
    expect(stepFromUpdate(stepUpdate({ finish: { outputString: "answer: 5" } })).structuredOutput).toBe("answer: 5");
  });

  it("is unset for an empty output and on non-FINISH steps", () => {
    expect("structuredOutput" in stepFromUpdate(stepUpdate({ finish: {} }))).toBe(false);
    expect("structuredOutput" in stepFromUpdate(stepUpdate({ finish: { outputString: "" } }))).toBe(false);
    expect("structuredOutput" in stepFromUpdate(stepUpdate({ compaction: {}, finish: { outputString: "{}" } }))).toBe(
      false,
    );
  });
});

describe("end to end from §22 frames", () => {
  it("maps the final model step of the example turn", () => {
    const step = stepFromUpdate(
      stepUpdateFromJson({
        cascadeId: "c1",
        trajectoryId: "c1",
        stepIndex: 2,
        state: "STATE_DONE",
        source: "SOURCE_MODEL",
        target: "TARGET_USER",
        text: "It is 5.",
        textDelta: " 5.",
      }),
    );
    expect(step).toEqual({
      id: "c1:2",
      stepIndex: 2,
      type: StepType.TextResponse,
      source: StepSource.Model,
      target: StepTarget.User,
      status: StepStatus.Done,
      content: "It is 5.",
      contentDelta: " 5.",
      thinking: "",
      thinkingDelta: "",
      toolCalls: [],
      error: "",
      isCompleteResponse: true,
      cascadeId: "c1",
      trajectoryId: "c1",
      parentTrajectoryId: "",
      httpCode: 0,
    });
  });

  it("maps the user's prompt step (snake_case frame)", () => {
    const step = stepFromUpdate(
      stepUpdateFromJson({
        cascade_id: "c1",
        trajectory_id: "c1",
        step_index: 0,
        state: "STATE_DONE",
        source: "SOURCE_USER",
        target: "TARGET_MODEL",
        text: "what is 2+3?",
      }),
    );
    expect(step).toMatchObject({
      id: "c1:0",
      type: StepType.TextResponse,
      source: StepSource.User,
      target: StepTarget.Unknown,
      isCompleteResponse: false,
    });
  });
});
