import { beforeAll, describe, expect, it } from "vitest";
import {
  InitializeConversationEventSchema,
  create,
  decodeOutputEvent,
  encodeInitializeConversationEvent,
} from "@antigravity-ts/sdk/wire";
import { SubprocessTransport } from "./subprocess-transport.js";
import { isAlive } from "./testing/process-probe.js";
import { ensureReferenceHarness } from "@antigravity-ts/test-kit";

// The real peer: the reference harness built from packages/harness, spawned like localharness.
let harnessPath = "";
beforeAll(async () => {
  harnessPath = await ensureReferenceHarness();
}, 300_000);

describe("SubprocessTransport with the reference harness", () => {
  it("handshakes over stdio, opens the WebSocket and answers the init event", async () => {
    const channel = await new SubprocessTransport({ harnessPath }).connect({ timeoutMs: 20_000 });
    try {
      channel.send(encodeInitializeConversationEvent(create(InitializeConversationEventSchema, { config: {} })));
      let first: ReturnType<typeof decodeOutputEvent> | undefined;
      for await (const frame of channel.frames()) {
        first = decodeOutputEvent(frame);
        break;
      }
      expect(first?.event.case).toBe("initializeConversationResponse");
    } finally {
      await channel.close();
    }
    expect(await channel.exited).toEqual({ code: 0, signal: null });
    expect(isAlive(channel.pid)).toBe(false);
  });
});
