import { afterEach, describe, expect, it } from "vitest";
import { plainOfStruct } from "../wire/genai-struct-read.js";
import { SdkError } from "../errors.js";
import { HookRunner } from "../hooks/hook-runner.js";
import type { Hook } from "../hooks/hook.js";
import { allowAll, askUser, deny, flattenPolicies, allow } from "../policies/policy.js";
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
  PolicyEvaluationOutcome,
  PreToolResult_Decision,
  PreTurnResult_Decision,
  StepUpdate_Source,
  StepUpdate_State,
  StepUpdate_Target,
  TrajectoryStateUpdate_State,
  type CallHookResponse,
} from "../wire/index.js";
import { createHarnessConnection, type HarnessConnection } from "./harness-connection.js";
import type { HarnessConnectionOptions } from "./harness-connection-options.js";
import { deferred } from "@antigravity-ts/test-kit";

const T = "traj-main";

let transport: FakeHarnessTransport | undefined;

// Every scripted harness must have run to its end without a failed expectation.
afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

async function open(
  script: (harness: FakeHarness) => Promise<void>,
  options: Partial<HarnessConnectionOptions> = {},
): Promise<HarnessConnection> {
  transport = createFakeHarnessTransport(async (harness) => {
    await harness.readInit();
    harness.respondInit({ cascadeId: T });
    await script(harness);
  });
  return createHarnessConnection({ transport, config: {}, timeoutMs: 5_000, ...options });
}

async function turnSteps(connection: HarnessConnection, prompt = "go"): Promise<Step[]> {
  await connection.send(prompt);
  const steps: Step[] = [];
  for await (const step of connection.receiveSteps()) steps.push(step);
  return steps;
}

function hookRequest(
  harness: FakeHarness,
  requestId: string,
  type: LifecycleHook,
  args: Record<string, unknown> = {},
): void {
  harness.send({ event: { case: "callHookRequest", value: { requestId, type, ...args } } });
}

