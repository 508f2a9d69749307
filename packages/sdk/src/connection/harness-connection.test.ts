import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { HookRunner } from "../hooks/hook-runner.js";
import { allowAll, askUser, deny } from "../policies/policy.js";
import { defineTool } from "../tools/tool.js";
import { ToolRunner } from "../tools/tool-runner.js";
import {
  createFakeHarnessTransport,
  type FakeHarness,
  type FakeHarnessTransport,
} from "../transport/in-memory-harness.js";
import type { Step } from "../step.js";
import {
  LifecycleHook,
  PolicyDecision,
  StepUpdate_Source,
  StepUpdate_State,
  StepUpdate_Target,
  TrajectoryStateUpdate_State,
  TrajectoryStateUpdate_StopReason,
} from "../wire/index.js";
import { createHarnessConnection, type HarnessConnection } from "./harness-connection.js";
import type { HarnessConnectionOptions } from "./harness-connection-options.js";
import { deferred, textStep } from "@antigravity-ts/test-kit";

const T = "traj-main";
const { FULLY_IDLE, RUNNING, CANCELLED, WAITING_FOR_TASKS } = TrajectoryStateUpdate_State;

const transports: FakeHarnessTransport[] = [];

// Every scripted harness must have run to its end without a failed expectation.
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.settled()));
});

async function open(
  script: (harness: FakeHarness) => Promise<void>,
  options: Partial<HarnessConnectionOptions> = {},
): Promise<{ connection: HarnessConnection; settled: () => Promise<void> }> {
  const transport = createFakeHarnessTransport(script);
  transports.push(transport);
  const connection = await createHarnessConnection({ transport, config: {}, timeoutMs: 5_000, ...options });
  return { connection, settled: () => transport.settled() };
}

/** Handshake: reads the config, answers with cascade id `T`. */
async function handshake(harness: FakeHarness): Promise<void> {
  await harness.readInit();
  harness.respondInit({ cascadeId: T });
}

async function collect(steps: AsyncIterable<Step>): Promise<{ steps: Step[]; error?: SdkError }> {
  const out: Step[] = [];
  try {
    for await (const step of steps) out.push(step);
  } catch (error) {
    return { steps: out, error: SdkError.from(error) };
  }
  return { steps: out };
}

function text(
  harness: FakeHarness,
  stepIndex: number,
  delta: string,
  state = StepUpdate_State.ACTIVE,
  trajectoryId = T,
): void {
  harness.step(textStep({ trajectoryId, cascadeId: T, stepIndex, state }, delta));
}

