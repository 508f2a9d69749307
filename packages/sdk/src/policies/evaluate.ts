import type { ToolCall } from "../step.js";
import { Decision, isWorkspaceMarker, splitTarget, type Policy } from "./policy.js";
import { rulesInPrecedence } from "./precedence.js";
import { errorText } from "../error-text.js";

/** The outcome of {@link evaluatePolicies}. */
export interface PolicyVerdict {
  decision: Decision;
  /** The policy that decided; absent when nothing matched (default allow). */
  policy?: Policy;
  /** Why the call is refused, for the model (deny verdicts only). */
  reason?: string;
}

/** A deny message the model can act on (upstream wording, antigravity-api.md §2.8). */
export function denialReason(policy: Policy): string {
  return policy.reason ?? `Denied by policy '${policy.name}'.`;
}

/**
 * Decides a tool call with the 9-bucket precedence ({@link rulesInPrecedence}, which the
 * reference harness applies to the same rules on the wire). The first policy of the first
 * non-empty bucket decides; a predicate returning false skips its policy; a throwing predicate
 * denies ("Policy evaluation failed"); no match allows.
 * `workspaceOnly` markers and the `auto()` policy are skipped (the harness enforces both: its
 * safety assessment sits between the specific rules and the `"*"` ones, upstream's
 * `_PolicyDecideHook` skips it in-process too). ASK_USER handlers are not
 * called here: the verdict names the policy so the caller can ask.
 *
 * @example
 * const verdict = await evaluatePolicies([deny("run_command"), allowAll()], { id: "1", name: "run_command", args: {} });
 * // verdict.decision === "deny"
 */
export async function evaluatePolicies(policies: readonly Policy[], call: ToolCall): Promise<PolicyVerdict> {
  const ranked = rulesInPrecedence(policies, call, (policy) =>
    isWorkspaceMarker(policy) || policy.auto ? undefined : { ...splitTarget(policy.tool), decision: policy.decision },
  );
  for (const policy of ranked) {
    if (policy.predicate !== undefined) {
      let matches: boolean;
      try {
        matches = await policy.predicate(call);
      } catch (error) {
        return {
          decision: Decision.Deny,
          policy,
          reason: `Policy evaluation failed for '${policy.name}': ${errorText(error)}`,
        };
      }
      if (!matches) continue;
    }
    return policy.decision === Decision.Deny
      ? { decision: Decision.Deny, policy, reason: denialReason(policy) }
      : { decision: policy.decision, policy };
  }
  return { decision: Decision.Allow };
}
