import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import {
  ToolCallSchema,
  TrajectoryStateUpdateSchema,
  UsageMetadataSchema,
} from "../gen/antigravity/localharness/localharness_pb.js";
import { decodeJsonFrame, encodeJsonFrame } from "./json-codec.js";

describe("decodeJsonFrame / encodeJsonFrame", () => {
  it("works for any message schema", () => {
    const call = decodeJsonFrame(ToolCallSchema, '{"id":"c1","name":"add","arguments_json":"{}"}');
    expect(call).toMatchObject({ id: "c1", name: "add", argumentsJson: "{}" });
    expect(encodeJsonFrame(ToolCallSchema, call)).toBe('{"id":"c1","name":"add","argumentsJson":"{}"}');
  });

  it("names the schema in errors", () => {
    const attempt = (): unknown => decodeJsonFrame(UsageMetadataSchema, '{"totalTokenCount":"lots"}');
    expect(attempt).toThrowError(SdkError);
    expect(attempt).toThrowError(/^malformed UsageMetadata frame: .*total_token_count/);
    try {
      attempt();
    } catch (error) {
      expect((error as SdkError).code).toBe(ErrorCode.ProtocolError);
      expect((error as SdkError).cause).toBeInstanceOf(Error);
    }
  });

  it("encodes an empty message as {}", () => {
    expect(encodeJsonFrame(TrajectoryStateUpdateSchema, create(TrajectoryStateUpdateSchema))).toBe("{}");
  });

  it("encodes uint64 counters beyond 2^53 exactly", () => {
    const usage = create(UsageMetadataSchema, { totalTokenCount: 18446744073709551615n });
    expect(encodeJsonFrame(UsageMetadataSchema, usage)).toBe('{"totalTokenCount":"18446744073709551615"}');
    expect(decodeJsonFrame(UsageMetadataSchema, '{"totalTokenCount":"18446744073709551615"}').totalTokenCount).toBe(
      18446744073709551615n,
    );
  });
});
