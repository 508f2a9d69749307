import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  CallHookRequestSchema,
  LifecycleHook,
  StopResult_Decision,
  TrajectoryStateUpdate_StopReason,
  type CallHookRequest,
} from "../wire/index.js";
import { HookContext, HookContexts } from "./hook-context.js";
import type { Hook, StopArgs } from "./hook.js";
import { HookRunner } from "./hook-runner.js";

type Init = Parameters<typeof create<typeof CallHookRequestSchema>>[1];
const request = (init: Init): CallHookRequest => create(CallHookRequestSchema, { requestId: "r1", ...init });
const stopRequest = (value: Record<string, unknown> = {}): CallHookRequest =>
  request({
    type: LifecycleHook.STOP,
    args: { case: "stopArgs", value: { responseText: "done", trajectoryId: "t", continuationCount: 0, ...value } },
  });
const preTurn = (): CallHookRequest =>
  request({ type: LifecycleHook.PRE_TURN, args: { case: "preTurnArgs", value: { trajectoryId: "t" } } });
const postTurn = (): CallHookRequest =>
  request({
    type: LifecycleHook.POST_TURN,
    args: { case: "postTurnArgs", value: { trajectoryId: "t", responseText: "x" } },
  });
const preTool = (callId: string): CallHookRequest =>
  request({
    type: LifecycleHook.PRE_TOOL,
    args: { case: "preToolArgs", value: { toolName: "view_file", callId, trajectoryId: "t", argumentsJson: "{}" } },
  });
const postTool = (callId: string): CallHookRequest =>
  request({
    type: LifecycleHook.POST_TOOL,
    args: { case: "postToolArgs", value: { toolName: "view_file", callId, trajectoryId: "t", result: "{}" } },
  });

describe("HookContext (upstream hooks.py SessionContext / TurnContext / OperationContext)", () => {
  it("reads through enclosing scopes and writes only its own", () => {
    const session = new HookContext<{ user: string; count: number }>("session");
    const turn = new HookContext("turn", session);
    const operation = new HookContext("operation", turn);
    session.setState("user", "ada");
    expect(operation.getState("user")).toBe("ada");
    operation.setState("user", "bob");
    expect([operation.getState("user"), turn.getState("user"), session.getState("user")]).toEqual([
      "bob",
      "ada",
      "ada",
    ]);
    expect(turn.getState("count")).toBeUndefined();
    expect(turn.getState("count", 7)).toBe(7);
    // update_state: the parent's value is the input, the result stays local.
    session.setState("count", 1);
    expect(turn.updateState("count", (n) => (n ?? 0) + 1)).toBe(2);
    expect([turn.getState("count"), session.getState("count")]).toEqual([2, 1]);
    expect(operation.updateState("count", (n) => n * 10, 0)).toBe(20);
    expect(turn.deleteState("count")).toBe(true);
    expect(turn.getState("count")).toBe(1);
    expect([turn.hasOwnState("user"), operation.hasOwnState("user")]).toEqual([false, true]);
  });

  it("resets the turn at PRE_TURN and after POST_TURN, and shares an operation by call id within its turn", () => {
    const contexts = new HookContexts();
    const first = contexts.startTurn();
    expect(contexts.turn()).toBe(first);
    const op = contexts.operation("c1");
    expect(contexts.operation("c1")).toBe(op);
    expect(contexts.operation("c2")).not.toBe(op);
    expect(contexts.operation()).not.toBe(contexts.operation());
    contexts.endTurn();
    // Without a running turn, each hook call gets a fresh turn context (upstream HookRouter).
    expect(contexts.turn()).not.toBe(first);
    expect(contexts.turn()).not.toBe(contexts.turn());
    const second = contexts.startTurn();
    expect(contexts.operation("c1")).not.toBe(op);
    expect(contexts.operation("c1").parent).toBe(second);
    expect(second.parent).toBe(contexts.session);
  });

  it("keeps a bounded number of operation contexts when no turn ever ends", () => {
    const contexts = new HookContexts();
    const first = contexts.operation("call-0");
    for (let i = 1; i <= 300; i++) contexts.operation(`call-${i}`);
    expect(contexts.operation("call-0")).not.toBe(first);
    expect(contexts.operation("call-300")).toBe(contexts.operation("call-300"));
  });
});

