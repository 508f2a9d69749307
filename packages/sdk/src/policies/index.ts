/**
 * Tool policies: constructors, the 9-bucket precedence, serialisation to `policyConfig`, and
 * the answers to the harness's dynamic policy requests (protocol §12).
 * @module
 */
export {
  Decision,
  READ_ONLY_TOOLS,
  WORKSPACE_ONLY,
  allow,
  allowAll,
  allowMcp,
  askUser,
  askUserMcp,
  auto,
  deferToUser,
  confirmRunCommand,
  deny,
  denyAll,
  denyMcp,
  flattenPolicies,
  isDynamic,
  readOnly,
  workspaceOnly,
  type AskUserHandler,
  type AutoMode,
  type AutoOptions,
  type ToolCallLocation,
  type Policy,
  type PolicyLike,
  type PolicyOptions,
  type PolicyPredicate,
} from "./policy.js";
export { evaluatePolicies, type PolicyVerdict } from "./evaluate.js";
export { decidePolicyRequest, toPolicyConfig, ruleIdOf, type PolicyDecisionAnswer } from "./policy-config.js";
