import {
  rulesInPrecedence,
  type PrecedenceDecision,
  type RuleTarget,
  PolicyDecision,
  PolicyEvaluationOutcome,
} from "@antigravity-ts/sdk/internal";
import type { PolicyDecisionResponse, PolicyRule } from "@antigravity-ts/sdk/wire";

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

const PRECEDENCE_DECISION: Partial<Record<PolicyDecision, PrecedenceDecision>> = {
  [PolicyDecision.DENY]: "deny",
  [PolicyDecision.ASK_USER]: "ask_user",
  [PolicyDecision.ALLOW]: "allow",
};

/**
 * A wire rule as the shared precedence ({@link rulesInPrecedence}, the SDK's own) reads it.
 * Whether the real harness orders `PolicyConfig.rules` this way is UNCONFIRMED (§12: upstream
 * only sends declaration order); we do, so that a harness-evaluated policy gives the same answer
 * as the SDK's in-process `policy.enforce`. Rules without a decision never decide, and neither do
 * `workspace_only` markers: upstream's own evaluator (`_PolicyDecideHook.run`) skips rules of that
 * name because containment is the platform's job (§12), here `workspaceContainment` and the
 * workspace roots, so applying them would refuse every file tool inside the workspace.
 */
function targetOf(rule: PolicyRule): RuleTarget | undefined {
  const decision = PRECEDENCE_DECISION[rule.decision ?? PolicyDecision.UNSPECIFIED];
  if (rule.name === WORKSPACE_ONLY_RULE || decision === undefined) return undefined;
  return { tool: rule.tool ?? "*", serverName: rule.serverName, decision };
}

/**
 * Evaluates the rules for one call, in the shared precedence. Static rules decide on a match; a dynamic rule
 * (`isDynamic`) is sent to the client, whose ALLOW/DENY decides and whose NO_MATCH moves on to the
 * next rule. A static ASK_USER rule asks the user through a tool confirmation (§8). When no rule
 * matches the call is allowed (an empty policy allows everything).
 */
export async function evaluatePolicy(
  rules: readonly PolicyRule[],
  call: PolicyCall,
  evaluateDynamic: DynamicRuleEvaluator,
): Promise<PolicyVerdict> {
  for (const rule of rulesInPrecedence(rules, { name: call.toolName, serverName: call.serverName }, targetOf)) {
    if (rule.isDynamic === true) {
      const answer = await evaluateDynamic(rule);
      const outcome = answer.outcome ?? PolicyEvaluationOutcome.UNSPECIFIED;
      if (outcome === PolicyEvaluationOutcome.NO_MATCH) continue;
      if (outcome === PolicyEvaluationOutcome.ALLOW) return { decision: "allow", rule };
      // DENY, and (fail closed) an answer without a usable outcome.
      const reason =
        nonEmpty(answer.denyReason) ??
        (outcome === PolicyEvaluationOutcome.DENY
          ? defaultReason(rule)
          : `client gave no outcome for policy rule ${rule.ruleId ?? ""}`);
      return { decision: "deny", reason, rule };
    }
    switch (rule.decision) {
      case PolicyDecision.ALLOW:
        return { decision: "allow", rule };
      case PolicyDecision.DENY:
        return { decision: "deny", reason: nonEmpty(rule.denyReason) ?? defaultReason(rule), rule };
      case PolicyDecision.ASK_USER:
        return { decision: "ask", rule };
      default:
        continue;
    }
  }
  return { decision: "allow" };
}

const DECISION_WORDS: Partial<Record<PolicyDecision, string>> = {
  [PolicyDecision.DENY]: "denies",
  [PolicyDecision.ASK_USER]: "asks the user about",
  [PolicyDecision.ALLOW]: "allows",
};

/**
 * `PolicyDecisionRequest.reason` (= 4, localharness.proto upstream @257f843a; 0.1.19 wire, left out
 * for 0.1.14 clients by the writer, `outputEventForEra`): why the harness asks the client about
 * `toolName`'s call. Upstream's handlers get it as the runtime's explanation of why confirmation
 * is requested (`AskUserHandler`, hooks/policy.py Stars1233 @5f40f295); what Google's harness puts
 * there is not published. Here: the rule's own reason when the client gave one (`denyReason`,
 * which the SDK fills from the policy's `reason`), else which rule matched and what it decides.
 */
export function policyRequestReason(rule: PolicyRule, toolName: string): string {
  const given = nonEmpty(rule.denyReason);
  if (given !== undefined) return given;
  const label = nonEmpty(rule.name) ?? nonEmpty(rule.ruleId) ?? rule.tool ?? "*";
  const server = nonEmpty(rule.serverName);
  const target = `${server === undefined ? "" : `${server}/`}${rule.tool ?? "*"}`;
  const decides = DECISION_WORDS[rule.decision ?? PolicyDecision.UNSPECIFIED] ?? "decides";
  return `${toolName} matches policy rule ${JSON.stringify(label)} (${decides} ${target}), which the client decides`;
}

function defaultReason(rule: PolicyRule): string {
  return `denied by policy ${JSON.stringify(nonEmpty(rule.name) ?? rule.tool ?? "*")}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
