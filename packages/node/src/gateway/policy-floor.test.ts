import { describe, expect, it } from "vitest";
import { PolicyDecision, PolicyRuleSchema, create, type PolicyRule } from "@antigravity-ts/sdk/wire";
import { applyPolicyFloor, describeRule } from "./policy-floor.js";

const rule = (tool: string, decision: PolicyDecision, extra: Partial<PolicyRule> = {}): PolicyRule =>
  create(PolicyRuleSchema, { tool, decision, name: tool, isDynamic: false, ruleId: "", ...extra });
const dynamic = (tool: string, decision: PolicyDecision, index: number): PolicyRule =>
  rule(tool, decision, { isDynamic: true, ruleId: `rule_${index}` });
const described = (rules: readonly PolicyRule[]): string[] => rules.map(describeRule);

describe("applyPolicyFloor", () => {
  it("keeps only static denies among the page rules that touch a denied tool, and puts the floor first", () => {
    const floor = [rule("run_command", PolicyDecision.DENY)];
    const page = [
      rule("*", PolicyDecision.ALLOW),
      rule("run_command", PolicyDecision.ALLOW),
      dynamic("run_command", PolicyDecision.DENY, 2), // the page answers it, and may answer ALLOW
      dynamic("run_command", PolicyDecision.ASK_USER, 3),
      rule("run_command", PolicyDecision.DENY),
      rule("view_file", PolicyDecision.ALLOW),
      rule("run_command", PolicyDecision.ALLOW, { serverName: "shell" }), // an empty floor server means any
    ];
    const { rules, dropped } = applyPolicyFloor(page, floor, []);
    expect(described(rules)).toEqual(["deny run_command", "deny run_command", "allow view_file"]);
    expect(described(dropped)).toEqual([
      "allow *",
      "allow run_command",
      "deny run_command (dynamic)",
      "ask run_command (dynamic)",
      "allow shell/run_command",
    ]);
  });

  it("a floor deny of * leaves the page nothing but static denies", () => {
    const { rules } = applyPolicyFloor(
      [rule("view_file", PolicyDecision.ALLOW), rule("edit_file", PolicyDecision.DENY), rule("", PolicyDecision.ALLOW)],
      [rule("*", PolicyDecision.DENY)],
      [],
    );
    expect(described(rules)).toEqual(["deny *", "deny edit_file"]);
  });

  it("drops page allows of a tool the operator wants confirmed, keeps the page's own asks and denies before the floor ask", () => {
    const floor = [rule("run_command", PolicyDecision.ASK_USER)];
    const page = [
      dynamic("run_command", PolicyDecision.ASK_USER, 0),
      rule("*", PolicyDecision.ALLOW),
      dynamic("run_command", PolicyDecision.ALLOW, 2),
      rule("edit_file", PolicyDecision.DENY),
    ];
    const { rules, dropped } = applyPolicyFloor(page, [], floor);
    expect(described(rules)).toEqual(["ask run_command (dynamic)", "deny edit_file", "ask run_command"]);
    expect(described(dropped)).toEqual(["allow *", "allow run_command (dynamic)"]);
  });

  it("leaves MCP rules of other servers alone", () => {
    const { rules, dropped } = applyPolicyFloor(
      [rule("*", PolicyDecision.ALLOW, { serverName: "docs" })],
      [rule("*", PolicyDecision.DENY, { serverName: "shell" })],
      [],
    );
    expect(described(rules)).toEqual(["deny shell/*", "allow docs/*"]);
    expect(dropped).toEqual([]);
  });
});