describe("client tool calls", () => {
  it("answers concurrent calls exactly once each, with synthetic steps from 50,000", async () => {
    const release = deferred<void>();
    const tools = new ToolRunner([
      defineTool({
        name: "slow_add",
        description: "Adds after a signal",
        parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
        call: async ({ a, b }: { a: number; b: number }, context) => {
          await release.promise;
          context.state.set("calls", ((context.state.get("calls") as number | undefined) ?? 0) + 1);
          return { sum: a + b, callId: context.callId };
        },
      }),
      defineTool({
        name: "fail",
        description: "Throws",
        call: () => {
          throw new Error("disk full");
        },
      }),
      defineTool({
        name: "scalar",
        description: "Returns a number",
        call: (_a: unknown, context) => context.state.get("calls"),
      }),
    ]);
    const connection = await open(
      async (harness) => {
        await harness.expect("userInput");
        harness.step({
          trajectoryId: T,
          stepIndex: 1,
          state: StepUpdate_State.DONE,
          source: StepUpdate_Source.MODEL,
          target: StepUpdate_Target.USER,
          thinking: "tools",
        });
        harness.send({
          event: { case: "toolCall", value: { id: "c1", name: "slow_add", argumentsJson: '{"a":1,"b":2}' } },
        });
        harness.send({
          event: { case: "toolCall", value: { id: "c2", name: "slow_add", argumentsJson: '{"a":3,"b":4}' } },
        });
        harness.send({
          event: { case: "toolCall", value: { id: "c1", name: "slow_add", argumentsJson: '{"a":1,"b":2}' } },
        }); // duplicate
        harness.send({ event: { case: "toolCall", value: { id: "c3", name: "fail", argumentsJson: "{}" } } });
        harness.send({ event: { case: "toolCall", value: { id: "c4", name: "nope", argumentsJson: "{}" } } });
        const early = [await harness.expect("toolResponse"), await harness.expect("toolResponse")];
        expect(early).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ id: "c3", errorMessage: "disk full" }),
            expect.objectContaining({ id: "c4", errorMessage: "Unknown tool: 'nope'" }),
          ]),
        );
        release.resolve();
        const late = [await harness.expect("toolResponse"), await harness.expect("toolResponse")];
        expect(late.map((r) => [r.id, JSON.parse(r.responseJson ?? "null")])).toEqual(
          expect.arrayContaining([
            ["c1", { sum: 3, callId: "c1" }],
            ["c2", { sum: 7, callId: "c2" }],
          ]),
        );
        harness.send({ event: { case: "toolCall", value: { id: "c5", name: "scalar", argumentsJson: "" } } });
        expect(await harness.expect("toolResponse")).toMatchObject({ id: "c5", responseJson: '{"result":2}' });
        harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
        expect(await harness.closedBySdk()).toBe(true); // no duplicate answer was sent
      },
      { tools },
    );
    const steps = (await turnSteps(connection)).filter((s) => s.stepIndex >= 50_000);
    const byCall = new Map<string, Step[]>();
    for (const step of steps) byCall.set(step.id, [...(byCall.get(step.id) ?? []), step]);
    expect([...byCall.keys()].sort()).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    expect(new Set(steps.map((s) => s.stepIndex))).toEqual(new Set([50_000, 50_001, 50_002, 50_003, 50_004]));
    for (const [id, [active, last, ...more]] of byCall) {
      expect(more).toEqual([]);
      expect(active).toMatchObject({
        id,
        status: "ACTIVE",
        type: "TOOL_CALL",
        source: "MODEL",
        target: "ENVIRONMENT",
        trajectoryId: T,
        cascadeId: T,
      });
      expect(last?.stepIndex).toBe(active?.stepIndex);
      expect(active?.content).toBe(active?.toolCalls[0]?.name);
    }
    expect(byCall.get("c1")?.[1]).toMatchObject({
      status: "DONE",
      content: '{"sum":3,"callId":"c1"}',
      toolCalls: [{ id: "c1", name: "slow_add", args: { sum: 3, callId: "c1" } }],
    });
    expect(byCall.get("c1")?.[0]?.toolCalls[0]?.args).toEqual({ a: 1, b: 2 });
    expect(byCall.get("c3")?.[1]).toMatchObject({ status: "ERROR", error: "disk full", toolCalls: [{ args: {} }] });
    expect(byCall.get("c4")?.[1]).toMatchObject({ status: "ERROR", error: "Unknown tool: 'nope'" });
    await connection.disconnect();
  });

  it("never blocks the frame reader on a tool: a tool can wait for a hook that a later frame triggers", async () => {
    const hookRan = deferred<void>();
    const tools = new ToolRunner([
      defineTool({
        name: "wait_for_hook",
        description: "",
        call: async () => {
          await hookRan.promise;
          return "ok";
        },
      }),
    ]);
    const hooks = new HookRunner([{ postToolCall: () => hookRan.resolve() }]);
    const connection = await open(
      async (harness) => {
        await harness.expect("userInput");
        harness.send({ event: { case: "toolCall", value: { id: "t1", name: "wait_for_hook", argumentsJson: "{}" } } });
        hookRequest(harness, "h1", LifecycleHook.POST_TOOL, {
          args: { case: "postToolArgs", value: { toolName: "other", result: "{}" } },
        });
        // Either order is fine; a reader blocked on the tool would never see the hook request.
        const answers = [await harness.read(), await harness.read()].map((e) => e.event);
        expect(answers).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ case: "callHookResponse" }),
            expect.objectContaining({
              case: "toolResponse",
              value: expect.objectContaining({ id: "t1", responseJson: '{"result":"ok"}' }),
            }),
          ]),
        );
        harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
      },
      { tools, hooks },
    );
    await turnSteps(connection);
    await connection.disconnect();
  });
});

