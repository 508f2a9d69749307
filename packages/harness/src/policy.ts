import { PolicyDecision, PolicyEvaluationOutcome, type PolicyDecisionResponse, type PolicyRule } from "@antigravity-ts/sdk/wire";

/** What the policy says about one tool call. */
export type PolicyVerdict =
  | { decision: "allow"; rule?: PolicyRule }
  | { decision: "deny"; reason: string; rule?: PolicyRule }
  | { decision: "ask"; rule: PolicyRule };

/** The call being judged. `serverName` is empty for built-in and custom tools. */
export interface PolicyCall {
  toolName: string;
  serverName: string;
}

/** Asks the client to evaluate a dynamic rule (`policyDecisionRequest`, §12). */
export type DynamicRuleEvaluator = (rule: PolicyRule) => Promise<PolicyDecisionResponse>;

/**
 * Name of upstream's `policy.workspace_only()` rules (`hooks/policy.py`, WORKSPACE_ONLY_POLICY_NAME):
 * static DENY rules for view_file, create_file and edit_file that are markers, not denies.
 */
export const WORKSPACE_ONLY_RULE = "workspace_only";

const SPECIFICITY = { tool: 0, server: 1, any: 2 } as const;
const DECISION_RANK: Partial<Record<PolicyDecision, number>> = {
  [PolicyDecision.DENY]: 0,
  [PolicyDecision.ASK_USER]: 1,
  [PolicyDecision.ALLOW]: 2,
};

/**
 * Orders rules by the SDK's 9-level precedence (§12): specific tool deny > ask > allow, then
 * `server/*` deny > ask > allow, then `*` deny > ask > allow; declaration order within a bucket.
 * Whether the real harness applies this ordering to `PolicyConfig.rules` is UNCONFIRMED (§12:
 * upstream only sends declaration order); we apply it so that a harness-evaluated policy gives
 * the same answer as the SDK's in-process `policy.enforce`. Rules without a decision are dropped,
 * and so are `workspace_only` markers: upstream's own evaluator (`_PolicyDecideHook.run`) skips
 * rules of that name because containment is the platform's job (§12), here `workspaceContainment`
 * and the workspace roots, so applying them would refuse every file tool inside the workspace.
 */
export function orderPolicyRules(rules: readonly PolicyRule[]): PolicyRule[] {
  return rules
    .filter((rule) => rule.name !== WORKSPACE_ONLY_RULE)
    .map((rule, index) => ({ rule, index, rank: DECISION_RANK[rule.decision ?? PolicyDecision.UNSPECIFIED] }))
    .filter((entry): entry is { rule: PolicyRule; index: number; rank: number } => entry.rank !== undefined)
    .sort((a, b) => specificity(a.rule) - specificity(b.rule) || a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.rule);
}

/**
 * Evaluates the rules for one call. Static rules decide on a match; a dynamic rule
 * (`isDynamic`) is sent to the client, whose ALLOW/DENY decides and whose NO_MATCH moves on to the
 * next rule. A static ASK_USER rule asks the user through a tool confirmation (§8). When no rule
 * matches the call is allowed (an empty policy allows everything).
 */
export async function evaluatePolicy(rules: readonly PolicyRule[], call: PolicyCall, evaluateDynamic: DynamicRuleEvaluator): Promise<PolicyVerdict> {
  for (const rule of orderPolicyRules(rules)) {
    if (!matches(rule, call)) continue;
    if (rule.isDynamic === true) {
      const answer = await evaluateDynamic(rule);
      const outcome = answer.outcome ?? PolicyEvaluationOutcome.UNSPECIFIED;
      if (outcome === PolicyEvaluationOutcome.NO_MATCH) continue;
      if (outcome === PolicyEvaluationOutcome.ALLOW) return { decision: "allow", rule };
      // DENY, and (fail closed) an answer without a usable outcome.
      const reason = nonEmpty(answer.denyReason) ?? (outcome === PolicyEvaluationOutcome.DENY ? defaultReason(rule) : `client gave no outcome for policy rule ${rule.ruleId ?? ""}`);
      return { decision: "deny", reason, rule };
    }
    switch (rule.decision) {
      case PolicyDecision.ALLOW: return { decision: "allow", rule };
      case PolicyDecision.DENY: return { decision: "deny", reason: nonEmpty(rule.denyReason) ?? defaultReason(rule), rule };
      case PolicyDecision.ASK_USER: return { decision: "ask", rule };
      default: continue;
    }
  }
  return { decision: "allow" };
}

function specificity(rule: PolicyRule): number {
  if ((rule.tool ?? "*") !== "*") return SPECIFICITY.tool;
  return nonEmpty(rule.serverName) === undefined ? SPECIFICITY.any : SPECIFICITY.server;
}

function matches(rule: PolicyRule, call: PolicyCall): boolean {
  const tool = rule.tool ?? "*";
  if (tool !== "*" && tool !== call.toolName) return false;
  const server = nonEmpty(rule.serverName);
  return server === undefined || server === call.serverName;
}

function defaultReason(rule: PolicyRule): string {
  return `denied by policy ${JSON.stringify(nonEmpty(rule.name) ?? rule.tool ?? "*")}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
