import { describe, expect, it } from "vitest";
import { LifecycleHook } from "../wire/index.js";
import type { Hook } from "./hook.js";
import { HookRunner } from "./hook-runner.js";

describe("HookRunner", () => {
  it("enables exactly the lifecycle types with at least one registered hook", () => {
    class Audit implements Hook {
      preToolCall(): undefined {
        return undefined;
      }
    }
    const runner = new HookRunner([
      new Audit(),
      { onCompaction: () => undefined, postTurn: () => undefined },
      { onInteraction: () => undefined },
    ]);
    expect(runner.enabledHooks()).toEqual([
      LifecycleHook.POST_TURN,
      LifecycleHook.PRE_TOOL,
      LifecycleHook.ON_COMPACTION,
    ]);
    expect(new HookRunner().enabledHooks()).toEqual([]);
  });

  it("chains PRE_TOOL hooks: merges modified args over the call, stops at the first deny", async () => {
    const calls: unknown[] = [];
    const runner = new HookRunner([
      {
        preToolCall: (call) => {
          calls.push(call.args);
          return { allow: true, modifiedArgs: { b: 2 } };
        },
      },
      {
        preToolCall: async (call) => {
          calls.push(call.args);
          return { allow: true, modifiedArgs: { c: 3, a: 0 } };
        },
      },
      {
        preToolCall: (call) => {
          calls.push(call.args);
          return undefined;
        },
      },
    ]);
    expect(await runner.preToolCall({ id: "1", name: "t", args: { a: 1 }, trajectoryId: "" })).toEqual({
      allow: true,
      modifiedArgs: { a: 0, b: 2, c: 3 },
    });
    expect(calls).toEqual([{ a: 1 }, { a: 1, b: 2 }, { a: 0, b: 2, c: 3 }]);
    const denying = new HookRunner([
      { preToolCall: () => ({ allow: false, reason: "no" }) },
      {
        preToolCall: () => {
          throw new Error("must not run");
        },
      },
    ]);
    expect(await denying.preToolCall({ id: "1", name: "t", args: {}, trajectoryId: "" })).toEqual({
      allow: false,
      reason: "no",
    });
  });

  it("lets the first hook that answers decide onInteraction", async () => {
    const runner = new HookRunner([
      { onInteraction: () => undefined },
      { onInteraction: () => ({ cancelled: true }) },
      { onInteraction: () => ({ answers: [] }) },
    ]);
    expect(await runner.onInteraction([], { trajectoryId: "t" })).toEqual({ cancelled: true });
  });
});
