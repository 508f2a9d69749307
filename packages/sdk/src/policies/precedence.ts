/**
 * The one rule that orders policies, shared by the SDK (`evaluatePolicies` over SDK policies)
 * and the reference harness (`evaluatePolicy` over wire `PolicyRule`s, through
 * `@antigravity-ts/sdk/internal`): both decide a call the same way, by construction.
 */

/** A rule's decision; within a bucket deny comes before ask, ask before allow. */
export type PrecedenceDecision = "deny" | "ask_user" | "allow";

/** What the precedence reads of a rule. */
export interface RuleTarget {
  /** A tool name, or `"*"` for every tool (of {@link serverName} when set). */
  tool: string;
  /** The MCP server the rule is limited to; undefined or `""` = any. */
  serverName?: string | undefined;
  decision: PrecedenceDecision;
}

/** What the precedence reads of a call. */
export interface CallTarget {
  /** The tool name as the harness gives it; an MCP tool may carry an `mcp_<server>_` prefix. */
  name: string;
  /** The call's MCP server; undefined or `""` = the server a rule names whose `mcp_<server>_` prefix the name carries, if any. */
  serverName?: string | undefined;
}

const DECISION_RANK: Record<PrecedenceDecision, number> = { deny: 0, ask_user: 1, allow: 2 };

/**
 * The rules that apply to `call`, in the 9-bucket precedence (antigravity-api.md §2.8, protocol
 * §12): exact tool deny, ask, allow; then `server/*` deny, ask, allow; then `*` deny, ask, allow;
 * declaration order within a bucket. The caller walks the list: the first rule that decides wins
 * (a predicate or a dynamic rule may pass to the next); an empty list allows the call.
 *
 * `targetOf` gives each rule's target, or undefined for a rule that never decides (a
 * `workspace_only` marker, a rule without a decision). An exact-tool rule of a server matches the
 * call's name with or without the `mcp_<server>_` prefix the harness may add; the server of a
 * call without one is the longest server a rule names whose prefix its name carries.
 *
 * @example
 * rulesInPrecedence([{ tool: "*", decision: "allow" }, { tool: "run_command", decision: "deny" }], { name: "run_command" }, (r) => r);
 * // [{ tool: "run_command", decision: "deny" }, { tool: "*", decision: "allow" }]
 */
export function rulesInPrecedence<Rule>(
  rules: readonly Rule[],
  call: CallTarget,
  targetOf: (rule: Rule) => RuleTarget | undefined,
): Rule[] {
  const targets = rules.map(targetOf);
  const server = serverOf(call, targets);
  return rules
    .map((rule, order) => {
      const target = targets[order];
      const level = target === undefined ? undefined : specificity(target, call, server);
      return {
        rule,
        order,
        bucket: level === undefined || target === undefined ? undefined : level * 3 + DECISION_RANK[target.decision],
      };
    })
    .filter((entry): entry is { rule: Rule; order: number; bucket: number } => entry.bucket !== undefined)
    .sort((a, b) => a.bucket - b.bucket || a.order - b.order)
    .map((entry) => entry.rule);
}

/** Specificity of a rule for a call: 0 exact tool, 1 `server/*`, 2 `*`; undefined = it does not apply. */
function specificity(target: RuleTarget, call: CallTarget, server: string | undefined): number | undefined {
  const serverName = nonEmpty(target.serverName);
  if (serverName === undefined) {
    if (target.tool === "*") return 2;
    return target.tool === call.name || (server !== undefined && target.tool === localName(call.name, server))
      ? 0
      : undefined;
  }
  if (server !== serverName) return undefined;
  if (target.tool === "*") return 1;
  return target.tool === localName(call.name, server) ? 0 : undefined;
}

/** An MCP tool's name without the `mcp_<server>_` prefix the harness may add. */
function localName(name: string, server: string): string {
  const prefix = `mcp_${server}_`;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The call's server: its own, else the longest server a rule names whose `mcp_<server>_` prefix the name carries. */
function serverOf(call: CallTarget, targets: readonly (RuleTarget | undefined)[]): string | undefined {
  const own = nonEmpty(call.serverName);
  if (own !== undefined) return own;
  return targets
    .map((target) => nonEmpty(target?.serverName))
    .filter((server): server is string => server !== undefined && call.name.startsWith(`mcp_${server}_`))
    .sort((a, b) => b.length - a.length)[0];
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
