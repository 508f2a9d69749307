import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { plainOfStructJson, structJsonOf } from "./genai-struct.js";
import { initFrameForEra, inputEventForEra, outputEventForEra, readFrameOfEitherEra } from "./wire-era-spelling.js";
import { eraOfClientInfo } from "./wire-era.js";

// The three spellings that differ between upstream 0.1.14 (proto @774cb8d) and 0.1.19
// (localharness.proto @257f843a), both ways, and the fields the 0.1.14 era never gets.

describe("wire eras", () => {
  it("writes the newest era's init frame unchanged", () => {
    const frame = { config: { compactionConfig: { tokenThreshold: 5 }, skillsConfig: { enabled: true } } };
    expect(initFrameForEra(frame, "0.1.19")).toBe(frame);
  });

  it("writes the 0.1.14 spelling: one compaction dial on field 1, templateName, and nothing it does not know", () => {
    const frame = {
      config: {
        compactionThreshold: 30,
        compactionConfig: { tokenThreshold: 30 },
        systemInstructions: {
          custom: { part: [{ text: "x" }, { template: { name: "identity", args: [{ name: "a", value: "b" }] } }] },
        },
        harnessSideTools: { runCommand: { enabled: true, executionMode: "TOOL_EXECUTION_MODE_UNSPECIFIED" } },
      },
    };
    const old = initFrameForEra(frame, "0.1.14");
    expect(old).toEqual({
      config: {
        compactionThreshold: 30,
        compactionConfig: { checkpointIntervalTokens: 30 },
        systemInstructions: {
          custom: {
            part: [{ text: "x" }, { template: { templateName: "identity", args: [{ name: "a", value: "b" }] } }],
          },
        },
        harnessSideTools: { runCommand: { enabled: true } },
      },
    });
    expect(frame.config.compactionConfig).toEqual({ tokenThreshold: 30 }); // the input is not changed
  });

  it("refuses, naming the field and the era, what a 0.1.14 harness does not know", () => {
    const cases = [
      { skillsConfig: { skills: [{ directoryPath: "/s" }] } },
      { rulesConfig: { filenames: ["AGENTS.md"] } },
      { compactionConfig: { maxContextTokens: 9 } },
      { compactionConfig: { tokenThreshold: 9, checkpointIntervalTokens: 8 } },
      { policyConfig: { autoConfig: { enabled: true } } },
      { systemInstructions: { custom: { part: [{ builtinSection: "tools" }] } } },
      { harnessSideTools: { runCommand: { executionMode: "TOOL_EXECUTION_MODE_ASYNC" } } },
      { customSubagents: [{ name: "a", model: { name: "gemini-3-flash" } }] },
    ];
    for (const config of cases) {
      let error: unknown;
      try {
        initFrameForEra({ config }, "0.1.14");
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(config)).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(ErrorCode.Unsupported);
      expect((error as SdkError).message).toContain("0.1.14");
    }
  });

  it("writes a hook's modified arguments as the 0.1.14 JSON string and reads it back as the Struct", () => {
    const args = { CommandLine: "ls", n: 2, deep: { list: [1, null, true] } };
    const newest = {
      callHookResponse: { requestId: "r1", preToolResult: { decision: "ALLOW", modifiedArgs: structJsonOf(args) } },
    };
    const old = inputEventForEra(newest, "0.1.14");
    expect(old).toEqual({
      callHookResponse: {
        requestId: "r1",
        preToolResult: { decision: "ALLOW", modifiedArgumentsJson: JSON.stringify(args) },
      },
    });
    const read = readFrameOfEitherEra(old);
    expect(read.era).toBe("0.1.14");
    expect(read.frame).toEqual(newest);
    expect(
      plainOfStructJson(
        (read.frame["callHookResponse"] as { preToolResult: { modifiedArgs: never } }).preToolResult.modifiedArgs,
      ),
    ).toEqual(args);
    expect(inputEventForEra(newest, "0.1.19")).toBe(newest);
  });

  it("reads either era's init frame in the newest spelling, and tells the era its spelling shows", () => {
    const old = {
      config: {
        systemInstructions: { custom: { part: [{ template: { templateName: "t", args: [] } }] } },
        compactionConfig: { checkpointIntervalTokens: 7 },
      },
    };
    const read = readFrameOfEitherEra(old);
    expect(read.era).toBe("0.1.14");
    expect(read.frame).toEqual({
      config: {
        systemInstructions: { custom: { part: [{ template: { name: "t", args: [] } }] } },
        compactionConfig: { checkpointIntervalTokens: 7 },
      },
    });
    const newest = { config: { compactionConfig: { tokenThreshold: 7 } } };
    expect(readFrameOfEitherEra(newest)).toEqual({ frame: newest, era: "0.1.19" });
    const neither = { config: { cascadeId: "" } };
    expect(readFrameOfEitherEra(neither)).toEqual({ frame: neither, era: undefined });
  });

  it("leaves out of a 0.1.14 client's frames the fields its schema lacks", () => {
    const init = {
      seqNum: "1",
      initializeConversationResponse: {
        cascadeId: "c",
        sandboxStatus: { available: true },
        history: [{ skillLookup: {}, text: "x" }],
      },
    };
    expect(outputEventForEra(init, "0.1.14")).toEqual({
      seqNum: "1",
      initializeConversationResponse: { cascadeId: "c", history: [{ text: "x" }] },
    });
    expect(outputEventForEra({ toolCall: { id: "1", trajectoryId: "t" } }, "0.1.14")).toEqual({
      toolCall: { id: "1" },
    });
    expect(outputEventForEra({ policyDecisionRequest: { requestId: "1", reason: "why" } }, "0.1.14")).toEqual({
      policyDecisionRequest: { requestId: "1" },
    });
    const plain = { stepUpdate: { text: "hi" } };
    expect(outputEventForEra(plain, "0.1.14")).toBe(plain);
    expect(outputEventForEra(init, "0.1.19")).toBe(init);
  });

  it("knows a Python client's era from the handshake's ClientInfo, and no other client's", () => {
    expect(eraOfClientInfo({ language: "python", version: "0.1.14" })).toBe("0.1.14");
    expect(eraOfClientInfo({ language: "python", version: "0.1.9" })).toBe("0.1.14");
    expect(eraOfClientInfo({ language: "python", version: "0.1.19" })).toBe("0.1.19");
    expect(eraOfClientInfo({ language: "python", version: "0.1.15rc1" })).toBe("0.1.19");
    expect(eraOfClientInfo({ language: "typescript", version: "0.1.14" })).toBeUndefined();
    expect(eraOfClientInfo(undefined)).toBeUndefined();
  });
});
