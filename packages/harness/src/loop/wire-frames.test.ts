import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, type Channel, defineTool, type Transport } from "@antigravity-ts/sdk";
import { tryDecodeInputEventFrame } from "@antigravity-ts/sdk/internal";
import { decodeInputFrame, decodeOutputEvent, encodeOutputEvent } from "@antigravity-ts/sdk/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScript } from "../providers/script-format.js";
import { createInMemoryHarness, type InMemoryHarness } from "../server/in-memory-harness.js";

// The harness writes its frames with the SDK's schema-free writer and reads the client's with the
// fast reader (frame-codec.ts). Differential check on the frames of real turns (text, thinking, a
// built-in tool, a client tool and its response): every frame the harness sent is exactly what
// protobuf-es writes for the message it holds (`toJson(fromJson(frame))` gives the frame back, so
// no member, order, zero value, enum name or int64 text differs), and every frame it received is
// decoded as protobuf-es `fromJson` decodes it.

/** A transport that records the text frames of its channels, both ways. */
function recording(inner: Transport, sent: string[], received: string[]): Transport {
  return {
    async connect(options) {
      const channel: Channel = await inner.connect(options);
      return {
        send(frame) {
          sent.push(frame);
          channel.send(frame);
        },
        async *frames() {
          for await (const frame of channel.frames()) {
            received.push(frame);
            yield frame;
          }
        },
        close: (closeOptions) => channel.close(closeOptions),
      };
    },
  };
}

describe("the harness's frames against protobuf-es", () => {
  let workspace = "";
  let harness: InMemoryHarness;
  const sent: string[] = [];
  const received: string[] = [];

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-wire-frames-"));
    await writeFile(path.join(workspace, "notes.txt"), "héllo 😀\n");
    const script = parseScript({
      turns: [
        {
          match: "use the tools",
          calls: [
            { thinking: "Look first.", toolCalls: [{ name: "list_directory", args: { path: "." } }] },
            { toolCalls: [{ name: "lookup", args: { key: "answer", nested: { n: 0, ok: false, list: [] } } }] },
            { text: 'Done: 42, in "quotes" and\nlines.' },
          ],
        },
      ],
    });
    harness = createInMemoryHarness({ workspace, script });
  });

  afterAll(async () => {
    await harness.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it("sends frames equal to toJson of their message and decodes the client's frames as fromJson does", async () => {
    const lookup = defineTool({
      name: "lookup",
      description: "Looks a key up",
      call: (args: { key: string }) => ({ value: 42, key: args.key, empty: "" }),
    });
    const agent = await Agent.builder()
      .transport(recording(harness, sent, received))
      .workspaces(workspace)
      .tool(lookup)
      .allowAll()
      .build()
      .start();
    try {
      expect((await agent.chatToCompletion("use the tools")).text).toContain("Done: 42");
    } finally {
      await agent.stop();
    }

    const kinds = new Set(received.map((frame) => decodeOutputEvent(frame).event.case));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(["initializeConversationResponse", "stepUpdate", "toolCall", "trajectoryStateUpdate"]),
    );
    for (const frame of received) expect(encodeOutputEvent(decodeOutputEvent(frame)), frame).toBe(frame);

    const inputs = sent.slice(1); // the first is the InitializeConversationEvent
    expect(inputs.map((frame) => decodeInputFrame(frame).event.case)).toEqual(
      expect.arrayContaining(["userInput", "toolResponse"]),
    );
    for (const frame of inputs) {
      const fast = tryDecodeInputEventFrame(frame);
      expect(fast, frame).toBeDefined();
      expect(fast, frame).toStrictEqual(decodeInputFrame(frame));
    }
  });

  it("keeps the order of frames behind one the full decoder is loaded for", async () => {
    // Two confirmations for steps that wait for none: each is refused at once, in a step of its own.
    // The first has its stepIndex as text, which the fast reader leaves to protobuf-es (§4.1 accepts it);
    // the full decoder is not loaded yet (no frame before needed it), so its import takes real time.
    const slow = JSON.stringify({ toolConfirmation: { trajectoryId: "first-slow", stepIndex: "3", accepted: true } });
    const fast = JSON.stringify({ toolConfirmation: { trajectoryId: "then-fast", stepIndex: 4, accepted: true } });
    const channel = await harness.connect();
    const frames: string[] = [];
    try {
      channel.send(JSON.stringify({ config: {} }));
      for await (const frame of channel.frames()) {
        frames.push(frame);
        if (frame.includes("initializeConversationResponse")) {
          channel.send(slow);
          channel.send(fast);
        }
        if (frames.some((f) => f.includes("first-slow")) && frames.some((f) => f.includes("then-fast"))) break;
      }
    } finally {
      await channel.close();
    }
    expect(tryDecodeInputEventFrame(slow)).toBeUndefined(); // left to the full decoder
    expect(tryDecodeInputEventFrame(fast)).toBeDefined();
    const first = frames.findIndex((frame) => frame.includes("first-slow"));
    expect(first).toBeGreaterThan(0);
    expect(frames.findIndex((frame) => frame.includes("then-fast"))).toBeGreaterThan(first);
  });
});
