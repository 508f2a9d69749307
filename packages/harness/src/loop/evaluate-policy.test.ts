import {
  PolicyDecision,
  PolicyDecisionResponseSchema,
  PolicyEvaluationOutcome,
  PolicyRuleSchema,
  create,
  type PolicyRule,
} from "@antigravity-ts/sdk/wire";
import { describe, expect, it } from "vitest";
import { PRECEDENCE_CASES, type PrecedenceRule } from "@antigravity-ts/test-kit";
import { evaluatePolicy } from "./evaluate-policy.js";

const rule = (tool: string, decision: PolicyDecision, extra: Partial<PolicyRule> = {}): PolicyRule =>
  create(PolicyRuleSchema, { tool, decision, name: `${tool}:${decision}`, ...extra });
const WIRE_DECISION: Record<PrecedenceRule["decision"], PolicyDecision> = {
  deny: PolicyDecision.DENY,
  ask_user: PolicyDecision.ASK_USER,
  allow: PolicyDecision.ALLOW,
};
const VERDICT_OF: Record<PrecedenceRule["decision"], string> = { deny: "deny", ask_user: "ask", allow: "allow" };
const noDynamic = async (): Promise<never> => {
  throw new Error("no dynamic rule expected");
};

describe("policy", () => {
  it.each(PRECEDENCE_CASES)("shared precedence case: $title", async ({ rules, call, decides }) => {
    const wire = rules.map((r, index) =>
      create(PolicyRuleSchema, {
        tool: r.tool,
        serverName: r.serverName ?? "",
        decision: WIRE_DECISION[r.decision],
        name: `rule ${index}`,
      }),
    );
    const verdict = await evaluatePolicy(wire, { toolName: call.name, serverName: call.serverName ?? "" }, noDynamic);
    expect(verdict.rule?.name).toBe(decides === undefined ? undefined : `rule ${decides}`);
    expect(verdict.decision).toBe(decides === undefined ? "allow" : VERDICT_OF[rules[decides]?.decision ?? "allow"]);
  });

  it("applies the most specific matching rule, and allows when nothing matches", async () => {
    const rules = [
      rule("*", PolicyDecision.ALLOW),
      rule("run_command", PolicyDecision.DENY, { denyReason: "no shell" }),
    ];
    expect(await evaluatePolicy(rules, { toolName: "run_command", serverName: "" }, noDynamic)).toMatchObject({
      decision: "deny",
      reason: "no shell",
    });
    expect(await evaluatePolicy(rules, { toolName: "view_file", serverName: "" }, noDynamic)).toMatchObject({
      decision: "allow",
    });
    expect(
      await evaluatePolicy([rule("*", PolicyDecision.ASK_USER)], { toolName: "t", serverName: "" }, noDynamic),
    ).toMatchObject({ decision: "ask" });
    expect(await evaluatePolicy([], { toolName: "t", serverName: "" }, noDynamic)).toEqual({ decision: "allow" });
    expect(
      await evaluatePolicy(
        [rule("*", PolicyDecision.DENY, { serverName: "srv" })],
        { toolName: "t", serverName: "" },
        noDynamic,
      ),
    ).toEqual({ decision: "allow" });
  });

  it("asks the client about dynamic rules; NO_MATCH moves on, a missing outcome denies", async () => {
    const rules = [
      rule("t", PolicyDecision.DENY, { isDynamic: true, ruleId: "rule_0" }),
      rule("*", PolicyDecision.ALLOW, { isDynamic: true, ruleId: "rule_1" }),
    ];
    const asked: string[] = [];
    const answer = (outcomes: Record<string, PolicyEvaluationOutcome | undefined>) => async (r: PolicyRule) => {
      asked.push(r.ruleId ?? "");
      const outcome = outcomes[r.ruleId ?? ""];
      return create(PolicyDecisionResponseSchema, outcome === undefined ? {} : { outcome, denyReason: "because" });
    };
    expect(
      await evaluatePolicy(
        rules,
        { toolName: "t", serverName: "" },
        answer({ rule_0: PolicyEvaluationOutcome.NO_MATCH, rule_1: PolicyEvaluationOutcome.ALLOW }),
      ),
    ).toMatchObject({
      decision: "allow",
    });
    expect(asked).toEqual(["rule_0", "rule_1"]);
    expect(
      await evaluatePolicy(rules, { toolName: "t", serverName: "" }, answer({ rule_0: PolicyEvaluationOutcome.DENY })),
    ).toMatchObject({ decision: "deny", reason: "because" });
    expect(await evaluatePolicy(rules, { toolName: "t", serverName: "" }, answer({}))).toMatchObject({
      decision: "deny",
      reason: "client gave no outcome for policy rule rule_0",
    });
  });

  it("skips upstream's workspace_only markers (containment is the platform's job) but not other denies", async () => {
    // upstream policy.workspace_only(): deny(tool, name="workspace_only") for BuiltinTools.file_tools()
    const markers = ["view_file", "create_file", "edit_file"].map((tool) =>
      rule(tool, PolicyDecision.DENY, { name: "workspace_only", isDynamic: false, ruleId: "" }),
    );
    for (const tool of ["view_file", "create_file", "edit_file"]) {
      expect(await evaluatePolicy(markers, { toolName: tool, serverName: "" }, noDynamic)).toEqual({
        decision: "allow",
      });
    }
    expect(
      await evaluatePolicy(
        [...markers, rule("*", PolicyDecision.DENY)],
        { toolName: "view_file", serverName: "" },
        noDynamic,
      ),
    ).toMatchObject({
      decision: "deny",
      rule: { name: `*:${PolicyDecision.DENY}` },
    });
    // the markers hide nothing: a real deny of the same tool still applies
    const denied = await evaluatePolicy(
      [...markers, rule("view_file", PolicyDecision.DENY, { name: "no_reads" })],
      { toolName: "view_file", serverName: "" },
      noDynamic,
    );
    expect(denied).toMatchObject({ decision: "deny", reason: 'denied by policy "no_reads"' });
  });
});
