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
    policy.auto?.assertWire(capabilities, refuse);
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
  // The 0.1.15-0.1.19 session options (issue 25): each needs a wire that carries it.
  if (options.skills !== undefined && !capabilities.skills) refuse("skills", "skill directories the harness reads");
  if ((options.skillsPaths ?? []).length > 0 && !capabilities.skills)
    refuse("skillsPaths", "skill directories the harness reads");
  if (options.rules !== undefined && !capabilities.rules) refuse("rules", "rules files the harness reads");
  if (options.toolOutputTruncation !== undefined && !capabilities.toolOutputTruncation)
    refuse("toolOutputTruncation", "a limit on the tool output the model reads");
  if (!capabilities.builtinTools) {
    for (const preset of options.presets ?? [])
      refuse(`${preset.name}()`, "its built-in tool settings (tool sets, daemon commands), retries and model settings");
    // manage_task is no BuiltinTool: it comes with run_command or schedule (builtin-tools.ts).
    if (options.capabilities?.enabledTools?.includes("schedule") === true)
      refuse("capabilities.enabledTools (schedule)", "the harness's timers and their manage_task");
    if (options.capabilities?.runCommand?.enableDaemonCommands === true)
      refuse("capabilities.runCommand.enableDaemonCommands", "daemon commands of the harness's run_command");
  }
  if (!capabilities.thinkingLevel && asksThinkingLevel(options))
    refuse("thinkingLevel", "a thinking level for the agent's models");
}

/** Whether the agent or one of its explicit models (a Gemini API or Vertex AI endpoint's options) sets a thinking level. */
function asksThinkingLevel(options: AgentOptions): boolean {
  if (options.modelOptions?.thinkingLevel !== undefined) return true;
  return (options.models ?? []).some((model) => {
    const endpoint = model.endpoint;
    return (
      (endpoint?.case === "geminiApiEndpoint" || endpoint?.case === "vertexEndpoint") &&
      endpoint.value.options?.thinkingLevel !== undefined
    );
  });
}
