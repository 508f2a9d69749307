import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInMemoryHarness, loadScriptFile, parseScript, type InMemoryHarness } from "@antigravity-ts/harness";
import { defineE2ESuite, deferred } from "@antigravity-ts/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ErrorCode, SdkError, defineTool } from "../index.js";

// The SDK against the real reference harness in this process (createInMemoryHarness): the
// same sessions, turn loop, tools, hooks and policies as `antigravity-harness`, over the
// in-memory channel pair — no process, no socket. The shared end-to-end suite runs here as it
// runs over a WebSocket and a subprocess (test/node/e2e); FakeHarness stays for frames a real
// harness never sends.

defineE2ESuite("the reference harness in memory", async (context) => {
  const script = await context.shared(
    "script",
    () => loadScriptFile(context.script),
    async () => undefined,
  );
  return context.shared(
    "in-memory-harness",
    async () => createInMemoryHarness({ workspace: context.workspace, script }),
    (harness) => harness.close(),
  );
});

describe("the reference harness in memory", () => {
  let workspace = "";
  let harness: InMemoryHarness;

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-in-memory-"));
    const script = parseScript({
      turns: [
        {
          match: "wait for the halt",
          calls: [{ toolCalls: [{ name: "wait_for_halt", args: {} }] }, { text: "not reached" }],
        },
        { calls: [{ text: "Hello after the halt." }] },
      ],
    });
    harness = createInMemoryHarness({ workspace, script });
  });

  afterAll(async () => {
    await harness.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it("halts a turn during a client tool: the tool's signal aborts, its call is recorded as stopped, the next turn runs", async () => {
    const started = deferred<AbortSignal>();
    const waitForHalt = defineTool({
      name: "wait_for_halt",
      description: "Waits until the turn is halted",
      call: (_args: unknown, context) => {
        started.resolve(context.signal);
        return new Promise((_, reject) =>
          context.signal.addEventListener("abort", () => reject(new Error("stopped by the halt")), { once: true }),
        );
      },
    });
    const agent = await Agent.builder()
      .transport(harness)
      .workspaces(workspace)
      .tool(waitForHalt)
      .allowAll()
      .build()
      .start();
    try {
      const stream = agent.chat("wait for the halt");
      const signal = await started.promise;
      const halted = stream.abort();
      const failure = await stream.final().then(
        () => undefined,
        (error: unknown) => SdkError.from(error),
      );
      await halted;
      expect(failure?.code).toBe(ErrorCode.Canceled);
      expect(signal.aborted).toBe(true);
      const history = await agent.conversation().history();
      expect(history.filter((step) => step.stepIndex >= 50_000).map((step) => [step.status, step.error])).toEqual([
        ["ERROR", "stopped by the halt"],
      ]);
      expect((await agent.chatToCompletion("hello")).text).toBe("Hello after the halt.");
    } finally {
      await agent.stop();
    }
  });

  it("ends a refused resume with the error the same WebSocket close gives (NotFound, close code 1008); the harness serves on", async () => {
    const error = await Agent.builder()
      .transport(harness)
      .workspaces(workspace)
      .allowAll()
      .conversationId("00000000-0000-4000-8000-00000000dead")
      .sessionContinuationMode("resume")
      .build()
      .start()
      .then(
        () => undefined,
        (e: unknown) => SdkError.from(e),
      );
    expect(error).toMatchObject({ code: ErrorCode.NotFound, details: { closeCode: 1008 } });
    expect(error?.message).toContain("no stored session 00000000-0000-4000-8000-00000000dead to resume");
    const agent = await Agent.builder().transport(harness).workspaces(workspace).allowAll().build().start();
    try {
      expect((await agent.chatToCompletion("hello")).text).toBe("Hello after the halt.");
    } finally {
      await agent.stop();
    }
  });

  it("counts its sessions and refuses connections once closed, saying what to do", async () => {
    const own = createInMemoryHarness({ workspace });
    const agent = await Agent.builder().transport(own).workspaces(workspace).allowAll().build().start();
    expect(own.sessionCount).toBe(1);
    await agent.stop();
    await own.close();
    expect(own.sessionCount).toBe(0);
    const refused = await own.connect().then(
      () => undefined,
      (error: unknown) => SdkError.from(error),
    );
    expect(refused?.code).toBe(ErrorCode.Unavailable);
    expect(refused?.message).toMatch(/closed; create a new one/);
  });
});
