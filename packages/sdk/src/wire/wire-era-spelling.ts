import { ErrorCode, SdkError } from "../errors.js";
import { plainOfStructJson, structJsonOf } from "./genai-struct.js";
import { NEWEST_LOCALHARNESS_ERA, type LocalharnessEra } from "./wire-era.js";

// The 0.1.14 and 0.1.19 spellings of the localharness JSON wire, both ways (wire-era.ts says
// what differs and why; docs/upstream-differences.md "wire eras").

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unsupported(field: string, era: LocalharnessEra, why = "the field is newer than that era"): SdkError {
  return new SdkError(
    ErrorCode.Unsupported,
    `${field} cannot be sent to a localharness of the ${era} wire (${why}); leave it unset or choose wireEra "${NEWEST_LOCALHARNESS_ERA}" (docs/upstream-differences.md "wire eras")`,
  );
}

/** Removes `key` (either spelling) from `object`, refusing it when it holds a value that says something. */
function refuse(object: JsonObject, keys: readonly string[], field: string, era: LocalharnessEra): void {
  for (const key of keys) {
    if (!(key in object)) continue;
    const value = object[key];
    const empty =
      value === null ||
      value === false ||
      value === 0 ||
      value === "" ||
      (typeof value === "string" && value.endsWith("_UNSPECIFIED")) ||
      (Array.isArray(value) && value.length === 0) ||
      (isObject(value) && Object.keys(value).length === 0);
    if (!empty) throw unsupported(field, era);
    delete object[key];
  }
}

function each(value: Json | undefined, visit: (object: JsonObject) => void): void {
  if (Array.isArray(value)) for (const item of value) if (isObject(item)) visit(item);
}

function systemInstructionsForEra(instructions: Json | undefined, era: LocalharnessEra, at: string): void {
  if (!isObject(instructions) || !isObject(instructions.custom)) return;
  each(instructions.custom.part, (part) => {
    refuse(part, ["builtinSection", "builtin_section"], `${at}.custom.part[].builtinSection`, era);
    const template = part.template;
    if (isObject(template) && "name" in template) {
      template.templateName = template.name ?? "";
      delete template.name;
    }
  });
}

function sideToolsForEra(tools: Json | undefined, era: LocalharnessEra, at: string): void {
  if (!isObject(tools)) return;
  const run = tools.runCommand ?? tools.run_command;
  if (isObject(run)) refuse(run, ["executionMode", "execution_mode"], `${at}.runCommand.executionMode`, era);
}

/**
 * The first SDK frame (`{"config": HarnessConfig}` as JSON, §5) spelled for `era`: a copy for
 * 0.1.14, the frame itself for the newest era. Throws `SdkError` `Unsupported` for a set field
 * the era does not know.
 */
export function initFrameForEra(frame: JsonObject, era: LocalharnessEra): JsonObject {
  if (era === NEWEST_LOCALHARNESS_ERA || !isObject(frame.config)) return frame;
  const copy = structuredClone(frame);
  const config = copy.config as JsonObject;
  refuse(config, ["skillsConfig", "skills_config"], "HarnessConfig.skillsConfig (skills)", era);
  refuse(config, ["rulesConfig", "rules_config"], "HarnessConfig.rulesConfig (rules)", era);
  const compaction = config.compactionConfig ?? config.compaction_config;
  if (isObject(compaction)) {
    refuse(compaction, ["maxContextTokens", "max_context_tokens"], "CompactionConfig.maxContextTokens", era);
    // 0.1.14's one dial is field 1, the field 0.1.19 renamed token_threshold (same number, same use).
    const threshold = compaction.tokenThreshold ?? compaction.token_threshold;
    const interval = compaction.checkpointIntervalTokens ?? compaction.checkpoint_interval_tokens;
    if (threshold !== undefined && interval !== undefined && threshold !== interval) {
      throw unsupported(
        "CompactionConfig.tokenThreshold with a different checkpointIntervalTokens",
        era,
        "that era has one compaction dial",
      );
    }
    for (const key of ["tokenThreshold", "token_threshold", "checkpoint_interval_tokens"]) delete compaction[key];
    const dial = threshold ?? interval;
    if (dial !== undefined) compaction.checkpointIntervalTokens = dial;
  }
  const policy = config.policyConfig ?? config.policy_config;
  if (isObject(policy)) refuse(policy, ["autoConfig", "auto_config"], "PolicyConfig.autoConfig", era);
  systemInstructionsForEra(config.systemInstructions ?? config.system_instructions, era, "systemInstructions");
  sideToolsForEra(config.harnessSideTools ?? config.harness_side_tools, era, "harnessSideTools");
  each(config.customSubagents ?? config.custom_subagents, (agent) => {
    refuse(agent, ["model"], "CustomAgent.model (a subagent's model)", era);
    systemInstructionsForEra(
      agent.systemInstructions ?? agent.system_instructions,
      era,
      "customSubagents[].systemInstructions",
    );
    sideToolsForEra(agent.harnessSideTools ?? agent.harness_side_tools, era, "customSubagents[].harnessSideTools");
  });
  return copy;
}