describe("hook RPCs", () => {
  it("answers each request with its requestId: chained PRE_TOOL args, deny, errors, unknown types", async () => {
    const seen: unknown[] = [];
    const hookList: Hook[] = [
      {
        preToolCall: (call) =>
          call.name === "run_command"
            ? { allow: true, modifiedArgs: { CommandLine: "ls -la", Cwd: "/tmp" } }
            : undefined,
      },
      {
        preToolCall: (call) => {
          if (call.name === "run_command") seen.push(call.args);
          return call.name === "run_command" ? { allow: true, modifiedArgs: { Cwd: "/work" } } : undefined;
        },
      },
      { preToolCall: (call) => (call.name === "delete_all" ? { allow: false, reason: "never" } : undefined) },
      { preTurn: (prompt) => (prompt.includes("forbidden") ? { allow: false, reason: "not today" } : { allow: true }) },
      {
        postTurn: () => {
          throw new Error("observer crashed");
        },
      },
    ];
    const responses = new Map<string, CallHookResponse>();
    const connection = await open(
      async (harness) => {
        hookRequest(harness, "r1", LifecycleHook.PRE_TOOL, {
          args: {
            case: "preToolArgs",
            value: {
              toolName: "run_command",
              argumentsJson: '{"CommandLine":"ls","Extra":1}',
              callId: "k1",
              trajectoryId: T,
              stepIndex: 4,
            },
          },
        });
        hookRequest(harness, "r2", LifecycleHook.PRE_TOOL, {
          args: { case: "preToolArgs", value: { toolName: "delete_all", argumentsJson: "{}" } },
        });
        hookRequest(harness, "r3", LifecycleHook.PRE_TURN, {
          args: {
            case: "preTurnArgs",
            value: { userInput: { parts: [{ part: { case: "text", value: "something forbidden" } }] } },
          },
        });
        hookRequest(harness, "r4", LifecycleHook.POST_TURN, {
          args: { case: "postTurnArgs", value: { responseText: "done" } },
        });
        hookRequest(harness, "r5", 99 as LifecycleHook); // a type this SDK does not know (STOP is known now)
        hookRequest(harness, "r1", LifecycleHook.PRE_TOOL); // duplicate id: ignored
        hookRequest(harness, "r6", LifecycleHook.ON_TOOL_ERROR, {
          args: { case: "onToolErrorArgs", value: { toolName: "x", errorMessage: "boom" } },
        });
        for (let i = 0; i < 6; i++) {
          const response = await harness.expect("callHookResponse");
          responses.set(response.requestId ?? "", response);
        }
      },
      { hooks: new HookRunner(hookList) },
    );
    await expect.poll(() => responses.size).toBe(6);
    expect(seen).toEqual([{ CommandLine: "ls -la", Extra: 1, Cwd: "/tmp" }]);
    const r1 = responses.get("r1")?.result;
    expect(r1?.case === "preToolResult" && r1.value.decision).toBe(PreToolResult_Decision.ALLOW);
    // PreToolResult.modified_args, a genai.Struct (upstream localharness.proto @257f843a).
    expect(
      r1?.case === "preToolResult" && r1.value.modifiedArgs !== undefined && plainOfStruct(r1.value.modifiedArgs),
    ).toEqual({ CommandLine: "ls -la", Extra: 1, Cwd: "/work" });
    expect(responses.get("r2")?.result).toMatchObject({
      case: "preToolResult",
      value: { decision: PreToolResult_Decision.DENY, reason: "never" },
    });
    expect(responses.get("r3")?.result).toMatchObject({
      case: "preTurnResult",
      value: { decision: PreTurnResult_Decision.DENY, reason: "not today" },
    });
    expect(responses.get("r4")?.result).toEqual({ case: "errorMessage", value: "Hook failed: observer crashed" });
    expect(responses.get("r5")?.result.case).toBe("emptyResult");
    expect(responses.get("r6")?.result.case).toBe("emptyResult");
    await connection.disconnect();
  });

  it("answers a request id again in a later turn, but a re-send within the turn only once", async () => {
    const prompts: string[] = [];
    const connection = await open(
      async (harness) => {
        for (const turn of ["one", "two"]) {
          await harness.expect("userInput");
          const args = {
            args: {
              case: "preTurnArgs" as const,
              value: { userInput: { parts: [{ part: { case: "text" as const, value: turn } }] } },
            },
          };
          hookRequest(harness, "hook-1", LifecycleHook.PRE_TURN, args); // a harness that numbers requests per turn
          expect(await harness.expect("callHookResponse")).toMatchObject({
            requestId: "hook-1",
            result: { case: "preTurnResult" },
          });
          hookRequest(harness, "hook-1", LifecycleHook.PRE_TURN, args); // re-sent: not answered twice
          harness.state(T, TrajectoryStateUpdate_State.RUNNING);
          harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
        }
        expect(await harness.closedBySdk()).toBe(true);
      },
      { hooks: new HookRunner([{ preTurn: (prompt) => void prompts.push(prompt) }]) },
    );
    await turnSteps(connection, "one");
    await turnSteps(connection, "two");
    expect(prompts).toEqual(["one", "two"]);
    await connection.disconnect();
  });

  it("answers emptyResult when no hooks are registered", async () => {
    const answered = deferred<CallHookResponse>();
    const connection = await open(async (harness) => {
      hookRequest(harness, "x", LifecycleHook.ON_SESSION_START);
      answered.resolve(await harness.expect("callHookResponse"));
    });
    expect((await answered.promise).result.case).toBe("emptyResult");
    await connection.disconnect();
  });
});

