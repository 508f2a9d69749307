import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../agent/agent.js";
import { createHarnessConnection } from "../connection/harness-connection.js";
import {
  createFakeHarnessTransport,
  type FakeHarness,
  type FakeHarnessTransport,
} from "../transport/in-memory-harness.js";
import type { Trigger } from "../triggers/trigger.js";
import type { ConversationStore } from "../conversation/conversation-store.js";
import { StepUpdate_Source, StepUpdate_State, StepUpdate_Target, TrajectoryStateUpdate_State } from "../wire/index.js";
import { consoleLogger, type Logger } from "./logger.js";

const transports: FakeHarnessTransport[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(transports.splice(0).map((t) => t.settled()));
});

/** A logger that keeps every line with its level. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (message) => lines.push(`debug ${message}`),
    info: (message) => lines.push(`info ${message}`),
    warn: (message) => lines.push(`warn ${message}`),
    error: (message) => lines.push(`error ${message}`),
  };
}

/** A fake harness that accepts the session, sends a malformed frame, then waits for the end. */
function malformedFrameHarness(sent: { resolve: () => void }): FakeHarnessTransport {
  const transport = createFakeHarnessTransport(async (harness: FakeHarness) => {
    await harness.readInit();
    harness.respondInit({ cascadeId: "c1" });
    harness.sendRaw("not json at all");
    sent.resolve();
  });
  transports.push(transport);
  return transport;
}

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  return { promise: new Promise<void>((r) => (resolve = r)), resolve };
}

describe("logger option", () => {
  it("a connection's warnings (an ignored frame) reach the logger, not the console", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const logger = recordingLogger();
    const sent = signal();
    const connection = await createHarnessConnection({
      transport: malformedFrameHarness(sent),
      config: {},
      timeoutMs: 5_000,
      logger,
    });
    await sent.promise;
    await vi.waitFor(() => expect(logger.lines.some((line) => line.startsWith("warn ignored a frame: "))).toBe(true), {
      timeout: 5_000,
    });
    await connection.disconnect();
    expect(warn).not.toHaveBeenCalled();
  });

  it("without a logger the warning goes to console.warn, prefixed as before", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const sent = signal();
    const connection = await createHarnessConnection({
      transport: malformedFrameHarness(sent),
      config: {},
      timeoutMs: 5_000,
    });
    await sent.promise;
    await vi.waitFor(
      () =>
        expect(warn.mock.calls.some(([line]) => String(line).startsWith("antigravity: ignored a frame: "))).toBe(true),
      { timeout: 5_000 },
    );
    await connection.disconnect();
  });

  it("an agent's failed trigger is reported to the agent's logger", async () => {
    const logger = recordingLogger();
    const failing: Trigger = {
      run: () => Promise.reject(new Error("the trigger broke")),
    };
    const transport = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      harness.respondInit({ cascadeId: "c1" });
    });
    transports.push(transport);
    const agent = await Agent.builder()
      .transport(transport)
      .trigger(failing)
      .logger(logger)
      .allowAll()
      .build()
      .start({ timeoutMs: 5_000 });
    try {
      await vi.waitFor(() => expect(logger.lines).toContain("warn trigger failed: the trigger broke"), {
        timeout: 5_000,
      });
    } finally {
      await agent.stop();
    }
  });

  it("an agent's failed automatic save is reported to the agent's logger", async () => {
    const logger = recordingLogger();
    const store: ConversationStore = {
      load: async () => undefined,
      save: () => Promise.reject(new Error("the disk is full")),
    };
    const transport = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      harness.respondInit({ cascadeId: "c1" });
      await harness.expect("userInput");
      harness.step({
        trajectoryId: "t1",
        cascadeId: "c1",
        stepIndex: 1,
        state: StepUpdate_State.DONE,
        source: StepUpdate_Source.MODEL,
        target: StepUpdate_Target.USER,
        text: "hi",
        textDelta: "hi",
      });
      harness.state("t1", TrajectoryStateUpdate_State.FULLY_IDLE);
    });
    transports.push(transport);
    const agent = await Agent.builder()
      .transport(transport)
      .conversationStore(store)
      .logger(logger)
      .allowAll()
      .build()
      .start({ timeoutMs: 5_000 });
    try {
      expect((await agent.chatToCompletion("hello", { timeoutMs: 5_000 })).text).toBe("hi");
      await vi.waitFor(
        () =>
          expect(
            logger.lines.some(
              (line) => line.startsWith("warn could not save the conversation: ") && line.includes("the disk is full"),
            ),
          ).toBe(true),
        { timeout: 5_000 },
      );
    } finally {
      await agent.stop();
    }
  });

  it("consoleLogger sends each level to the console method of that level", () => {
    const spies = (["debug", "info", "warn", "error"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation(() => undefined),
    );
    consoleLogger.debug("d");
    consoleLogger.info("i");
    consoleLogger.warn("w");
    consoleLogger.error("e");
    expect(spies.map((spy) => spy.mock.calls)).toEqual([
      [["antigravity: d"]],
      [["antigravity: i"]],
      [["antigravity: w"]],
      [["antigravity: e"]],
    ]);
  });
});
