import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import {
  InitializeConversationEventSchema,
  InputEventSchema,
  OutputEventSchema,
  StepUpdate_State,
  TrajectoryStateUpdate_State,
  type OutputEvent,
} from "../gen/antigravity/localharness/localharness_pb.js";
import {
  decodeInitializeConversationEvent,
  decodeInputFrame,
  decodeOutputEvent,
  encodeInitializeConversationEvent,
  encodeInputEvent,
  encodeOutputEvent,
} from "./frames.js";

function trajectoryState(frame: string): TrajectoryStateUpdate_State | undefined {
  const event = decodeOutputEvent(frame);
  if (event.event.case !== "trajectoryStateUpdate")
    throw new Error(`expected trajectoryStateUpdate, got ${String(event.event.case)}`);
  return event.event.value.state;
}

function protocolError(decode: () => unknown): SdkError {
  try {
    decode();
  } catch (error) {
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.ProtocolError);
    return error as SdkError;
  }
  throw new Error("expected a ProtocolError, but the frame decoded");
}

describe("tolerant decode (§4.1)", () => {
  it("accepts camelCase and snake_case field names alike", () => {
    const camel = decodeOutputEvent(
      '{"seqNum":"3","stepUpdate":{"trajectoryId":"t","stepIndex":1,"textDelta":"a","parentTrajectoryId":"p"}}',
    );
    const snake = decodeOutputEvent(
      '{"seq_num":"3","step_update":{"trajectory_id":"t","step_index":1,"text_delta":"a","parent_trajectory_id":"p"}}',
    );
    expect(snake).toEqual(camel);
    expect(camel.event.case).toBe("stepUpdate");
    expect(camel.event.value).toMatchObject({
      trajectoryId: "t",
      stepIndex: 1,
      textDelta: "a",
      parentTrajectoryId: "p",
    });
  });

  it("accepts enum names and numbers", () => {
    const byName = decodeOutputEvent('{"stepUpdate":{"state":"STATE_WAITING_FOR_USER"}}');
    const byNumber = decodeOutputEvent('{"stepUpdate":{"state":3}}');
    expect(byName).toEqual(byNumber);
    expect(byName.event.value).toMatchObject({ state: StepUpdate_State.WAITING_FOR_USER });
  });

  it("decodes STATE_IDLE, STATE_FULLY_IDLE and 2 to the same value and encodes it as STATE_FULLY_IDLE (§6.3)", () => {
    for (const state of ['"STATE_IDLE"', '"STATE_FULLY_IDLE"', "2"]) {
      const frame = `{"trajectoryStateUpdate":{"trajectoryId":"t","state":${state}}}`;
      expect(trajectoryState(frame)).toBe(2);
      expect(trajectoryState(frame)).toBe(TrajectoryStateUpdate_State.FULLY_IDLE);
      expect(encodeOutputEvent(decodeOutputEvent(frame))).toBe(
        '{"trajectoryStateUpdate":{"trajectoryId":"t","state":"STATE_FULLY_IDLE"}}',
      );
    }
  });

  it("accepts 64-bit integers as strings or numbers", () => {
    const asString = decodeOutputEvent('{"seqNum":"9007199254740993","timestampMicros":"1766000000000000"}');
    const asNumber = decodeOutputEvent('{"seqNum":7,"timestampMicros":1766000000000000}');
    expect(asString.seqNum).toBe(9007199254740993n);
    expect(asString.timestampMicros).toBe(1766000000000000n);
    expect(asNumber.seqNum).toBe(7n);
    expect(asNumber.timestampMicros).toBe(1766000000000000n);
    const usage = decodeOutputEvent('{"usageUpdate":{"total":{"promptTokenCount":"812","totalTokenCount":821}}}');
    expect(usage.event.value).toMatchObject({ total: { promptTokenCount: 812n, totalTokenCount: 821n } });
  });

  it("accepts 32-bit integers written as strings", () => {
    expect(decodeOutputEvent('{"stepUpdate":{"stepIndex":"12"}}').event.value).toMatchObject({ stepIndex: 12 });
  });

  it("ignores unknown fields at every level", () => {
    const event = decodeOutputEvent(
      '{"futureTopLevel":{"x":1},"seqNum":"1","stepUpdate":{"newAction":{"a":[1,2]},"text":"hi","unknown_snake":true}}',
    );
    expect(event.seqNum).toBe(1n);
    expect(event.event.value).toMatchObject({ text: "hi" });
    expect(encodeOutputEvent(event)).toBe('{"seqNum":"1","stepUpdate":{"text":"hi"}}');
  });

  it("does not throw on unknown enum names; the field stays unset", () => {
    const event = decodeOutputEvent(
      '{"stepUpdate":{"state":"STATE_TERMINAL_ERROR","source":"SOURCE_FUTURE","text":"x"}}',
    );
    expect(event.event.value).toMatchObject({ text: "x" });
    expect(event.event.case === "stepUpdate" && event.event.value.state).toBeUndefined();
    expect(event.event.case === "stepUpdate" && event.event.value.source).toBeUndefined();
  });

  it("drops unknown names inside repeated enums and keeps the known ones", () => {
    const init = decodeInitializeConversationEvent(
      '{"config":{"enabledHooks":["LIFECYCLE_HOOK_FUTURE","LIFECYCLE_HOOK_PRE_TOOL"]}}',
    );
    expect(init.config?.enabledHooks).toEqual([5]);
  });

  it("keeps out-of-range enum numbers (open enums) and re-encodes them as numbers", () => {
    const event = decodeOutputEvent('{"trajectoryStateUpdate":{"state":99,"stopReason":42}}');
    expect(event.event.value).toMatchObject({ state: 99, stopReason: 42 });
    expect(encodeOutputEvent(event)).toBe('{"trajectoryStateUpdate":{"state":99,"stopReason":42}}');
  });

  it("treats null as unset", () => {
    const event = decodeOutputEvent('{"seqNum":null,"stepUpdate":{"text":null,"runCommand":null}}');
    expect(event.seqNum).toBeUndefined();
    expect(encodeOutputEvent(event)).toBe('{"stepUpdate":{}}');
  });

  it("tolerates pretty-printed frames (upstream sends MessageToJson output)", () => {
    const event = decodeInputFrame(
      '{\n  "toolResponse": {\n    "id": "c1",\n    "responseJson": "{\\"result\\": 5}"\n  }\n}',
    );
    expect(encodeInputEvent(event)).toBe('{"toolResponse":{"id":"c1","responseJson":"{\\"result\\": 5}"}}');
  });

  it("decodes InputEvent frames for the harness, snake_case included", () => {
    const event = decodeInputFrame(
      '{"user_input":{"parts":[{"text":"hi"},{"media":{"mime_type":"image/png","data":"AAEC"}},{"slash_command":{"name":"plan"}}]}}',
    );
    expect(event.event.case).toBe("userInput");
    expect(encodeInputEvent(event)).toBe(
      '{"userInput":{"parts":[{"text":"hi"},{"media":{"mimeType":"image/png","data":"AAEC"}},{"slashCommand":{"name":"plan"}}]}}',
    );
  });
});