describe("dynamic policy decisions", () => {
  it("answers ALLOW / DENY / NO_MATCH per rule and DENY for unknown rules or throwing predicates", async () => {
    const policies = flattenPolicies([
      deny("run_command").when((call) => String((call.args as { CommandLine?: string }).CommandLine).startsWith("rm")),
      askUser("edit_file", (call) => call.canonicalPath === "never"),
      allow("view_file").when(() => {
        throw new Error("predicate bug");
      }),
      allowAll(),
    ]);
    const answers = new Map<string, { outcome?: number | undefined; denyReason?: string | undefined }>();
    const connection = await open(
      async (harness) => {
        const ask = (requestId: string, ruleId: string, toolName: string, argumentsJson = "{}"): void =>
          harness.send({
            event: {
              case: "policyDecisionRequest",
              value: { requestId, ruleId, toolArgs: { toolName, argumentsJson } },
            },
          });
        ask("p1", "rule_0", "run_command", '{"CommandLine":"rm -rf /"}');
        ask("p2", "rule_0", "run_command", '{"CommandLine":"ls"}');
        ask("p3", "rule_1", "edit_file");
        ask("p4", "rule_2", "view_file");
        ask("p5", "rule_9", "view_file");
        ask("p6", "bogus", "view_file");
        for (let i = 0; i < 6; i++) {
          const answer = await harness.expect("policyDecisionResponse");
          answers.set(answer.requestId ?? "", answer);
        }
      },
      { policies },
    );
    await expect.poll(() => answers.size).toBe(6);
    expect(answers.get("p1")).toMatchObject({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "Denied by policy 'run_command'.",
    });
    expect(answers.get("p2")?.outcome).toBe(PolicyEvaluationOutcome.NO_MATCH);
    expect(answers.get("p3")).toMatchObject({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "Denied by user (edit_file).",
    });
    expect(answers.get("p4")).toMatchObject({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: expect.stringMatching(/^Policy evaluation error: .*predicate bug/),
    });
    expect(answers.get("p5")?.outcome).toBe(PolicyEvaluationOutcome.DENY);
    expect(answers.get("p6")?.denyReason).toBe("Unknown rule_id: bogus"); // upstream event_processor's words
    await connection.disconnect();
  });
});

