import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  create,
  decodeInitializeConversationEvent,
  decodeInputConfig,
  decodeInputFrame,
  decodeOutputConfig,
  decodeOutputEvent,
  encodeInitializeConversationEvent,
  encodeInputConfig,
  encodeInputEvent,
  encodeOutputConfig,
  encodeOutputEvent,
  frameLengthPrefixed,
  InputConfigSchema,
  LengthPrefixedReader,
  OutputConfigSchema,
  TrajectoryStateUpdate_State,
} from "@antigravity-ts/sdk/wire";

// Golden bytes and frames from protocol.md: the §3 handshake example and the §22 era-D turn.

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");
}

function fromHex(text: string): Uint8Array {
  return new Uint8Array(
    text
      .replace(/\|/g, " ")
      .trim()
      .split(/\s+/)
      .map((byte) => Number.parseInt(byte, 16)),
  );
}

// §3 worked example, copied verbatim (the `|` separators are the document's).
const INPUT_CONFIG_FRAME =
  "1d 00 00 00 | 0a 06 2f 74 6d 70 2f 73 | 22 13 0a 0a 74 79 70 65 73 63 72 69 70 74 12 05 30 2e 31 2e 30";
const OUTPUT_CONFIG_FRAME = "09 00 00 00 | 08 b1 a8 03 | 12 03 6b 33 79";

const inputConfig = create(InputConfigSchema, {
  storageDirectory: "/tmp/s",
  clientInfo: { language: "typescript", version: "0.1.0" },
});
const outputConfig = create(OutputConfigSchema, { port: 54321, apiKey: "k3y" });

describe("§3 handshake golden bytes", () => {
  it("encodes InputConfig to the documented bytes", () => {
    expect(hex(frameLengthPrefixed(encodeInputConfig(inputConfig)))).toBe(hex(fromHex(INPUT_CONFIG_FRAME)));
  });

  it("encodes OutputConfig to the documented bytes", () => {
    expect(hex(frameLengthPrefixed(encodeOutputConfig(outputConfig)))).toBe(hex(fromHex(OUTPUT_CONFIG_FRAME)));
  });

  it("decodes the documented bytes back to the same configs", () => {
    const [input] = new LengthPrefixedReader().push(fromHex(INPUT_CONFIG_FRAME));
    const [output] = new LengthPrefixedReader().push(fromHex(OUTPUT_CONFIG_FRAME));
    expect(input && decodeInputConfig(input)).toEqual(inputConfig);
    expect(output && decodeOutputConfig(output)).toEqual(outputConfig);
    expect(output && decodeOutputConfig(output)).toMatchObject({ port: 54321, apiKey: "k3y" });
  });

  const stream = new Uint8Array([...fromHex(INPUT_CONFIG_FRAME), ...fromHex(OUTPUT_CONFIG_FRAME)]);
  const expected = [encodeInputConfig(inputConfig), encodeOutputConfig(outputConfig)];

  it("deframes both messages when the stream is split at any byte boundary", () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const reader = new LengthPrefixedReader();
      const messages = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
      expect(messages, `split at byte ${cut}`).toEqual(expected);
      expect(reader.pendingBytes).toBe(0);
    }
  });

  it("deframes both messages when the stream arrives one byte at a time", () => {
    const reader = new LengthPrefixedReader();
    const messages: Uint8Array[] = [];
    for (let i = 0; i < stream.length; i++) {
      const completed = reader.push(stream.subarray(i, i + 1));
      // A message completes exactly on its last byte, never earlier.
      if (i === 32) expect(completed).toHaveLength(1);
      else if (i === stream.length - 1) expect(completed).toHaveLength(1);
      else expect(completed).toEqual([]);
      messages.push(...completed);
    }
    expect(messages).toEqual(expected);
  });
});

interface GoldenFrame {
  from: "sdk" | "harness";
  message: "InitializeConversationEvent" | "InputEvent" | "OutputEvent";
  frame: Record<string, unknown>;
}