describe("encode (§4.1)", () => {
  it("emits camelCase names, enum names and int64 decimal strings", () => {
    const event = create(OutputEventSchema, {
      seqNum: 7n,
      timestampMicros: 1766000000000000n,
      event: {
        case: "stepUpdate",
        value: {
          trajectoryId: "t",
          stepIndex: 2,
          state: StepUpdate_State.DONE,
          source: 3,
          target: 1,
          textDelta: " 5.",
        },
      },
    });
    expect(encodeOutputEvent(event)).toBe(
      '{"seqNum":"7","timestampMicros":"1766000000000000","stepUpdate":{"trajectoryId":"t","stepIndex":2,"state":"STATE_DONE","source":"SOURCE_MODEL","target":"TARGET_USER","textDelta":" 5."}}',
    );
  });

  it("emits set fields that hold zero values (explicit presence) and omits unset ones", () => {
    const init = create(InitializeConversationEventSchema, {
      config: {
        cascadeId: "",
        compactionThreshold: 0,
        finishToolSchemaJson: "",
        harnessSideTools: {
          find: { enabled: true },
          subagents: { enabled: false },
          runCommand: { enabled: true, maxTimeoutMs: 0, enableDaemonCommands: false },
        },
        policyConfig: { rules: [{ tool: "*", decision: 1, isDynamic: false, ruleId: "" }] },
      },
    });
    const json = JSON.parse(encodeInitializeConversationEvent(init)) as { config: Record<string, unknown> };
    expect(json).toEqual({
      config: {
        cascadeId: "",
        compactionThreshold: 0,
        finishToolSchemaJson: "",
        harnessSideTools: {
          find: { enabled: true },
          subagents: { enabled: false },
          runCommand: { enabled: true, maxTimeoutMs: 0, enableDaemonCommands: false },
        },
        policyConfig: { rules: [{ tool: "*", decision: "POLICY_DECISION_ALLOW", isDynamic: false, ruleId: "" }] },
      },
    });
    expect(encodeInitializeConversationEvent(create(InitializeConversationEventSchema, { config: {} }))).toBe(
      '{"config":{}}',
    );
  });

  it("emits zero-valued oneof members, bytes as base64 and maps as objects", () => {
    expect(encodeInputEvent(create(InputEventSchema, { event: { case: "haltRequest", value: false } }))).toBe(
      '{"haltRequest":false}',
    );
    expect(encodeInputEvent(create(InputEventSchema, { event: { case: "automatedTrigger", value: "" } }))).toBe(
      '{"automatedTrigger":""}',
    );
    const media = create(InputEventSchema, {
      event: {
        case: "userInput",
        value: {
          parts: [{ part: { case: "media", value: { mimeType: "image/png", data: new Uint8Array([0, 1, 2, 255]) } } }],
        },
      },
    });
    expect(encodeInputEvent(media)).toBe(
      '{"userInput":{"parts":[{"media":{"mimeType":"image/png","data":"AAEC/w=="}}]}}',
    );
    const headers = create(InitializeConversationEventSchema, {
      config: {
        models: [{ name: "m", endpoint: { case: "geminiApiEndpoint", value: { httpHeaders: { "x-a": "1" } } } }],
      },
    });
    expect(encodeInitializeConversationEvent(headers)).toBe(
      '{"config":{"models":[{"name":"m","geminiApiEndpoint":{"httpHeaders":{"x-a":"1"}}}]}}',
    );
  });

  it("round-trips every OutputEvent kind through encode and decode", () => {
    const events: OutputEvent[] = [
      create(OutputEventSchema, {
        event: { case: "toolCall", value: { id: "c1", name: "add", argumentsJson: '{"a":2}' } },
      }),
      create(OutputEventSchema, { event: { case: "sessionEndResponse", value: true } }),
      create(OutputEventSchema, {
        event: {
          case: "callHookRequest",
          value: { requestId: "r1", type: 5, args: { case: "preToolArgs", value: { toolName: "add", stepIndex: 0 } } },
        },
      }),
      create(OutputEventSchema, {
        event: { case: "policyDecisionRequest", value: { requestId: "p1", ruleId: "rule_0" } },
      }),
      create(OutputEventSchema, {
        event: {
          case: "initializeConversationResponse",
          value: { cascadeId: "c", history: [{ stepIndex: 0, text: "x" }] },
        },
      }),
    ];
    for (const event of events) expect(decodeOutputEvent(encodeOutputEvent(event))).toEqual(event);
  });
});