/** An SDK frame after the first (an InputEvent as JSON) spelled for `era`, as {@link initFrameForEra}. */
export function inputEventForEra(event: JsonObject, era: LocalharnessEra): JsonObject {
  if (era === NEWEST_LOCALHARNESS_ERA) return event;
  const response = event.callHookResponse;
  if (!isObject(response) || !isObject(response.preToolResult) || !("modifiedArgs" in response.preToolResult))
    return event;
  const copy = structuredClone(event);
  const result = (copy.callHookResponse as JsonObject).preToolResult as JsonObject;
  // modified_args is a genai.Struct (`{fields: [...]}`); 0.1.14 took the plain object as JSON text.
  result.modifiedArgumentsJson = JSON.stringify(plainOfStructJson(result.modifiedArgs) ?? {});
  delete result.modifiedArgs;
  return copy;
}

/**
 * A harness frame (an OutputEvent as JSON) for a client of `era` (the reference harness's
 * writer): fields the 0.1.14 era does not know are left out, since its Python client refuses
 * unknown names. Returns the frame itself when nothing changes.
 */
export function outputEventForEra(event: JsonObject, era: LocalharnessEra): JsonObject {
  if (era === NEWEST_LOCALHARNESS_ERA) return event;
  let changed = false;
  const drop = (object: Json | undefined, key: string): void => {
    if (isObject(object) && key in object) {
      delete object[key];
      changed = true;
    }
  };
  const dropFromStep = (step: Json | undefined): void => {
    if (!isObject(step)) return;
    drop(step, "skillLookup");
    if (isObject(step.customTool)) drop(step.customTool.toolCall, "trajectoryId");
  };
  const copy = structuredClone(event);
  drop(copy.toolCall, "trajectoryId");
  drop(copy.policyDecisionRequest, "reason");
  dropFromStep(copy.stepUpdate);
  const init = copy.initializeConversationResponse;
  if (isObject(init)) {
    drop(init, "sandboxStatus");
    if (Array.isArray(init.history)) for (const step of init.history) dropFromStep(step);
  }
  return changed ? copy : event;
}

/** Renames 0.1.14 spellings to the newest in `frame` (mutating it when `mutate`); answers the era the spelling shows. */
function visitEitherEra(frame: JsonObject, mutate: boolean): { era: LocalharnessEra | undefined; renames: boolean } {
  let era: LocalharnessEra | undefined;
  let renames = false;
  const config = frame.config;
  const templates = (instructions: Json | undefined): void => {
    if (!isObject(instructions) || !isObject(instructions.custom)) return;
    each(instructions.custom.part, (part) => {
      if ("builtinSection" in part || "builtin_section" in part) era = "0.1.19";
      const template = part.template;
      if (!isObject(template)) return;
      if ("name" in template) era = "0.1.19";
      const old = template.templateName ?? template.template_name;
      if (old === undefined) return;
      era = "0.1.14";
      renames = true;
      if (!mutate) return;
      template.name = old;
      delete template.templateName;
      delete template.template_name;
    });
  };
  if (isObject(config)) {
    const compaction = config.compactionConfig ?? config.compaction_config;
    const newer = ["tokenThreshold", "token_threshold", "maxContextTokens", "max_context_tokens"];
    if (isObject(compaction) && newer.some((key) => key in compaction)) era = "0.1.19";
    if (["skillsConfig", "skills_config", "rulesConfig", "rules_config"].some((key) => key in config)) era = "0.1.19";
    templates(config.systemInstructions ?? config.system_instructions);
    each(config.customSubagents ?? config.custom_subagents, (agent) =>
      templates(agent.systemInstructions ?? agent.system_instructions),
    );
  }
  const response = frame.callHookResponse ?? frame.call_hook_response;
  const result = isObject(response) ? (response.preToolResult ?? response.pre_tool_result) : undefined;
  if (isObject(result)) {
    if ("modifiedArgs" in result || "modified_args" in result) era = "0.1.19";
    const old = result.modifiedArgumentsJson ?? result.modified_arguments_json;
    if (typeof old === "string") {
      era = "0.1.14";
      renames = true;
      if (mutate) {
        delete result.modifiedArgumentsJson;
        delete result.modified_arguments_json;
        if (old !== "") {
          let parsed: Json | undefined;
          try {
            parsed = JSON.parse(old) as Json;
          } catch {
            parsed = undefined;
          }
          if (isObject(parsed)) result.modifiedArgs = structJsonOf(parsed);
          else {
            // A Struct cannot hold it: the call is denied (fail closed), as the 0.1.14 reader did.
            result.decision = "DENY";
            result.reason = `the PRE_TOOL hook returned modifiedArgumentsJson that is not a JSON object: ${old.slice(0, 80)}`;
          }
        }
      }
    }
  }
  return { era, renames };
}

/**
 * Reads an SDK frame of either era in the newest spelling (the reference harness's reader): the
 * 0.1.14 `templateName` and `modifiedArgumentsJson` become `name` and `modifiedArgs` (arguments that
 * are not a JSON object deny the call, as a 0.1.14 harness would refuse them). Answers
 * the frame (a copy only when something was renamed) and the era its spelling shows
 * (`undefined` when it shows none).
 */
export function readFrameOfEitherEra(frame: JsonObject): { frame: JsonObject; era: LocalharnessEra | undefined } {
  const { era, renames } = visitEitherEra(frame, false);
  if (!renames) return { frame, era };
  const copy = structuredClone(frame);
  visitEitherEra(copy, true);
  return { frame: copy, era };
}
