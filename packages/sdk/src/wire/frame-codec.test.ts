import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import {
  HarnessConfigSchema,
  InitializeConversationEventSchema,
  InputEventSchema,
  LifecycleHook,
  OutputEventSchema,
  StepUpdate_State,
  decodeInitializeConversationEvent,
  decodeInputFrame,
  decodeOutputEvent,
  encodeInitializeConversationEvent,
  encodeInputEvent,
  encodeOutputEvent,
} from "./index.js";
import {
  decodeInitFrameFully,
  decodeInputEventFrameFully,
  decodeOutputFrameFully,
  encodeInitFrame,
  encodeInputFrame,
  encodeOutputFrame,
  tryDecodeInitFrame,
  tryDecodeInputEventFrame,
  tryDecodeOutputFrame,
} from "./frame-codec.js";

// The frame codec against the full one of `@antigravity-ts/sdk/wire` (protobuf-es): the same text
// out, the same messages in, whether the fast reader decides a frame (`tryDecode…`) or the lazily
// loaded decoder does (`decode…Fully`).

describe("tryDecodeOutputFrame and decodeOutputFrameFully", () => {
  it("decode a hot frame alike, as decodeOutputEvent does", async () => {
    const frame =
      '{"seqNum":"3","stepUpdate":{"trajectoryId":"t","stepIndex":1,"state":"STATE_DONE","textDelta":"hé 😀"}}';
    expect(tryDecodeOutputFrame(frame)).toStrictEqual(decodeOutputEvent(frame));
    expect(await decodeOutputFrameFully(frame)).toStrictEqual(decodeOutputEvent(frame));
  });

  it("leave a frame with nulls, bytes or numbers as text to the full decoder, which decodes it the same", async () => {
    const frames = [
      '{"seqNum":null,"stepUpdate":{"trajectoryId":"t","stepIndex":1}}',
      '{"stepUpdate":{"trajectoryId":"t","stepIndex":"7","generateImage":{"imageData":"aGVsbG8="}}}',
      '{"initializeConversationResponse":{"cascadeId":"c","history":[{"stepIndex":0,"text":null}]}}',
    ];
    for (const frame of frames) {
      expect(tryDecodeOutputFrame(frame), frame).toBeUndefined();
      expect(await decodeOutputFrameFully(frame)).toStrictEqual(decodeOutputEvent(frame));
    }
  });

  it("rejects what is not an OutputEvent with ProtocolError, as decodeOutputEvent throws", async () => {
    for (const frame of ["not json", "[1,2]", '{"stepUpdate":{"stepIndex":"x"}}']) {
      expect(() => decodeOutputEvent(frame)).toThrow(SdkError);
      expect(tryDecodeOutputFrame(frame), frame).toBeUndefined();
      const error = await decodeOutputFrameFully(frame).catch((e: unknown) => e);
      expect(error, frame).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(ErrorCode.ProtocolError);
    }
  });
});

describe("encodeInputFrame and encodeInitFrame", () => {
  it("write what encodeInputEvent(create()) and encodeInitializeConversationEvent write", () => {
    const events = [
      {
        event: { case: "userInput" as const, value: { parts: [{ part: { case: "text" as const, value: "hi 😀" } }] } },
      },
      { event: { case: "toolResponse" as const, value: { id: "c1", responseJson: '{"ok":true}' } } },
      { event: { case: "toolConfirmation" as const, value: { trajectoryId: "t", stepIndex: 0, accepted: false } } },
      { event: { case: "haltRequest" as const, value: true } },
      { event: { case: "sessionEndRequest" as const, value: true } },
      { event: { case: "callHookResponse" as const, value: { requestId: "r", hookName: "pre_tool" } } },
    ];
    for (const event of events) expect(encodeInputFrame(event)).toBe(encodeInputEvent(create(InputEventSchema, event)));
    const config = create(HarnessConfigSchema, {
      cascadeId: "",
      enabledHooks: [LifecycleHook.ON_SESSION_END],
      tools: [{ name: "add", parametersJsonSchema: "{}" }],
      initialTrajectory: new Uint8Array([1, 2, 3]),
    });
    expect(encodeInitFrame(config)).toBe(
      encodeInitializeConversationEvent(create(InitializeConversationEventSchema, { config })),
    );
  });

  it("write every shape of toolResponse as encodeInputEvent(create()) writes it", () => {
    const answers = [
      { id: 'c "1" \\ é 😀\n', responseJson: '{"text":"a \\"quote\\" 😀\\n"}' },
      { id: "", responseJson: "{}" },
      { id: "c2", responseJson: "" },
      { id: "c3", errorMessage: "boom" },
      {
        id: "c4",
        responseJson: '{"result":"Returned 1 media attachment(s)."}',
        supplementalMedia: [{ mimeType: "image/png", data: new Uint8Array([1, 2]) }],
      },
      { id: "c5", responseJson: "{}", supplementalMedia: [] },
    ];
    for (const value of answers) {
      const event = { event: { case: "toolResponse" as const, value } };
      expect(encodeInputFrame(event), JSON.stringify(value)).toBe(encodeInputEvent(create(InputEventSchema, event)));
    }
  });
});

