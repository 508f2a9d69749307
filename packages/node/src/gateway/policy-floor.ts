import { PolicyDecision, type PolicyRule } from "@antigravity-ts/sdk/wire";

/** The page's rules with the operator's floor applied, and the page rules that had to go. */
export interface FlooredRules {
  rules: PolicyRule[];
  dropped: PolicyRule[];
}

/**
 * Combines the operator's static floor with a page's policy rules (protocol §12) so that the page
 * can narrow the floor but never widen it, whatever order the harness evaluates rules in (the
 * reference harness sorts by the 9-level precedence, upstream's order is UNCONFIRMED, §12):
 *
 * - A page rule that could match a call the operator denies is dropped unless it is itself a static
 *   DENY. Dynamic rules go too, whatever they declare: the page answers them (`policyDecisionResponse`)
 *   and may answer ALLOW, and a more specific rule outranks the operator's `*` in the 9-level order.
 * - A page rule that could match a call the operator wants confirmed is dropped when it allows
 *   (statically or dynamically): a careless `allowAll()` must not skip the confirmation. The page's
 *   own asks and denies stay, and come first, so a page that asks in its own dialog still does.
 *
 * Resulting order: operator denies, the page's kept rules, operator asks.
 */
export function applyPolicyFloor(
  pageRules: readonly PolicyRule[],
  denyRules: readonly PolicyRule[],
  askRules: readonly PolicyRule[],
): FlooredRules {
  const kept: PolicyRule[] = [];
  const dropped: PolicyRule[] = [];
  for (const rule of pageRules) {
    const againstDeny =
      denyRules.some((floor) => overlaps(floor, rule)) &&
      !(rule.isDynamic !== true && rule.decision === PolicyDecision.DENY);
    const againstAsk = askRules.some((floor) => overlaps(floor, rule)) && !isDenyOrAsk(rule);
    (againstDeny || againstAsk ? dropped : kept).push(rule);
  }
  return { rules: [...denyRules, ...kept, ...askRules], dropped };
}

function isDenyOrAsk(rule: PolicyRule): boolean {
  return rule.decision === PolicyDecision.DENY || rule.decision === PolicyDecision.ASK_USER;
}

/**
 * Whether some call could match both rules. An empty tool counts as `*` and an empty server as
 * "any": a harness that reads them that way must not let a page rule through.
 */
function overlaps(a: PolicyRule, b: PolicyRule): boolean {
  const toolA = a.tool || "*";
  const toolB = b.tool || "*";
  const serverA = a.serverName ?? "";
  const serverB = b.serverName ?? "";
  return (
    (toolA === "*" || toolB === "*" || toolA === toolB) && (serverA === "" || serverB === "" || serverA === serverB)
  );
}

/** `tool`, `server/tool` or `*` of a rule, for log lines. */
export function describeRule(rule: PolicyRule): string {
  const target = rule.serverName ? `${rule.serverName}/${rule.tool || "*"}` : rule.tool || "*";
  const decision =
    rule.decision === PolicyDecision.DENY
      ? "deny"
      : rule.decision === PolicyDecision.ASK_USER
        ? "ask"
        : rule.decision === PolicyDecision.ALLOW
          ? "allow"
          : "?";
  return `${decision} ${target}${rule.isDynamic === true ? " (dynamic)" : ""}`;
}
