import type { ToolCall } from "../types.js";
import { Decision, isWorkspaceMarker, splitTarget, type Policy } from "./policy.js";

/** The outcome of {@link evaluatePolicies}. */
export interface PolicyVerdict {
  decision: Decision;
  /** The policy that decided; absent when nothing matched (default allow). */
  policy?: Policy;
  /** Why the call is refused, for the model (deny verdicts only). */
  reason?: string;
}

/** Specificity of a policy target for a call: 0 exact tool, 1 `server/*`, 2 `*`; undefined = no match. */
function specificity(policy: Policy, call: ToolCall, server: string | undefined): number | undefined {
  const { tool, serverName } = splitTarget(policy.tool);
  if (serverName === undefined) {
    if (tool === "*") return 2;
    return tool === call.name || (server !== undefined && tool === mcpLocalName(call, server)) ? 0 : undefined;
  }
  if (server !== serverName) return undefined;
  if (tool === "*") return 1;
  return tool === mcpLocalName(call, server) ? 0 : undefined;
}

/** An MCP call's tool name without the `mcp_<server>_` prefix the harness may add. */
function mcpLocalName(call: ToolCall, server: string): string {
  const prefix = `mcp_${server}_`;
  return call.name.startsWith(prefix) ? call.name.slice(prefix.length) : call.name;
}

/**
 * The MCP server of a call: its `serverName`, else the longest server named by a policy whose
 * `mcp_<server>_` prefix the tool name carries (antigravity-api.md §2.8).
 */
function serverOf(call: ToolCall, policies: readonly Policy[]): string | undefined {
  if (call.serverName !== undefined && call.serverName !== "") return call.serverName;
  const servers = policies
    .map((p) => splitTarget(p.tool).serverName)
    .filter((s): s is string => s !== undefined && call.name.startsWith(`mcp_${s}_`))
    .sort((a, b) => b.length - a.length);
  return servers[0];
}

const DECISION_RANK: Record<Decision, number> = { deny: 0, ask_user: 1, allow: 2 };

/** A deny message the model can act on (upstream wording, antigravity-api.md §2.8). */
export function denialReason(policy: Policy): string {
  return policy.reason ?? `Denied by policy '${policy.name}'.`;
}

/**
 * Decides a tool call with the 9-bucket precedence (antigravity-api.md §2.8): exact tool deny <
 * ask < allow, then `server/*` deny < ask < allow, then `*` deny < ask < allow — lower wins. The
 * first policy of the first non-empty bucket decides; a predicate returning false skips its
 * policy; a throwing predicate denies ("Policy evaluation failed"); no match allows.
 * `workspaceOnly` markers are skipped (the harness enforces them). ASK_USER handlers are not
 * called here: the verdict names the policy so the caller can ask.
 *
 * @example
 * const verdict = await evaluatePolicies([deny("run_command"), allowAll()], { id: "1", name: "run_command", args: {} });
 * // verdict.decision === "deny"
 */
export async function evaluatePolicies(policies: readonly Policy[], call: ToolCall): Promise<PolicyVerdict> {
  const server = serverOf(call, policies);
  const ranked = policies
    .map((policy, order) => ({ policy, order, level: isWorkspaceMarker(policy) ? undefined : specificity(policy, call, server) }))
    .filter((entry): entry is { policy: Policy; order: number; level: number } => entry.level !== undefined)
    .sort((a, b) => a.level * 3 + DECISION_RANK[a.policy.decision] - (b.level * 3 + DECISION_RANK[b.policy.decision]) || a.order - b.order);
  for (const { policy } of ranked) {
    if (policy.predicate !== undefined) {
      let matches: boolean;
      try {
        matches = await policy.predicate(call);
      } catch (error) {
        return { decision: Decision.Deny, policy, reason: `Policy evaluation failed for '${policy.name}': ${messageOf(error)}` };
      }
      if (!matches) continue;
    }
    return policy.decision === Decision.Deny ? { decision: Decision.Deny, policy, reason: denialReason(policy) } : { decision: policy.decision, policy };
  }
  return { decision: Decision.Allow };
}

/** Text of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