// The harness's half (the reference harness imports these through /internal).
describe("the input and init frames' pairs", () => {
  it("decode hot frames alike, as decodeInputFrame and decodeInitializeConversationEvent do", async () => {
    const input = '{"toolResponse":{"id":"c1","responseJson":"{\\"ok\\":true}"}}';
    expect(tryDecodeInputEventFrame(input)).toStrictEqual(decodeInputFrame(input));
    expect(await decodeInputEventFrameFully(input)).toStrictEqual(decodeInputFrame(input));
    const init = '{"config":{"cascadeId":"c","enabledHooks":["ON_SESSION_END"],"sessionContinuationMode":"RESUME"}}';
    expect(tryDecodeInitFrame(init)).toStrictEqual(decodeInitializeConversationEvent(init));
    expect(await decodeInitFrameFully(init)).toStrictEqual(decodeInitializeConversationEvent(init));
  });

  it("leave undecided frames to the full decoder, which decodes or rejects them the same", async () => {
    for (const frame of [
      '{"toolConfirmation":{"trajectoryId":"t","stepIndex":"3","accepted":null}}',
      '{"haltRequest":true,"haltRequest":null}',
    ]) {
      expect(tryDecodeInputEventFrame(frame), frame).toBeUndefined();
      expect(await decodeInputEventFrameFully(frame)).toStrictEqual(decodeInputFrame(frame));
    }
    const init = '{"config":{"cascadeId":"c","initialTrajectory":"AQID"}}';
    expect(tryDecodeInitFrame(init)).toBeUndefined();
    expect(await decodeInitFrameFully(init)).toStrictEqual(decodeInitializeConversationEvent(init));
    for (const frame of ["not json", '{"userInput":{"parts":7}}']) {
      const error = await decodeInputEventFrameFully(frame).catch((e: unknown) => e);
      expect(error, frame).toMatchObject({
        code: ErrorCode.ProtocolError,
        message: errorOf(() => decodeInputFrame(frame)),
      });
    }
  });
});

describe("encodeOutputFrame", () => {
  it("writes what encodeOutputEvent(create()) writes", () => {
    const events: MessageInitShape<typeof OutputEventSchema>[] = [
      {
        seqNum: 1n,
        timestampMicros: 1_700_000_000_000_000n,
        event: {
          case: "stepUpdate" as const,
          value: { trajectoryId: "t", stepIndex: 0, state: StepUpdate_State.DONE, text: "é", textDelta: "" },
        },
      },
      { seqNum: 2n, event: { case: "toolCall" as const, value: { id: "c", name: "add", argumentsJson: "{}" } } },
      {
        seqNum: 3n,
        event: {
          case: "initializeConversationResponse" as const,
          value: { cascadeId: "c", history: [], cumulativeUsage: { promptTokenCount: 0n } },
        },
      },
    ];
    for (const event of events)
      expect(encodeOutputFrame(event)).toBe(encodeOutputEvent(create(OutputEventSchema, event)));
  });
});

function errorOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a throw");
}