describe("malformed frames → ProtocolError naming the problem", () => {
  it.each([
    ["not JSON", "{oops", /OutputEvent.*not JSON/],
    ["empty", "", /OutputEvent.*not JSON/],
    ["truncated", '{"stepUpdate":{"text":"ab', /not JSON/],
    ["an array", "[1,2]", /not a JSON object/],
    ["null", "null", /not a JSON object/],
    ["a string", '"stepUpdate"', /not a JSON object/],
    ["a wrong scalar type", '{"stepUpdate":{"text":5}}', /StepUpdate\.text/],
    ["a negative uint32", '{"stepUpdate":{"stepIndex":-1}}', /step_index/],
    ["an overflowing uint32", '{"stepUpdate":{"stepIndex":4294967296}}', /step_index/],
    ["a non-numeric int64", '{"seqNum":"seven"}', /seq_num/],
    ["a negative uint64", '{"usageUpdate":{"total":{"promptTokenCount":"-1"}}}', /prompt_token_count/],
    ["a message given as a scalar", '{"stepUpdate":5}', /StepUpdate/],
    ["two oneof members", '{"stepUpdate":{},"toolCall":{}}', /oneof.*event/],
  ])("rejects %s", (_, frame, pattern) => {
    const error = protocolError(() => decodeOutputEvent(frame));
    expect(error.message).toMatch(/^malformed OutputEvent frame: /);
    expect(error.message).toMatch(pattern);
  });

  it("rejects bad base64 and the era-A string userInput in an InputEvent", () => {
    expect(protocolError(() => decodeInputFrame('{"userInput":{"parts":[{"media":{"data":"!!!"}}]}}')).message).toMatch(
      /InputEvent.*Media\.data/,
    );
    expect(protocolError(() => decodeInputFrame('{"userInput":"hello"}')).message).toMatch(/InputEvent.*UserInput/);
  });

  it("rejects a first frame that is not an InitializeConversationEvent", () => {
    expect(protocolError(() => decodeInitializeConversationEvent('{"config":"x"}')).message).toMatch(
      /InitializeConversationEvent.*HarnessConfig/,
    );
  });

  it("keeps the underlying error as the cause and shortens long frames", () => {
    const error = protocolError(() => decodeOutputEvent(`not json ${"x".repeat(500)}`));
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.message.length).toBeLessThan(200);
  });
});

