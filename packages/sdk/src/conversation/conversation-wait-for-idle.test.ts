import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { ErrorCode, SdkError } from "../errors.js";
import {
  createFakeHarnessTransport,
  type FakeHarness,
  type FakeHarnessTransport,
} from "../transport/in-memory-harness.js";
import { StepUpdate_Source, StepUpdate_State, StepUpdate_Target, TrajectoryStateUpdate_State } from "../wire/index.js";
import { deferred } from "@antigravity-ts/test-kit";

// Conversation.waitForIdle (issue 10 item 14; upstream local_connection_test.py
// test_wait_for_idle_does_not_deadlock: concurrent waiters all unblock when the turn ends).

const T = "conv-0000000000000000000000000000000004";
let transport: FakeHarnessTransport | undefined;

afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

function reply(harness: FakeHarness, index: number, text: string): void {
  harness.step({
    trajectoryId: T,
    cascadeId: T,
    stepIndex: index,
    state: StepUpdate_State.DONE,
    source: StepUpdate_Source.MODEL,
    target: StepUpdate_Target.USER,
    text,
    textDelta: text,
  });
}

async function start(script: (harness: FakeHarness) => Promise<void>) {
  transport = createFakeHarnessTransport(async (harness) => {
    await harness.readInit();
    harness.respondInit({ cascadeId: T });
    await script(harness);
  });
  return Agent.builder().transport(transport).allowAll().build().start({ timeoutMs: 5_000 });
}

describe("Conversation.waitForIdle", () => {
  it("resolves at once when no turn ever ran", async () => {
    const agent = await start(async () => undefined);
    await agent.conversation().waitForIdle({ timeoutMs: 5_000 });
    await agent.waitForIdle({ timeoutMs: 5_000 }); // StartedAgent mirrors its conversation
    expect(agent.conversation().isIdle).toBe(true);
    await agent.stop();
  });

  it("unblocks every concurrent waiter when the sent turn ends, not before (test_wait_for_idle_does_not_deadlock)", async () => {
    const release = deferred();
    const agent = await start(async (harness) => {
      await harness.expect("userInput");
      harness.state(T, TrajectoryStateUpdate_State.RUNNING);
      reply(harness, 1, "working");
      await release.promise;
      harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
    });
    const conversation = agent.conversation();
    const stream = conversation.chat("go");
    for await (const step of stream.steps()) if (step.content === "working") break;
    let resolved = 0;
    const waiters = [conversation.waitForIdle(), conversation.waitForIdle({ timeoutMs: 10_000 })].map((w) =>
      w.then(() => (resolved += 1)),
    );
    // The turn is held by the harness: a round trip through the event loop settles nothing.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(resolved).toBe(0);
    release.resolve();
    await Promise.all(waiters);
    expect(resolved).toBe(2);
    await agent.waitForIdle();
    expect(conversation.isIdle).toBe(true);
    expect((await stream.final()).text).toBe("working");
    await agent.stop();
  });

  it("waits for a turn the harness started on its own", async () => {
    const release = deferred();
    const started = deferred();
    const go = deferred();
    const agent = await start(async (harness) => {
      await go.promise; // once the agent is up, as a trigger would
      harness.state(T, TrajectoryStateUpdate_State.RUNNING);
      reply(harness, 1, "a trigger's turn");
      started.resolve();
      await release.promise;
      harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
    });
    const conversation = agent.conversation();
    const turns = conversation.turns()[Symbol.asyncIterator]();
    go.resolve();
    await turns.next();
    await started.promise;
    let done = false;
    const waiting = conversation.waitForIdle({ timeoutMs: 10_000 }).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(done).toBe(false);
    release.resolve();
    await waiting;
    await turns.return?.();
    expect((await conversation.history()).map((s) => s.content)).toEqual(["a trigger's turn"]);
    await agent.stop();
  });

  it("waits for prompts queued behind the running turn, and a failed turn counts as over", async () => {
    const agent = await start(async (harness) => {
      await harness.expect("userInput");
      harness.state(T, TrajectoryStateUpdate_State.RUNNING);
      reply(harness, 1, "first");
      harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE, { error: "model exploded" });
      await harness.expect("userInput");
      harness.state(T, TrajectoryStateUpdate_State.RUNNING);
      reply(harness, 2, "second");
      harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
    });
    const conversation = agent.conversation();
    const first = conversation.chat("one");
    const second = conversation.chat("two");
    await conversation.waitForIdle({ timeoutMs: 10_000 });
    expect(await conversation.turnCount()).toBe(2);
    await expect(first.final()).rejects.toMatchObject({ code: ErrorCode.ExecutionError });
    expect((await second.final()).text).toBe("second");
    await agent.stop();
  });

  it("gives up with DeadlineExceeded or Canceled without cancelling the turn", async () => {
    const release = deferred();
    const agent = await start(async (harness) => {
      await harness.expect("userInput");
      harness.state(T, TrajectoryStateUpdate_State.RUNNING);
      reply(harness, 1, "slow");
      await release.promise;
      harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
    });
    const conversation = agent.conversation();
    const stream = conversation.chat("go");
    for await (const step of stream.steps()) if (step.content === "slow") break;
    const timedOut = await conversation.waitForIdle({ timeoutMs: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(timedOut).toBeInstanceOf(SdkError);
    expect((timedOut as SdkError).code).toBe(ErrorCode.DeadlineExceeded);
    const aborted = await conversation.waitForIdle({ signal: AbortSignal.abort() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((aborted as SdkError).code).toBe(ErrorCode.Canceled);
    release.resolve();
    expect((await stream.final()).text).toBe("slow");
    await agent.stop();
  });
});
