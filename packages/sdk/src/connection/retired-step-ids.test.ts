import { describe, expect, it } from "vitest";
import { mockStep } from "../testing/mock-step.js";
import { RetiredStepIds } from "./retired-step-ids.js";
import { Turn } from "./turn.js";
import { STEP_MAPPER, TurnView } from "./turn-view.js";

describe("RetiredStepIds", () => {
  it("renames a step whose id is retired, and every later update of it the same way", () => {
    const ids = new RetiredStepIds();
    const fresh = mockStep({ trajectoryId: "t", stepIndex: 0, content: "new" });
    expect(ids.live(fresh)).toBe(fresh); // nothing retired: the step itself
    ids.retire(["t:0", "t:1"]);
    expect(ids.live(fresh)).toEqual({ ...fresh, id: "t:0~1" });
    expect(ids.live({ ...fresh, content: "new, done" }).id).toBe("t:0~1");
    expect(ids.live(mockStep({ trajectoryId: "t", stepIndex: 2 })).id).toBe("t:2"); // not retired
  });

  it("skips suffixes an earlier restart retired too (a conversation restored onto a fresh harness twice)", () => {
    const ids = new RetiredStepIds();
    ids.retire(["t:0", "t:0~1", "t:0~2", "t:1"]);
    expect(ids.live(mockStep({ trajectoryId: "t", stepIndex: 0 })).id).toBe("t:0~3");
    expect(ids.live(mockStep({ trajectoryId: "t", stepIndex: 1 })).id).toBe("t:1~1");
  });

  it("is applied by Turn.push, so readers and late updates see the renamed step", async () => {
    const retiredIds = new RetiredStepIds();
    retiredIds.retire(["t:0"]);
    const turn = new Turn({ solicited: true, retiredIds });
    turn.push(mockStep({ trajectoryId: "t", stepIndex: 0, content: "a" }));
    turn.push(mockStep({ trajectoryId: "t", stepIndex: 1, content: "b" }));
    turn.end();
    const seen: string[] = [];
    for await (const step of new TurnView({ turn }, STEP_MAPPER)) seen.push(`${step.id} ${step.content}`);
    expect(seen).toEqual(["t:0~1 a", "t:1 b"]);
    // A late update of the renamed step still belongs to the ended turn; an unknown step does not.
    expect(turn.push(mockStep({ trajectoryId: "t", stepIndex: 0, content: "a, late" }))).toBe(true);
    expect(turn.push(mockStep({ trajectoryId: "t", stepIndex: 5 }))).toBe(false);
  });
});