/** What a reader loop does with each frame: decode it, or record why it could not. */
type Decoded = { ok: true; event: OutputEvent } | { ok: false; error: SdkError };

function decodeFrames(frames: readonly string[]): Decoded[] {
  return frames.map((frame) => {
    try {
      return { ok: true, event: decodeOutputEvent(frame) };
    } catch (error) {
      if (!(error instanceof SdkError)) throw error;
      return { ok: false, error };
    }
  });
}

describe("a reader survives bad frames", () => {
  it("reports only the bad frames and decodes every later good one", () => {
    const frames = [
      '{"seqNum":"1","trajectoryStateUpdate":{"trajectoryId":"t","state":"STATE_RUNNING"}}',
      '{"seqNum":"2","stepUpdate":{"trajectoryId":"t","stepIndex":1,"state":"STATE_ACTIVE","text":"It"}}',
      "\u0000\u0001garbage\uFFFD",
      '{"seqNum":"3","stepUpdate":{"trajectoryId":"t","stepIndex":1,"state":"STATE_ACTIVE","text":"It is"',
      '{"seqNum":"4","stepUpdate":{"stepIndex":"minus one"}}',
      "[]",
      '{"seqNum":"5","stepUpdate":{"trajectoryId":"t","stepIndex":1,"state":"STATE_DONE","text":"It is 5."}}',
      '{"seqNum":"6","brandNewEvent":{"x":1}}',
      '{"seqNum":"7","trajectoryStateUpdate":{"trajectoryId":"t","state":"STATE_IDLE"}}',
    ];
    const results = decodeFrames(frames);
    expect(results.map((r) => r.ok)).toEqual([true, true, false, false, false, false, true, true, true]);
    for (const result of results) if (!result.ok) expect(result.error.code).toBe(ErrorCode.ProtocolError);
    const good = results.flatMap((r) => (r.ok ? [r.event] : []));
    expect(good.map((e) => e.seqNum)).toEqual([1n, 2n, 5n, 6n, 7n]);
    expect(good[2]?.event.value).toMatchObject({ text: "It is 5.", state: StepUpdate_State.DONE });
    expect(good[3]?.event.case).toBeUndefined();
    expect(good[4]?.event.value).toMatchObject({ state: TrajectoryStateUpdate_State.FULLY_IDLE });
  });
});
