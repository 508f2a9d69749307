import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import {
  HarnessConfigSchema,
  InitializeConversationEventSchema,
  InputEventSchema,
  LifecycleHook,
  decodeOutputEvent,
  encodeInitializeConversationEvent,
  encodeInputEvent,
} from "../wire/index.js";
import { decodeOutputFrame, encodeInitFrame, encodeInputFrame } from "./frame-codec.js";

// The connection's codec against the full one of `@antigravity-ts/sdk/wire` (protobuf-es): the
// same text out, the same messages in, whether the fast reader decides a frame or the lazily
// loaded decoder does.

describe("decodeOutputFrame", () => {
  it("decodes a hot frame synchronously, as decodeOutputEvent does", () => {
    const frame = '{"seqNum":"3","stepUpdate":{"trajectoryId":"t","stepIndex":1,"state":"STATE_DONE","textDelta":"hé 😀"}}';
    const decoded = decodeOutputFrame(frame);
    expect(decoded).not.toBeInstanceOf(Promise);
    expect(decoded).toStrictEqual(decodeOutputEvent(frame));
  });

  it("loads the full decoder for a frame the fast reader leaves (nulls, bytes, numbers as text) and decodes it the same", async () => {
    const frames = [
      '{"seqNum":null,"stepUpdate":{"trajectoryId":"t","stepIndex":1}}',
      '{"stepUpdate":{"trajectoryId":"t","stepIndex":"7","generateImage":{"imageData":"aGVsbG8="}}}',
      '{"initializeConversationResponse":{"cascadeId":"c","history":[{"stepIndex":0,"text":null}]}}',
    ];
    for (const frame of frames) {
      const decoded = decodeOutputFrame(frame);
      expect(decoded, frame).toBeInstanceOf(Promise);
      expect(await decoded).toStrictEqual(decodeOutputEvent(frame));
    }
  });

  it("rejects what is not an OutputEvent with ProtocolError, as decodeOutputEvent throws", async () => {
    for (const frame of ["not json", "[1,2]", '{"stepUpdate":{"stepIndex":"x"}}']) {
      expect(() => decodeOutputEvent(frame)).toThrow(SdkError);
      const error = await Promise.resolve(decodeOutputFrame(frame)).catch((e: unknown) => e);
      expect(error, frame).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(ErrorCode.ProtocolError);
    }
  });
});

describe("encodeInputFrame and encodeInitFrame", () => {
  it("write what encodeInputEvent(create()) and encodeInitializeConversationEvent write", () => {
    const events = [
      { event: { case: "userInput" as const, value: { parts: [{ part: { case: "text" as const, value: "hi 😀" } }] } } },
      { event: { case: "toolResponse" as const, value: { id: "c1", responseJson: '{"ok":true}' } } },
      { event: { case: "toolConfirmation" as const, value: { trajectoryId: "t", stepIndex: 0, accepted: false } } },
      { event: { case: "haltRequest" as const, value: true } },
      { event: { case: "sessionEndRequest" as const, value: true } },
      { event: { case: "callHookResponse" as const, value: { requestId: "r", hookName: "pre_tool" } } },
    ];
    for (const event of events) expect(encodeInputFrame(event)).toBe(encodeInputEvent(create(InputEventSchema, event)));
    const config = create(HarnessConfigSchema, { cascadeId: "", enabledHooks: [LifecycleHook.ON_SESSION_END], tools: [{ name: "add", parametersJsonSchema: "{}" }], initialTrajectory: new Uint8Array([1, 2, 3]) });
    expect(encodeInitFrame(config)).toBe(encodeInitializeConversationEvent(create(InitializeConversationEventSchema, { config })));
  });
});