describe("HookRunner: STOP hook and contexts", () => {
  it("enables LIFECYCLE_HOOK_STOP for a stop hook and answers ALLOW_STOP by default", async () => {
    const seen: StopArgs[] = [];
    const runner = new HookRunner([{ stop: (args) => void seen.push(args) }]);
    expect(runner.enabledHooks()).toEqual([LifecycleHook.STOP]);
    const response = await runner.handle(
      stopRequest({
        continuationCount: 2,
        stopReason: TrajectoryStateUpdate_StopReason.MAX_TOOL_CALLS_EXCEEDED,
        errorMessage: "e",
      }),
    );
    expect(response).toEqual({
      requestId: "r1",
      result: { case: "stopResult", value: { decision: StopResult_Decision.ALLOW_STOP } },
    });
    expect(seen).toEqual([
      {
        trajectoryId: "t",
        responseText: "done",
        continuationCount: 2,
        stopReason: "MAX_TOOL_CALLS_EXCEEDED",
        errorMessage: "e",
      },
    ]);
  });

  it("continues on the first CONTINUE, in registration order", async () => {
    const order: string[] = [];
    const runner = new HookRunner([
      {
        stop: () => {
          order.push("a");
          return { decision: "ALLOW_STOP" };
        },
      },
      {
        stop: async () => {
          order.push("b");
          return { decision: "CONTINUE", reason: "tests are missing" };
        },
      },
      {
        stop: () => {
          order.push("c");
          return { decision: "CONTINUE", reason: "never asked" };
        },
      },
    ]);
    const response = await runner.handle(stopRequest());
    expect(response.result).toEqual({
      case: "stopResult",
      value: { decision: StopResult_Decision.CONTINUE, reason: "tests are missing" },
    });
    expect(order).toEqual(["a", "b"]);
  });

  it("a throwing STOP hook answers errorMessage, which the harness takes as ALLOW_STOP", async () => {
    const runner = new HookRunner([
      {
        stop: () => {
          throw new Error("bug");
        },
      },
    ]);
    expect((await runner.handle(stopRequest())).result).toEqual({ case: "errorMessage", value: "Hook failed: bug" });
  });

  it("hands every hook the context of its scope", async () => {
    const scopes: string[] = [];
    const hook: Hook = {
      onSessionStart: (ctx) => {
        scopes.push(`start:${ctx.scope}`);
        ctx.setState("session", 1);
      },
      preTurn: (_p, _l, ctx) => {
        scopes.push(`preTurn:${ctx.scope}`);
        ctx.setState("turn", "t1");
      },
      preToolCall: (call, ctx) => {
        scopes.push(`preTool:${ctx.scope}:${String(ctx.getState("turn"))}:${String(ctx.getState("session"))}`);
        ctx.setState("op", call.id);
      },
      postToolCall: (result, ctx) => {
        scopes.push(`postTool:${String(ctx.getState("op"))}:${result.id}`);
      },
      stop: (_a, ctx) => {
        scopes.push(`stop:${ctx.scope}:${String(ctx.getState("turn"))}:${String(ctx.getState("op"))}`);
      },
      postTurn: (_t, _l, ctx) => {
        scopes.push(`postTurn:${String(ctx.getState("turn"))}`);
      },
      onSessionEnd: (ctx) => {
        scopes.push(`end:${String(ctx.getState("session"))}:${String(ctx.getState("turn"))}`);
      },
    };
    const runner = new HookRunner([hook]);
    await runner.handle(request({ type: LifecycleHook.ON_SESSION_START }));
    await runner.handle(preTurn());
    await runner.handle(preTool("c1"));
    await runner.handle(postTool("c1"));
    await runner.handle(preTool("c2"));
    await runner.handle(stopRequest());
    await runner.handle(postTurn());
    await runner.handle(preTool("c1"));
    await runner.handle(request({ type: LifecycleHook.ON_SESSION_END }));
    expect(scopes).toEqual([
      "start:session",
      "preTurn:turn",
      "preTool:operation:t1:1",
      "postTool:c1:c1",
      "preTool:operation:t1:1",
      "stop:turn:t1:undefined",
      "postTurn:t1",
      "preTool:operation:undefined:1",
      "end:1:undefined",
    ]);
  });

  it("ends the turn's context even when a POST_TURN hook throws", async () => {
    const runner = new HookRunner([
      {
        preTurn: (_p, _l, ctx) => ctx.setState("x", 1),
        postTurn: () => {
          throw new Error("bad");
        },
      },
    ]);
    await runner.handle(preTurn());
    const turn = runner.contexts.turn();
    expect(turn.getState("x")).toBe(1);
    expect((await runner.handle(postTurn())).result?.case).toBe("errorMessage");
    expect(runner.contexts.turn()).not.toBe(turn);
  });
});
