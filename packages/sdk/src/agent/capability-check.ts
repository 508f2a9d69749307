import type { ConnectionCapabilities, HookKind } from "../connection/capabilities.js";
import { ErrorCode, SdkError } from "../errors.js";
import { flattenPolicies } from "../policies/policy.js";
import type { AgentOptions } from "./agent-options.js";

/**
 * Refuses, with `Unsupported` naming the option and the wire, every option of `options` that a
 * wire with `capabilities` cannot honour (docs/design.md, the capability table). Only what the
 * options ask for counts: defaults a wire lacks are its own business.
 */
export function assertCapabilities(options: AgentOptions, capabilities: ConnectionCapabilities): void {
  const refuse = (option: string, what: string): never => {
    throw new SdkError(
      ErrorCode.Unsupported,
      `${option} needs ${what}, which the ${capabilities.wire} wire cannot do: remove ${option} or use a wire that has it`,
      {
        details: { option, wire: capabilities.wire },
      },
    );
  };
  if ((options.tools ?? []).length > 0 && !capabilities.clientTools) refuse("tools", "client-side tools");
  for (const hook of options.hooks ?? []) {
    for (const kind of Object.keys(hook) as HookKind[])
      if (typeof hook[kind] === "function" && !capabilities.hooks.has(kind))
        refuse(`hooks (${kind})`, `the ${kind} hook`);
  }
  for (const policy of flattenPolicies(options.policies ?? [])) {
    if ((policy.predicate !== undefined || policy.handler !== undefined) && !capabilities.dynamicPolicies)
      refuse(`policies (${policy.name})`, "policies decided by the client");
    if (policy.decision === "ask_user" && policy.handler === undefined && !capabilities.confirmations)
      refuse(`policies (${policy.name}: deferToUser)`, "tool confirmations");
  }
  if ((options.triggers ?? []).length > 0 && !capabilities.triggers)
    refuse("triggers", "messages injected into the conversation");
  if (options.continuationSecret !== undefined && !(capabilities.confirmations && capabilities.resume))
    refuse("continuationSecret", "pausing a turn and resuming it later");
  if (options.conversationStore !== undefined && !capabilities.resume)
    refuse("conversationStore", "resuming a conversation by id");
  if (options.sessionContinuationMode === "resume" && !capabilities.resume)
    refuse("sessionContinuationMode", "resuming a conversation by id");
  if (
    (options.compaction !== undefined || (options.capabilities?.compactionThreshold ?? 0) > 0) &&
    !capabilities.compaction
  )
    refuse("compaction", "configurable context compaction");
  if (options.capabilities?.enabledTools?.includes("ask_question") === true && !capabilities.questions)
    refuse("capabilities.enabledTools (ask_question)", "questions to the user");
}
