import { describe, expect, it } from "vitest";
import { MAX_STOP_CONTINUATIONS } from "../loop/stop-hook.js";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, type Frame, type TestClient } from "../test-support/ws-client.js";

// The STOP hook (protocol.md `StopArgs` / `StopResult`, upstream localharness.proto @774cb8d)
// driven with frames as upstream's client sends them: camelCase, enum names.

const SCRIPT = {
  turns: [
    // A CONTINUE's reason reaches the model as a system message: the scripted model answers the
    // latest user message of the transcript, so the turn below only plays when the reason is there.
    { match: "run the tests first", calls: [{ text: "continued after: {{prompt}}" }] },
    {
      match: "tools",
      calls: [{ toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] }, { text: "listed" }],
    },
    { match: "answer", calls: [{ text: "first answer" }] },
    { match: "boom", calls: [{ error: { message: "quota", httpCode: 429 } }] },
  ],
};
const STOP = "LIFECYCLE_HOOK_STOP";
const isStop = (f: Frame): boolean => f["callHookRequest"]?.type === STOP;
const answer = (client: TestClient, request: Frame, result: Frame): void =>
  client.send({ callHookResponse: { requestId: request["requestId"], ...result } });

describe("the STOP hook", () => {
  const fixture = useHarnessFixture({ name: "stop-hook", script: SCRIPT, config: { enabledHooks: [STOP] } });

  it("asks when the model is done; CONTINUE runs another model call that sees the reason, ALLOW_STOP ends the turn", async () => {
    const client = await fixture.connect();
    client.prompt("answer please");
    const first = (await client.next(isStop, "the first STOP hook call"))["callHookRequest"] as Frame;
    expect(first).toMatchObject({ name: "Stop", type: STOP });
    const trajectoryId = finalSteps(client.frames)[0]?.["trajectoryId"];
    // `continuation_count` is `optional` (explicit presence): a 0 is sent.
    expect(first["stopArgs"]).toEqual({ responseText: "first answer", trajectoryId, continuationCount: 0 });
    expect(client.unread().some((f) => f["trajectoryStateUpdate"]?.state === "STATE_FULLY_IDLE")).toBe(false);
    answer(client, first, { stopResult: { decision: "CONTINUE", reason: "run the tests first" } });

    const second = (await client.next(isStop, "the second STOP hook call"))["callHookRequest"] as Frame;
    expect(second["stopArgs"]).toEqual({
      responseText: "continued after: [system message] run the tests first",
      trajectoryId,
      continuationCount: 1,
    });
    answer(client, second, { stopResult: { decision: "ALLOW_STOP" } });
    const turn = await client.turn();
    const texts = finalSteps(client.frames)
      .filter((s) => s["source"] === "SOURCE_MODEL")
      .map((s) => s["text"]);
    expect(texts).toEqual(["first answer", "continued after: [system message] run the tests first"]);
    expect(turn.at(-1)?.["trajectoryStateUpdate"]).toEqual({ trajectoryId, state: "STATE_FULLY_IDLE" });
    client.close();
  });

  it("asks after tool calls only once the model stops calling tools", async () => {
    const client = await fixture.connect();
    client.prompt("use tools");
    const request = (await client.next(isStop))["callHookRequest"] as Frame;
    expect(finalSteps(client.frames).some((s) => s["listDirectory"] !== undefined && s["state"] === "STATE_DONE")).toBe(
      true,
    );
    expect(request["stopArgs"]).toMatchObject({ responseText: "listed" });
    answer(client, request, { stopResult: { decision: "ALLOW_STOP" } });
    expect((await client.turn()).at(-1)?.["trajectoryStateUpdate"]?.state).toBe("STATE_FULLY_IDLE");
    client.close();
  });

  it("fails safe: a hook that failed (errorMessage) or answers nothing known lets the turn stop", async () => {
    const client = await fixture.connect();
    client.prompt("answer");
    answer(client, (await client.next(isStop))["callHookRequest"], { errorMessage: "Hook failed: Error('boom')" });
    expect((await client.turn()).at(-1)?.["trajectoryStateUpdate"]).toMatchObject({ state: "STATE_FULLY_IDLE" });
    client.prompt("answer");
    answer(client, (await client.next(isStop))["callHookRequest"], { emptyResult: {} });
    expect((await client.turn()).at(-1)?.["trajectoryStateUpdate"]).toMatchObject({ state: "STATE_FULLY_IDLE" });
    await fixture.harness.waitForStderr("the STOP hook failed (Hook failed: Error('boom')); the turn stops");
    client.close();
  });

  it(`stops after ${MAX_STOP_CONTINUATIONS} CONTINUEs of a hook that never lets go`, async () => {
    const client = await fixture.connect();
    client.prompt("answer");
    const counts: number[] = [];
    for (let i = 0; i <= MAX_STOP_CONTINUATIONS; i++) {
      const request = (await client.next(isStop))["callHookRequest"] as Frame;
      counts.push(request["stopArgs"].continuationCount);
      answer(client, request, { stopResult: { decision: "CONTINUE", reason: "run the tests first" } });
    }
    expect((await client.turn()).at(-1)?.["trajectoryStateUpdate"]?.state).toBe("STATE_FULLY_IDLE");
    expect(counts).toEqual([...Array(MAX_STOP_CONTINUATIONS + 1).keys()]);
    await fixture.harness.waitForStderr(`the turn was continued ${MAX_STOP_CONTINUATIONS} times already`);
    client.close();
  });

  it("tells the hook about a budget stop and a model error, and does not continue them", async () => {
    const budgeted = await fixture.connect({ budgetConfig: { maxModelCalls: 1 } });
    budgeted.prompt("answer");
    answer(budgeted, (await budgeted.next(isStop))["callHookRequest"], { stopResult: { decision: "ALLOW_STOP" } });
    await budgeted.turn();
    budgeted.prompt("answer");
    const request = (await budgeted.next(isStop))["callHookRequest"] as Frame;
    expect(request["stopArgs"]).toMatchObject({ stopReason: "STOP_REASON_MAX_MODEL_CALLS_EXCEEDED" });
    answer(budgeted, request, { stopResult: { decision: "CONTINUE", reason: "more" } });
    expect((await budgeted.turn()).at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      state: "STATE_FULLY_IDLE",
      stopReason: "STOP_REASON_MAX_MODEL_CALLS_EXCEEDED",
    });
    budgeted.close();

    const failing = await fixture.connect();
    failing.prompt("boom");
    const onError = (await failing.next(isStop))["callHookRequest"] as Frame;
    expect(onError["stopArgs"]).toMatchObject({ errorMessage: "model error: quota" });
    answer(failing, onError, { stopResult: { decision: "CONTINUE", reason: "more" } });
    expect((await failing.turn()).at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      state: "STATE_FULLY_IDLE",
      error: "model error: quota",
    });
    failing.close();
  });
});
