import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  PolicyConfigSchema,
  PolicyDecisionRequest,
  PolicyDecisionResponse,
  PolicyRuleSchema,
} from "../wire/index.js";
import { PolicyConfig_WorkspaceContainment, PolicyDecision, PolicyEvaluationOutcome } from "../wire/wire-enums.gen.js";
import { toolCallFromPreToolArgs } from "../mapping/canonical-tool-call.js";
import { stepIdOf } from "../mapping/step-from-update.js";
import type { ToolCall } from "../step.js";
import { errorText } from "../error-text.js";
import { denialReason } from "./evaluate.js";
import { Decision, isDynamic, isWorkspaceMarker, splitTarget, type Policy, type ToolCallLocation } from "./policy.js";
import { definedProperties } from "../defined-properties.js";
import { delay } from "../util/abort.js";

const WIRE_DECISION: Record<Decision, PolicyDecision> = {
  allow: PolicyDecision.ALLOW,
  deny: PolicyDecision.DENY,
  ask_user: PolicyDecision.ASK_USER,
};

/** The rule id of a dynamic policy: `rule_<index in the flattened list>` (protocol §12). */
export function ruleIdOf(index: number): string {
  return `rule_${index}`;
}

/**
 * Serialises flattened policies to `HarnessConfig.policyConfig` (protocol §12): one rule per
 * policy in declaration order, `server/tool` targets split, static rules decided by the harness,
 * dynamic ones (a predicate or ASK_USER) flagged `isDynamic` with `ruleId` `rule_<index>`.
 * `workspaceOnly` markers become `workspaceContainment: ENABLED` instead of a rule; the `auto()`
 * policy becomes `autoConfig` (at most one).
 */
export function toPolicyConfig(policies: readonly Policy[]): MessageInitShape<typeof PolicyConfigSchema> {
  const rules: MessageInitShape<typeof PolicyRuleSchema>[] = [];
  const config: MessageInitShape<typeof PolicyConfigSchema> = { rules };
  let containment = false;
  policies.forEach((policy, index) => {
    if (isWorkspaceMarker(policy)) {
      containment = true;
      return;
    }
    if (policy.auto !== undefined) return policy.auto.addTo(config);
    const { tool, serverName } = splitTarget(policy.tool);
    const dynamic = isDynamic(policy);
    rules.push({
      tool,
      ...definedProperties({ serverName }),
      name: policy.name,
      decision: WIRE_DECISION[policy.decision],
      // Upstream sends every rule's reason as deny_reason (hooks/policy.py @32f16939 _to_policy_config_proto).
      ...(policy.decision === Decision.Deny
        ? { denyReason: denialReason(policy) }
        : definedProperties({ denyReason: policy.reason })),
      isDynamic: dynamic,
      ruleId: dynamic ? ruleIdOf(index) : "",
    });
  });
  if (containment) config.workspaceContainment = PolicyConfig_WorkspaceContainment.ENABLED;
  return config;
}

/** The SDK's answer to a `policyDecisionRequest` (protocol §12). */
export interface PolicyDecisionAnswer {
  outcome: NonNullable<PolicyDecisionResponse["outcome"]>;
  denyReason?: string;
}

/**
 * Answers a dynamic rule the harness matched (protocol §12): the predicate false ⇒ NO_MATCH;
 * ALLOW/DENY as declared; ASK_USER ⇒ the handler's answer. An unknown rule id or a throwing
 * predicate/handler ⇒ DENY with a reason. Never throws. The predicate and handler see the call in
 * the canonical spelling steps and chunks show ({@link toolCallFromPreToolArgs}).
 */
export async function decidePolicyRequest(
  policies: readonly Policy[],
  request: PolicyDecisionRequest,
): Promise<PolicyDecisionAnswer> {
  const ruleId = request.ruleId ?? "";
  const match = /^rule_(\d+)$/.exec(ruleId);
  // A call the harness's auto mode flagged comes under "auto" (upstream's dynamic_policy_map["auto"]), never rule_<index>.
  const policy =
    ruleId === "auto" ? policies.find((p) => p.auto) : match === null ? undefined : policies[Number(match[1])];
  if (policy === undefined || isWorkspaceMarker(policy) || (ruleId !== "auto" && policy.auto)) {
    // The texts of upstream's event_processor._handle_policy_decision_request (event_processor_test.py PolicyDecisionTest).
    return { outcome: PolicyEvaluationOutcome.DENY, denyReason: `Unknown rule_id: ${ruleId}` };
  }
  const call = toolCallFromPreToolArgs(request.toolArgs);
  try {
    if (policy.predicate !== undefined && !(await policy.predicate(call)))
      return { outcome: PolicyEvaluationOutcome.NO_MATCH };
    const args = request.toolArgs;
    // PreToolArgs names the step of the call (trajectory_id, step_index): the handler can place it.
    const where =
      args?.stepIndex === undefined
        ? undefined
        : {
            trajectoryId: args.trajectoryId ?? "",
            stepIndex: args.stepIndex,
            stepId: stepIdOf(args.trajectoryId, args.stepIndex),
          };
    return await decide(policy, call, where, request.reason || undefined);
  } catch (error) {
    return { outcome: PolicyEvaluationOutcome.DENY, denyReason: `Policy evaluation error: ${errorText(error)}` };
  }
}

/**
 * Applies a matching policy's decision, asking its handler for ASK_USER with the harness's
 * `reason` (else the policy's). A user's denial reads the policy's `reason` when it has one (as
 * upstream's `_PolicyDecideHook` words it, hooks/policy.py @32f16939), else `Denied by user
 * (<policy>).` as upstream's event processor does.
 */
export async function decide(
  policy: Policy,
  call: ToolCall,
  where?: ToolCallLocation,
  reason?: string,
): Promise<PolicyDecisionAnswer> {
  switch (policy.decision) {
    case Decision.Allow:
      return { outcome: PolicyEvaluationOutcome.ALLOW };
    case Decision.Deny:
      return { outcome: PolicyEvaluationOutcome.DENY, denyReason: denialReason(policy) };
    case Decision.AskUser: {
      const accepted = policy.handler === undefined ? false : await askHandler(policy, call, where, reason);
      return accepted
        ? { outcome: PolicyEvaluationOutcome.ALLOW }
        : {
            outcome: PolicyEvaluationOutcome.DENY,
            denyReason: policy.reason ?? `Denied by user (${policy.name || policy.tool}).`,
          };
    }
  }
}

/**
 * Calls an ASK_USER policy's handler with the runtime's reason, else the policy's own (upstream
 * `_execute_ask_user`), show first, then ask: the handler runs a macrotask after the call's step
 * arrived, when every `for await` over the turn's stream that was waiting has already been given
 * the call's `toolCall` chunk (the hops between them are microtasks), so an app asks about a call
 * it has shown (issue 26 item 7). A consumer that is busy elsewhere is not waited for.
 */
export async function askHandler(
  policy: Policy,
  call: ToolCall,
  where: ToolCallLocation | undefined,
  reason?: string,
): Promise<boolean> {
  if (policy.handler === undefined) return false;
  await delay(0);
  return policy.handler(call, where, reason ?? policy.reason);
}