describe("HarnessConnection handshake", () => {
  it("sends the config first, waits for the init response, replays history and seeds usage", async () => {
    let firstFrame = "";
    const { connection, settled } = await open(
      async (harness) => {
        firstFrame = await harness.readRaw();
        harness.respondInit({
          cascadeId: "conv-1",
          history: [
            {
              trajectoryId: "conv-1",
              stepIndex: 0,
              state: StepUpdate_State.DONE,
              source: StepUpdate_Source.MODEL,
              target: StepUpdate_Target.USER,
              text: "earlier",
            },
          ],
          cumulativeUsage: { promptTokenCount: 10n, candidatesTokenCount: 5n, totalTokenCount: 15n },
          trajectoryUsage: [{ trajectoryId: "conv-1", usage: { totalTokenCount: 15n } }],
        });
      },
      {
        tools: new ToolRunner([defineTool({ name: "ping", description: "Replies pong", call: () => "pong" })]),
        hooks: new HookRunner([{ postTurn: () => undefined }]),
        policies: [deny("run_command"), askUser("edit_file", () => true), allowAll()],
      },
    );
    const frame = JSON.parse(firstFrame) as { config: Record<string, unknown> };
    expect(Object.keys(frame)).toEqual(["config"]);
    expect(frame.config["tools"]).toEqual([
      { name: "ping", description: "Replies pong", parametersJsonSchema: '{"type":"object","properties":{}}' },
    ]);
    expect(frame.config["enabledHooks"]).toEqual(["LIFECYCLE_HOOK_POST_TURN"]);
    expect(frame.config["policyConfig"]).toEqual({
      rules: [
        {
          tool: "run_command",
          name: "run_command",
          decision: "POLICY_DECISION_DENY",
          denyReason: "Denied by policy 'run_command'.",
          isDynamic: false,
          ruleId: "",
        },
        {
          tool: "edit_file",
          name: "edit_file",
          decision: "POLICY_DECISION_ASK_USER",
          isDynamic: true,
          ruleId: "rule_1",
        },
        { tool: "*", name: "allow_all", decision: "POLICY_DECISION_ALLOW", isDynamic: false, ruleId: "" },
      ],
    });
    expect(connection.conversationId).toBe("conv-1");
    expect(connection.initialHistory.map((s) => [s.id, s.content])).toEqual([["conv-1:0", "earlier"]]);
    expect(connection.usage.total.totalTokenCount).toBe(15);
    expect(connection.usage.byTrajectory.get("conv-1")?.totalTokenCount).toBe(15);
    expect(connection.isIdle).toBe(true);
    await connection.disconnect();
    await settled();
    expect(PolicyDecision.DENY).toBe(2);
  });

  it("fails with Unavailable and closes the channel when the harness hangs up before answering", async () => {
    const transport = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      await harness.close();
    });
    await expect(createHarnessConnection({ transport, config: {} })).rejects.toMatchObject({
      code: ErrorCode.Unavailable,
    });
  });

  it("gives up after timeoutMs and closes the channel", async () => {
    let sdkClosed: Promise<boolean> | undefined;
    const transport = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      sdkClosed = harness.closedBySdk();
    });
    await expect(createHarnessConnection({ transport, config: {}, timeoutMs: 20 })).rejects.toMatchObject({
      code: ErrorCode.DeadlineExceeded,
    });
    await transport.settled();
    expect(await sdkClosed).toBe(true);
  });
});