const fixture = JSON.parse(readFileSync(new URL("./fixtures/era-d-frames.json", import.meta.url), "utf8")) as {
  cascadeId: string;
  frames: GoldenFrame[];
};

/** Decodes a frame with the codec its position in the conversation calls for, and re-encodes it. */
function reencode({ message, frame }: GoldenFrame): string {
  const text = JSON.stringify(frame);
  switch (message) {
    case "InitializeConversationEvent":
      return encodeInitializeConversationEvent(decodeInitializeConversationEvent(text));
    case "InputEvent":
      return encodeInputEvent(decodeInputFrame(text));
    case "OutputEvent":
      return encodeOutputEvent(decodeOutputEvent(text));
  }
}

describe("§22 era-D frames", () => {
  it("has the whole example turn", () => {
    expect(
      fixture.frames.map(
        (f) =>
          `${f.from}:${Object.keys(f.frame)
            .filter((k) => k !== "seqNum" && k !== "timestampMicros")
            .join()}`,
      ),
    ).toEqual([
      "sdk:config",
      "harness:initializeConversationResponse",
      "sdk:userInput",
      "harness:trajectoryStateUpdate",
      "harness:stepUpdate",
      "harness:callHookRequest",
      "sdk:callHookResponse",
      "harness:toolCall",
      "sdk:toolResponse",
      "harness:stepUpdate",
      "harness:stepUpdate",
      "harness:usageUpdate",
      "harness:trajectoryStateUpdate",
    ]);
  });

  it.each(fixture.frames.map((f, i) => [i, f] as const))(
    "frame %i decodes and re-encodes to the same JSON",
    (_, golden) => {
      const again = reencode(golden);
      expect(JSON.parse(again)).toEqual(golden.frame);
      // A second pass is byte-stable.
      expect(reencode({ ...golden, frame: JSON.parse(again) as Record<string, unknown> })).toBe(again);
    },
  );

  it("keeps the explicit zero values of the init frame", () => {
    const init = fixture.frames[0];
    if (init === undefined) throw new Error("fixture is empty");
    const text = reencode(init);
    for (const field of [
      '"cascadeId":""',
      '"maxTimeoutMs":0',
      '"enableDaemonCommands":false',
      '"compactionThreshold":0',
      '"finishToolSchemaJson":""',
      '"isDynamic":false',
      '"ruleId":""',
      '"enabled":false',
    ]) {
      expect(text).toContain(field);
    }
    const config = decodeInitializeConversationEvent(JSON.stringify(init.frame)).config;
    expect(config?.compactionThreshold).toBe(0);
    expect(config?.harnessSideTools?.runCommand).toMatchObject({
      enabled: true,
      maxTimeoutMs: 0,
      enableDaemonCommands: false,
    });
  });

  it("decodes the harness side into the events a client acts on", () => {
    const events = fixture.frames
      .filter((f) => f.from === "harness")
      .map((f) => decodeOutputEvent(JSON.stringify(f.frame)));
    expect(events.map((e) => e.event.case)).toEqual([
      "initializeConversationResponse",
      "trajectoryStateUpdate",
      "stepUpdate",
      "callHookRequest",
      "toolCall",
      "stepUpdate",
      "stepUpdate",
      "usageUpdate",
      "trajectoryStateUpdate",
    ]);
    expect(events.slice(1).map((e) => e.seqNum)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
    expect(events[0]?.event.value).toMatchObject({ cascadeId: fixture.cascadeId });
    expect(events.at(-1)?.event.value).toMatchObject({
      trajectoryId: fixture.cascadeId,
      state: TrajectoryStateUpdate_State.FULLY_IDLE,
    });
    expect(events[7]?.event.value).toMatchObject({
      total: { promptTokenCount: 812n, candidatesTokenCount: 9n, totalTokenCount: 821n },
    });
  });
});
