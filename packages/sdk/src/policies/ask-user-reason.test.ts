import { describe, expect, it } from "vitest";
import { decodeOutputEvent, PolicyDecision, PolicyEvaluationOutcome } from "../wire/index.js";
import { decidePolicyRequest, toPolicyConfig } from "./policy-config.js";
import { allow, askUser, deny, type ToolCallLocation } from "./policy.js";

// Issue 25 item 3: deny(reason) honoured end to end, and the reason of a policy decision given to
// ask-user handlers as upstream gives it (hooks/policy.py, Stars1233 @32f16939: `_execute_ask_user`
// binds `reason`; `_to_policy_config_proto` sends every rule's reason as deny_reason;
// PolicyDecisionRequest.reason = 4, localharness.proto @257f843a).

/** The policyDecisionRequest of a frame as a harness writes it, through the real codec. */
function request(value: Record<string, unknown>) {
  const event = decodeOutputEvent(JSON.stringify({ policyDecisionRequest: value }));
  if (event.event.case !== "policyDecisionRequest") throw new Error("not a policyDecisionRequest");
  return event.event.value;
}

const ASKED = {
  requestId: "p",
  ruleId: "rule_0",
  toolArgs: { toolName: "run_command", argumentsJson: '{"CommandLine":"make"}', trajectoryId: "t", stepIndex: 4 },
};

describe("the reason an ask-user handler gets", () => {
  it("is the harness's reason when it gives one, else the policy's, else none", async () => {
    const seen: [ToolCallLocation | undefined, string | undefined][] = [];
    const handler = (_call: unknown, where?: ToolCallLocation, reason?: string): boolean => {
      seen.push([where, reason]);
      return true;
    };
    const withReason = askUser("run_command", handler, { reason: "builds touch the cache" });
    const without = askUser("run_command", handler);
    const harnessReason = request({ ...ASKED, reason: "the assessor flagged a network call" });
    expect(await decidePolicyRequest([withReason], harnessReason)).toEqual({ outcome: PolicyEvaluationOutcome.ALLOW });
    await decidePolicyRequest([withReason], request(ASKED));
    await decidePolicyRequest([without], request(ASKED));
    await decidePolicyRequest([without], request({ ...ASKED, reason: "" }));
    expect(seen).toEqual([
      [{ trajectoryId: "t", stepIndex: 4, stepId: "t:4" }, "the assessor flagged a network call"],
      [{ trajectoryId: "t", stepIndex: 4, stepId: "t:4" }, "builds touch the cache"],
      [{ trajectoryId: "t", stepIndex: 4, stepId: "t:4" }, undefined],
      [{ trajectoryId: "t", stepIndex: 4, stepId: "t:4" }, undefined],
    ]);
  });
});

describe("denial reasons", () => {
  it("a user's refusal reads the policy's reason when it has one (upstream _PolicyDecideHook)", async () => {
    const refuse = () => false;
    expect(
      await decidePolicyRequest([askUser("run_command", refuse, { reason: "not on Fridays" })], request(ASKED)),
    ).toEqual({ outcome: PolicyEvaluationOutcome.DENY, denyReason: "not on Fridays" });
    expect(await decidePolicyRequest([askUser("run_command", refuse)], request(ASKED))).toEqual({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "Denied by user (run_command).",
    });
  });

  it("a dynamic deny answers with its reason, and every rule carries its reason to the harness", async () => {
    const dynamic = deny("run_command", "no builds in CI").when(() => true);
    expect(await decidePolicyRequest([dynamic], request(ASKED))).toEqual({
      outcome: PolicyEvaluationOutcome.DENY,
      denyReason: "no builds in CI",
    });
    const config = toPolicyConfig([
      deny("run_command", "no shell here"),
      deny("edit_file"),
      askUser("create_file", () => true, { reason: "new files need review" }),
      allow("view_file"),
    ]);
    expect(config.rules?.map((rule) => [rule.decision, rule.denyReason])).toEqual([
      [PolicyDecision.DENY, "no shell here"],
      [PolicyDecision.DENY, "Denied by policy 'edit_file'."],
      [PolicyDecision.ASK_USER, "new files need review"],
      [PolicyDecision.ALLOW, undefined],
    ]);
  });
});
