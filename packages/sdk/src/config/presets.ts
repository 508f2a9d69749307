import { ErrorCode, SdkError } from "../errors.js";
import { BuiltinTool, MINIMAL_TOOLS, type CapabilitiesOptions } from "./builtin-tools.js";
import type { HarnessConfigOptions } from "./harness-config.js";
import { withThinkingLevel } from "./thinking-level.js";
import { ThinkingLevel, type RetryOptions } from "./model-options.js";

// Upstream's configuration presets, `AgentConfig.lightweight()` (0.1.16) and `AgentConfig.eval()`
// (0.1.18; its thinking level 0.1.19): google/antigravity/connections/connection.py, Stars1233
// @238766a3 (`_compute_lightweight_presets`, `_default_compaction_config`, `eval`), tested by
// connection_test.py @238766a3; CHANGELOG.md @1493021c. Each fills what the agent's options leave
// unset and keeps what they set. The agent builder records them (`eval()`, `lightweight()`) and
// the agent applies them at start() (`applyPresets`); this module loads only for an agent that has one.

/** A preset recorded by the agent builder, applied in call order at start(). */
export type AgentPreset =
  | { readonly name: "eval"; readonly thinkingLevel: ThinkingLevel | null }
  | { readonly name: "lightweight" };

/** Options of the `eval()` preset. */
export interface EvalPresetOptions {
  /**
   * The thinking level of the text models (default `ThinkingLevel.High`, upstream 0.1.19);
   * `null` leaves the models' own levels as they are.
   */
  thinkingLevel?: ThinkingLevel | null;
}

/** The options a preset reads and fills. */
export type PresetTarget = Pick<
  HarnessConfigOptions,
  "capabilities" | "agentBehavior" | "compaction" | "retryConfig" | "modelOptions"
>;

const MAX_UINT32 = 2 ** 32 - 1;

/**
 * Upstream `RetryConfig.benchmark()` (types.py, Stars1233 @4bfe2531): transient model API errors
 * (429, 503) retried up to 2^32 − 1 times from 1 s, so a quota limit never ends an evaluation run;
 * malformed output keeps the harness's own retries.
 */
export function benchmarkRetry(): RetryOptions {
  return { apiRetry: { maxRetries: MAX_UINT32, initialSleepDurationMs: 1000 } };
}

/** Upstream `_default_compaction_config()`: the lightweight preset compacts at 65,536 tokens. */
const LIGHTWEIGHT_COMPACTION_TOKENS = 65_536;

/**
 * What the agent sends at start(), for options with presets or with a thinking level and explicit
 * `models`: the presets applied in order, then the thinking level on the explicit text models
 * ({@link withThinkingLevel}).
 */
export function resolvedOptions<T extends PresetTarget & Pick<HarnessConfigOptions, "models" | "model">>(
  options: T & { presets?: readonly AgentPreset[] | undefined },
): T {
  const o = applyPresets(options, options.presets ?? []);
  const level = o.modelOptions?.thinkingLevel;
  if (o.models === undefined || level === undefined) return o;
  return { ...o, models: withThinkingLevel(o.models, level, o.model !== undefined) };
}

/** `options` with `presets` applied in order, each filling only what is still unset. */
export function applyPresets<T extends PresetTarget>(options: T, presets: readonly AgentPreset[]): T {
  return presets.reduce<T>(
    (o, preset) => (preset.name === "eval" ? evalPreset(o, preset) : lightweightPreset(o)),
    options,
  );
}

/**
 * Upstream `AgentConfig.eval()`: no image generation (`disabledTools`, unless `enabledTools` is
 * set; given `disabledTools` replace the preset's, as upstream's update does), no subagents
 * (`start_subagent` off unless `enabledTools` names it: this SDK's only way to ask for them),
 * daemon commands on (unless `runCommand.enableDaemonCommands` says otherwise), `benchmarkRetry()`
 * unless `retryConfig` is set, and the thinking level on the text models — refused when the agent
 * already sets one, as upstream refuses a target that sets one. `allowAll()` when no policy is
 * chosen is the builder's part (it decides the agent's policies before start()).
 */
function evalPreset<T extends PresetTarget>(options: T, preset: { thinkingLevel: ThinkingLevel | null }): T {
  const caps: CapabilitiesOptions = options.capabilities ?? {};
  const tools: CapabilitiesOptions =
    caps.enabledTools !== undefined
      ? {}
      : {
          disabledTools: withTool(caps.disabledTools ?? [BuiltinTool.GenerateImage], BuiltinTool.StartSubagent),
        };
  const runCommand = { enableDaemonCommands: true, ...caps.runCommand };
  const level = preset.thinkingLevel;
  if (level !== null && !Object.values(ThinkingLevel).includes(level))
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `eval({ thinkingLevel }) takes a ThinkingLevel or null, got ${JSON.stringify(level)}`,
    );
  if (level !== null && options.modelOptions?.thinkingLevel !== undefined)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `eval() sets thinkingLevel ${JSON.stringify(level)} and the agent already sets ${JSON.stringify(options.modelOptions.thinkingLevel)}: pass the level as eval({ thinkingLevel }), or eval({ thinkingLevel: null }) to keep the agent's`,
    );
  return {
    ...options,
    capabilities: { ...caps, ...tools, runCommand },
    retryConfig: options.retryConfig ?? benchmarkRetry(),
    ...(level === null ? {} : { modelOptions: { ...options.modelOptions, thinkingLevel: level } }),
  };
}

/**
 * Upstream `AgentConfig.lightweight()`: the minimal built-ins (`MINIMAL_TOOLS`, without those in
 * `disabledTools`; `enabledTools` kept when set), which leave subagents off, `agentBehavior`
 * `"minimal"` and compaction at 65,536 tokens, each unless set.
 */
function lightweightPreset<T extends PresetTarget>(options: T): T {
  const caps: CapabilitiesOptions = options.capabilities ?? {};
  const { disabledTools, ...rest } = caps;
  const enabledTools = caps.enabledTools ?? MINIMAL_TOOLS.filter((tool) => !(disabledTools ?? []).includes(tool));
  const compacts = options.compaction !== undefined || caps.compactionThreshold !== undefined;
  return {
    ...options,
    capabilities: { ...rest, enabledTools },
    agentBehavior: options.agentBehavior ?? "minimal",
    ...(compacts ? {} : { compaction: { tokenThreshold: LIGHTWEIGHT_COMPACTION_TOKENS } }),
  };
}

function withTool(tools: readonly BuiltinTool[], tool: BuiltinTool): BuiltinTool[] {
  return tools.includes(tool) ? [...tools] : [...tools, tool];
}