describe("confirmations and questions", () => {
  function waiting(harness: FakeHarness, stepIndex: number, extra: Record<string, unknown>): void {
    harness.step({
      trajectoryId: T,
      stepIndex,
      state: StepUpdate_State.WAITING_FOR_USER,
      source: StepUpdate_Source.MODEL,
      target: StepUpdate_Target.ENVIRONMENT,
      ...extra,
    });
  }

  it("debounces repeated WAITING steps per (trajectory, step) and answers each wait once", async () => {
    const decisions: string[] = [];
    const confirmTool = (call: { name: string; args: unknown }): boolean => {
      decisions.push(String((call.args as { CommandLine?: string }).CommandLine));
      return decisions.length === 1;
    };
    const connection = await open(
      async (harness) => {
        await harness.expect("userInput");
        const run = { runCommand: { commandLine: "make" }, toolConfirmationRequest: {} };
        waiting(harness, 3, run);
        waiting(harness, 3, run);
        waiting(harness, 3, run);
        expect(await harness.expect("toolConfirmation")).toMatchObject({
          trajectoryId: T,
          stepIndex: 3,
          accepted: true,
        });
        harness.step({
          trajectoryId: T,
          stepIndex: 3,
          state: StepUpdate_State.DONE,
          runCommand: { commandLine: "make" },
        });
        waiting(harness, 3, run); // waits again after leaving WAITING: a new question
        waiting(harness, 3, run);
        expect(await harness.expect("toolConfirmation")).toMatchObject({ stepIndex: 3, accepted: false });
        harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
        expect(await harness.closedBySdk()).toBe(true);
      },
      { confirmTool },
    );
    const steps = await turnSteps(connection);
    expect(steps.map((s) => s.status)).toEqual(["WAITING_FOR_USER", "DONE", "WAITING_FOR_USER"]);
    expect(decisions).toEqual(["make", "make"]);
    await connection.disconnect();
  });

  it("answers questions unanswered by default, with onInteraction's answers, or with the hook's error", async () => {
    const results: unknown[] = [];
    let mode = 0;
    const hooks = new HookRunner([
      {
        onInteraction: (questions) => {
          mode++;
          if (mode === 1) return undefined;
          if (mode === 2)
            return {
              answers: [{ selectedChoiceIndices: [1], freeformResponse: `picked ${questions[0]?.choices[1] ?? ""}` }],
            };
          throw new SdkError("Internal", "ui gone");
        },
      },
    ]);
    const connection = await open(
      async (harness) => {
        await harness.expect("userInput");
        const questionsRequest = {
          questions: [
            { questionType: { case: "multipleChoice", value: { question: "Which?", choices: ["a", "b"] } } },
            { questionType: { case: "multipleChoice", value: { question: "Sure?", choices: ["y"] } } },
          ],
        };
        for (let index = 1; index <= 3; index++) {
          waiting(harness, index, { questionsRequest });
          const response = await harness.expect("questionResponse");
          results.push(response.result);
          harness.step({ trajectoryId: T, stepIndex: index, state: StepUpdate_State.DONE });
        }
        harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
      },
      { hooks },
    );
    await turnSteps(connection);
    expect(results[0]).toMatchObject({
      case: "response",
      value: {
        answers: [{ answer: { case: "unanswered", value: true } }, { answer: { case: "unanswered", value: true } }],
      },
    });
    expect(results[1]).toMatchObject({
      case: "response",
      value: {
        answers: [
          {
            answer: {
              case: "multipleChoiceAnswer",
              value: { selectedChoiceIndices: [1], freeformResponse: "picked b" },
            },
          },
          { answer: { case: "unanswered" } },
        ],
      },
    });
    expect(results[2]).toMatchObject({
      case: "response",
      value: {
        answers: [
          {
            answer: {
              case: "multipleChoiceAnswer",
              value: { freeformResponse: "SDK error processing question: ui gone" },
            },
          },
          {},
        ],
      },
    });
    await connection.disconnect();
  });
});