describe("HarnessConnection turns", () => {
  it("sends sanitised user input and yields the turn's steps until FULLY_IDLE", async () => {
    let input: unknown;
    const { connection, settled } = await open(async (harness) => {
      await handshake(harness);
      input = (await harness.read()).event;
      harness.state(T, RUNNING);
      text(harness, 1, "Hel");
      text(harness, 1, "lo", StepUpdate_State.DONE);
      harness.send({
        event: {
          case: "usageUpdate",
          value: { total: { totalTokenCount: 42n }, agents: [{ trajectoryId: T, usage: { totalTokenCount: 42n } }] },
        },
      });
      harness.state(T, FULLY_IDLE, { stopReason: TrajectoryStateUpdate_StopReason.MAX_MODEL_CALLS_EXCEEDED });
    });
    await connection.send("a\u0000b\tc\u007f\u009fd\ne");
    expect(connection.isIdle).toBe(false);
    const { steps, error } = await collect(connection.receiveSteps());
    expect(error).toBeUndefined();
    expect(input).toMatchObject({
      case: "userInput",
      value: { parts: [{ part: { case: "text", value: "a b\tc  d\ne" } }] },
    });
    expect(steps.map((s) => [s.id, s.status, s.contentDelta])).toEqual([
      [`${T}:1`, "ACTIVE", "Hel"],
      [`${T}:1`, "DONE", "lo"],
    ]);
    expect(connection.usage.total.totalTokenCount).toBe(42);
    expect(connection.lastStopReason).toBe("MAX_MODEL_CALLS_EXCEEDED");
    expect(connection.isIdle).toBe(true);
    await connection.disconnect();
    await settled();
  });

  it("refuses empty and whitespace-only prompts with InvalidArgument", async () => {
    const { connection } = await open(handshake);
    await expect(connection.send("")).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    await expect(connection.send(" \n\t ")).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
    expect(connection.isIdle).toBe(true);
    await connection.disconnect();
  });

  it.each([
    ["STATE_FULLY_IDLE", '"STATE_FULLY_IDLE"'],
    ["the old name STATE_IDLE", '"STATE_IDLE"'],
    ["the number 2", "2"],
  ])("ends the turn on %s", async (_label, state) => {
    const { connection } = await open(async (harness) => {
      await handshake(harness);
      await harness.expect("userInput");
      text(harness, 1, "hi", StepUpdate_State.DONE);
      harness.sendRaw(`{"trajectoryStateUpdate":{"trajectoryId":"${T}","state":${state}}}`);
    });
    await connection.send("go");
    const { steps, error } = await collect(connection.receiveSteps());
    expect(error).toBeUndefined();
    expect(steps).toHaveLength(1);
    await connection.disconnect();
  });

  it("does not end on WAITING_FOR_TASKS nor on a subagent's idle, only on the main trajectory's", async () => {
    const { connection } = await open(async (harness) => {
      await handshake(harness);
      await harness.expect("userInput");
      harness.state(T, RUNNING); // before any step: adopts T as the main trajectory
      harness.state("sub-1", RUNNING);
      text(harness, 1, "a");
      harness.state(T, WAITING_FOR_TASKS);
      text(harness, 1, "sub", StepUpdate_State.DONE, "sub-1");
      harness.state("sub-1", FULLY_IDLE);
      harness.state("sub-1", CANCELLED, { error: "subagent failed" });
      text(harness, 2, "b", StepUpdate_State.DONE);
      harness.state(T, FULLY_IDLE);
    });
    await connection.send("go");
    const { steps, error } = await collect(connection.receiveSteps());
    expect(error).toBeUndefined();
    expect(steps.map((s) => `${s.trajectoryId}:${s.contentDelta}`)).toEqual([`${T}:a`, "sub-1:sub", `${T}:b`]);
    await connection.disconnect();
  });

  it("treats repeated idle updates as harmless: the next turn is not ended by a leftover", async () => {
    const secondTurnStarted = deferred<void>();
    const { connection } = await open(async (harness) => {
      await handshake(harness);
      await harness.expect("userInput");
      text(harness, 1, "one", StepUpdate_State.DONE);
      harness.state(T, FULLY_IDLE);
      harness.state(T, FULLY_IDLE);
      await harness.expect("userInput");
      harness.state(T, FULLY_IDLE); // a late repeat of turn 1's idle, read after the second send
      await secondTurnStarted.promise;
      text(harness, 2, "two", StepUpdate_State.DONE);
      harness.state(T, FULLY_IDLE);
    });
    await connection.send("first");
    expect((await collect(connection.receiveSteps())).steps).toHaveLength(1);
    await connection.send("second");
    const second = collect(connection.receiveSteps());
    secondTurnStarted.resolve();
    const { steps, error } = await second;
    expect(error).toBeUndefined();
    expect(steps.map((s) => s.contentDelta)).toEqual(["two"]);
    await connection.disconnect();
  });

  it("waits in send() for a turn still running in the harness; waitForIdle is bounded", async () => {
    const release = deferred<void>();
    let earlyInput = false;
    const { connection } = await open(async (harness) => {
      await handshake(harness);
      await harness.expect("userInput");
      harness.state(T, RUNNING);
      const second = harness.read();
      void second.then(() => (earlyInput = true));
      await release.promise;
      expect(earlyInput).toBe(false); // the second prompt did not overtake the running turn
      text(harness, 1, "one", StepUpdate_State.DONE);
      harness.state(T, FULLY_IDLE);
      expect((await second).event.case).toBe("userInput");
      harness.state(T, FULLY_IDLE, { error: "second turn failed" });
    });
    await connection.send("first");
    await expect(connection.waitForIdle({ timeoutMs: 10 })).rejects.toMatchObject({ code: ErrorCode.DeadlineExceeded });
    const sending = connection.send("second");
    await new Promise((resolve) => setTimeout(resolve, 20));
    release.resolve();
    await sending;
    const { error } = await collect(connection.receiveSteps());
    expect(error?.message).toBe("second turn failed");
    await connection.waitForIdle();
    await connection.disconnect();
  });

  it("fails with ExecutionError when FULLY_IDLE carries an error, and on CANCELLED with its text", async () => {
    const { connection } = await open(async (harness) => {
      await handshake(harness);
      await harness.expect("userInput");
      text(harness, 1, "x");
      harness.state(T, FULLY_IDLE, { error: "model exploded" });
      await harness.expect("userInput");
      harness.state(T, CANCELLED, { error: "denied by pre-turn hook" });
    });
    await connection.send("one");
    const first = await collect(connection.receiveSteps());
    expect(first.steps).toHaveLength(1);
    expect(first.error).toMatchObject({ code: ErrorCode.ExecutionError, message: "model exploded" });
    await connection.send("two");
    const second = await collect(connection.receiveSteps());
    expect(second.error).toMatchObject({ code: ErrorCode.ExecutionError, message: "denied by pre-turn hook" });
    await connection.disconnect();
  });

  it("ends a halted turn with Canceled and aborts the running tool's signal", async () => {
    const toolAborted = deferred<unknown>();
    const tools = new ToolRunner([
      defineTool({
        name: "wait",
        description: "Waits until aborted",
        call: (_args: unknown, context) =>
          new Promise((resolve) => {
            const stop = (): void => {
              toolAborted.resolve(context.signal.reason);
              resolve("stopped");
            };
            // The halt may come before the tool even starts: its signal is then aborted already.
            if (context.signal.aborted) stop();
            else context.signal.addEventListener("abort", stop);
          }),
      }),
    ]);
    const { connection } = await open(
      async (harness) => {
        await handshake(harness);
        await harness.expect("userInput");
        harness.state(T, RUNNING);
        harness.send({ event: { case: "toolCall", value: { id: "c1", name: "wait", argumentsJson: "{}" } } });
        expect(await harness.expect("haltRequest")).toBe(true);
        expect(await harness.expect("toolResponse")).toMatchObject({ id: "c1", responseJson: '{"result":"stopped"}' });
        harness.state(T, CANCELLED);
      },
      { tools },
    );
    await connection.send("go");
    const iterator = connection.receiveSteps()[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ stepIndex: 50_000, status: "ACTIVE" });
    await connection.halt();
    const rest = await collect({ [Symbol.asyncIterator]: () => iterator });
    // The tool stops on the abort and answers; the harness then reports the cancellation.
    expect(rest.steps.map((s) => [s.stepIndex, s.status, s.content])).toEqual([[50_000, "DONE", '"stopped"']]);
    expect(rest.error?.code).toBe(ErrorCode.Canceled);
    expect(await toolAborted.promise).toMatchObject({ code: ErrorCode.Canceled });
    await connection.disconnect();
  });

  it.each([
    [401, ErrorCode.PermissionDenied],
    [403, ErrorCode.PermissionDenied],
    [400, ErrorCode.InvalidArgument],
  ])("surfaces a SYSTEM error step with HTTP %i after yielding it", async (httpCode, code) => {
    const { connection } = await open(async (harness) => {
      await handshake(harness);
      await harness.expect("userInput");
      harness.step({
        trajectoryId: T,
        stepIndex: 1,
        state: StepUpdate_State.ERROR,
        source: StepUpdate_Source.SYSTEM,
        error: { errorMessage: "API key not valid", httpCode },
      });
      harness.state(T, FULLY_IDLE);
    });
    await connection.send("go");
    const { steps, error } = await collect(connection.receiveSteps());
    expect(steps.map((s) => [s.status, s.httpCode])).toEqual([["ERROR", httpCode]]);
    expect(error?.code).toBe(code);
    expect(error?.message).toContain("API key not valid");
    await connection.disconnect();
  });

  it("keeps going after a SYSTEM error step with another HTTP code", async () => {
    const { connection } = await open(async (harness) => {
      await handshake(harness);
      await harness.expect("userInput");
      harness.step({
        trajectoryId: T,
        stepIndex: 1,
        state: StepUpdate_State.ERROR,
        source: StepUpdate_Source.SYSTEM,
        error: { errorMessage: "overloaded", httpCode: 503 },
      });
      text(harness, 2, "recovered", StepUpdate_State.DONE);
      harness.state(T, FULLY_IDLE);
    });
    await connection.send("go");
    const { steps, error } = await collect(connection.receiveSteps());
    expect(error).toBeUndefined();
    expect(steps.map((s) => s.content)).toEqual(["", "recovered"]);
    await connection.disconnect();
  });

  it("survives malformed frames and reports them through onProtocolError", async () => {
    const reported: string[] = [];
    const { connection } = await open(
      async (harness) => {
        await handshake(harness);
        await harness.expect("userInput");
        harness.sendRaw("not json at all");
        harness.sendRaw("[1,2,3]");
        harness.sendRaw('{"stepUpdate":{"stepIndex":"not a number"}}');
        text(harness, 1, "still here", StepUpdate_State.DONE);
        harness.state(T, FULLY_IDLE);
      },
      { onProtocolError: (error, frame) => reported.push(`${error.code}:${frame}`) },
    );
    await connection.send("go");
    const { steps, error } = await collect(connection.receiveSteps());
    expect(error).toBeUndefined();
    expect(steps.map((s) => s.content)).toEqual(["still here"]);
    expect(reported).toHaveLength(3);
    expect(reported.every((r) => r.startsWith("ProtocolError:"))).toBe(true);
    await connection.disconnect();
  });

  it("keeps frame order when a frame needs the lazily loaded full decoder (a null seqNum, a step index as text)", async () => {
    const { connection } = await open(async (harness) => {
      await handshake(harness);
      await harness.expect("userInput");
      text(harness, 1, "a");
      harness.sendRaw(
        `{"seqNum":null,"stepUpdate":{"trajectoryId":"${T}","cascadeId":"${T}","stepIndex":1,"state":"STATE_ACTIVE","source":"SOURCE_MODEL","target":"TARGET_USER","text":"ab","textDelta":"b"}}`,
      );
      text(harness, 1, "abc", StepUpdate_State.ACTIVE);
      harness.sendRaw(
        `{"stepUpdate":{"trajectoryId":"${T}","cascadeId":"${T}","stepIndex":"2","state":"STATE_DONE","source":"SOURCE_MODEL","target":"TARGET_USER","text":"d","textDelta":"d"}}`,
      );
      harness.state(T, FULLY_IDLE);
    });
    await connection.send("go");
    const { steps, error } = await collect(connection.receiveSteps());
    expect(error).toBeUndefined();
    expect(steps.map((s) => [s.id, s.contentDelta])).toEqual([
      [`${T}:1`, "a"],
      [`${T}:1`, "b"],
      [`${T}:1`, "abc"],
      [`${T}:2`, "d"],
    ]);
    await connection.disconnect();
  });

  it("fails the turn with ConnectionClosed when the harness drops mid-turn, or with the transport's error", async () => {
    for (const dropError of [undefined, new SdkError(ErrorCode.HarnessCrashed, "harness exited with code 1: panic")]) {
      const { connection } = await open(async (harness) => {
        await handshake(harness);
        await harness.expect("userInput");
        text(harness, 1, "partial");
        harness.drop(dropError);
      });
      await connection.send("go");
      const { steps, error } = await collect(connection.receiveSteps());
      expect(steps).toHaveLength(1);
      expect(error?.code).toBe(dropError?.code ?? ErrorCode.ConnectionClosed);
      await expect(connection.send("again")).rejects.toMatchObject({ code: error?.code });
      await connection.disconnect();
    }
  });

  it("runs the session-end round trip on disconnect when ON_SESSION_END hooks exist", async () => {
    const events: string[] = [];
    const hooks = new HookRunner([{ onSessionEnd: () => void events.push("hook") }]);
    const { connection, settled } = await open(
      async (harness) => {
        const init = await harness.readInit();
        expect(init.config?.enabledHooks).toEqual([LifecycleHook.ON_SESSION_END]);
        harness.respondInit({ cascadeId: T });
        expect(await harness.expect("sessionEndRequest")).toBe(true);
        harness.send({
          event: { case: "callHookRequest", value: { requestId: "end-1", type: LifecycleHook.ON_SESSION_END } },
        });
        const answer = await harness.expect("callHookResponse");
        expect(answer.result.case).toBe("emptyResult");
        events.push("response");
        harness.send({ event: { case: "sessionEndResponse", value: true } });
        expect(await harness.closedBySdk()).toBe(true);
      },
      { hooks },
    );
    await connection.disconnect();
    await connection.disconnect(); // idempotent
    await settled();
    expect(events).toEqual(["hook", "response"]);
    await expect(connection.send("late")).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });
});
