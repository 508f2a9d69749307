import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { HookRunner } from "../hooks/hook-runner.js";
import { toPolicyConfig } from "../policies/policy-config.js";
import type { Policy } from "../policies/policy.js";
import type { ToolRunner } from "../tools/tool-runner.js";
import type { JsonSchema } from "../tools/tool.js";
import { isStandardSchema, jsonSchemaOf, type StandardSchemaV1 } from "../tools/standard-schema.js";
import type {
  HarnessConfigSchema,
  BudgetConfigSchema,
  CompactionConfigSchema,
  HarnessConfig,
  McpServerConfigSchema,
  ModelConfigSchema,
} from "../wire/index.js";
import {
  AgentBehavior,
  BudgetConfig_BudgetScope,
  HarnessConfig_SessionContinuationMode,
  ModelType,
} from "../wire/wire-enums.gen.js";
import { activeBuiltinTools, harnessSideTools, type CapabilitiesOptions } from "./builtin-tools.js";
import { createMessage } from "../wire/plain-message.js";
import { assertOptionTypes } from "./option-checks.js";
import { assertAppDataDir, normalizeWorkspacePath } from "./workspace-path.js";
import { systemInstructionsOf, type SystemInstructionsOption } from "./system-instructions.js";
import { customSubagentsConfig, validateSubagents, type SubagentOptions } from "./custom-subagents.js";
import {
  geminiOptionsOf,
  retryConfigOf,
  vertexEndpointOf,
  type GeminiModelOptions,
  type RetryOptions,
  type VertexOptions,
} from "./model-options.js";
import { errorText } from "../error-text.js";
import { rulesConfigOf, skillsConfigOf, type SkillsOptions } from "./skills-rules.js";
import { toolOutputTruncationOf, type ToolOutputTruncationOption } from "./tool-output-truncation.js";
import { definedProperties } from "../defined-properties.js";

/**
 * The text model used when an API key, model options or Vertex AI are given without a model name:
 * upstream's `DEFAULT_MODEL` since 0.1.16, `gemini-3.8-flash` (CHANGELOG.md, Stars1233 @1493021c,
 * "Default Model Update to Gemini 3.8 Flash"; skills/google-antigravity-sdk/references/
 * agent_configuration.md @2eb7feee). No models.py of 0.1.16+ is readable; 0.1.11–0.1.15 had
 * `gemini-3.7-flash`.
 */
export const DEFAULT_MODEL = "gemini-3.8-flash";

/** How to treat `conversationId` (protocol §5.1): resume it, resume or create, or create only. */
export type SessionContinuationMode = "resume" | "createOrResume" | "createOnly";

/** How autonomous the agent is (protocol §19 `AgentBehavior`). */
export type AgentBehaviorOption = "autonomous" | "interactive" | "minimal";

/**
 * What a budget counts (upstream `types.BudgetScope`, `BudgetConfig.scope`): `"lifetime"` (the
 * default) counts from the start of the session, resumes included; `"forwardLooking"` counts from
 * when this configuration applies (the session's start or its resume).
 */
export type BudgetScopeOption = "lifetime" | "forwardLooking";

/** Session limits (protocol §19 `BudgetConfig`); a turn that reaches one ends with its `stopReason`. */
export interface BudgetOptions {
  maxModelCalls?: number;
  maxToolCalls?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
  maxTotalTokens?: number;
  /** Default `"lifetime"`. */
  scope?: BudgetScopeOption;
}

/**
 * Compaction (upstream `types.CompactionConfig`, `HarnessConfig.compaction_config`, localharness.proto
 * @257f843a): `tokenThreshold` compacts once the context reaches that many tokens (without it,
 * `capabilities.compactionThreshold` is sent here, as upstream 0.1.19's `to_proto_compaction_config`
 * does); `checkpointIntervalTokens` compacts each time the context grew by that much;
 * `maxContextTokens` caps the context. A 0.1.14 harness knows one dial, field 1: it gets
 * `tokenThreshold` (or the interval) as its `checkpointIntervalTokens`, and `maxContextTokens` is
 * refused (`wireEra`, docs/upstream-differences.md "wire eras").
 */
export interface CompactionOptions {
  tokenThreshold?: number;
  checkpointIntervalTokens?: number;
  maxContextTokens?: number;
}

/** Everything of the agent's options that the harness configuration carries (protocol §5.1). */
export interface HarnessConfigOptions {
  /** Text model name; with `apiKey` only, {@link DEFAULT_MODEL}. Neither: the harness's default. */
  model?: string;
  /** Gemini API key, sent in `models[].geminiApiEndpoint.apiKey`. */
  apiKey?: string;
  /** Full model list; `model` (with `apiKey`/`modelOptions`/`vertex`), when set too, is added after it as upstream merges them. */
  models?: readonly MessageInitShape<typeof ModelConfigSchema>[];
  /**
   * Thinking level and service tier of the shorthand model (`endpoint.options`, upstream
   * `GeminiModelOptions`); the thinking level also reaches every text model of `models`.
   */
  modelOptions?: GeminiModelOptions;
  /**
   * The shorthand model on Vertex AI (`vertexEndpoint`) instead of the Gemini API: `true`, or the
   * project and location (upstream `LocalAgentConfig(vertex=True, project=…, location=…)`). The
   * core takes it only from here; `@antigravity-ts/node` also reads `GOOGLE_GENAI_USE_VERTEXAI`,
   * `GOOGLE_CLOUD_PROJECT` and `GOOGLE_CLOUD_LOCATION`.
   */
  vertex?: boolean | VertexOptions;
  /** Retry behaviour of model calls (`retry_config`); unset keeps the harness's defaults. */
  retryConfig?: RetryOptions;
  systemInstructions?: SystemInstructionsOption;
  /**
   * Directories the agent works in: paths or `file://` / `cns://` URIs (normalised). Relative
   * paths and `~` are resolved by `@antigravity-ts/node`; the core sends them as they are.
   */
  workspaces?: readonly string[];
  skillsPaths?: readonly string[];
  /** Skill directories (`skills_config`, 0.1.19 wire): see {@link SkillsOptions}. */
  skills?: SkillsOptions;
  /** Rules files read into the system instructions (`rules_config.filenames`, 0.1.19 wire). */
  rules?: readonly string[];
  /** Tool results over this many estimated tokens are cut (`tool_output_truncation`): see {@link ToolOutputTruncationOption}. */
  toolOutputTruncation?: ToolOutputTruncationOption;
  /** The harness's app data directory: an absolute path (`InvalidArgument` otherwise, as upstream). */
  appDataDir?: string;
  capabilities?: CapabilitiesOptions;
  /**
   * Schema of the structured answer, sent as `finishToolSchemaJson`: a JSON Schema (object or
   * JSON text) or a Standard Schema (zod, …), whose JSON Schema is its library's conversion or
   * `responseJsonSchema`; a Standard Schema also validates `ChatResponse.structuredOutput`.
   */
  responseSchema?: JsonSchema | string | StandardSchemaV1;
  /** The JSON Schema sent for a Standard Schema `responseSchema` whose library cannot convert by itself (valibot). */
  responseJsonSchema?: JsonSchema;
  /** Conversation id to use or resume: at least 32 characters of `[A-Za-z0-9-]` (upstream rule). */
  conversationId?: string;
  sessionContinuationMode?: SessionContinuationMode;
  /** Default `"autonomous"`. */
  agentBehavior?: AgentBehaviorOption;
  budget?: BudgetOptions;
  compaction?: CompactionOptions;
  mcpServers?: readonly MessageInitShape<typeof McpServerConfigSchema>[];
  /** Static subagents (upstream `subagents=[SubagentConfig…]`), sent as `customSubagents`. */
  customSubagents?: readonly SubagentOptions[];
}

/** The session's client tools, hooks and flattened policies, declared in the configuration. */
export interface HarnessConfigRunners {
  tools?: ToolRunner;
  hooks?: HookRunner;
  policies?: readonly Policy[];
  /** Names of `tools` that only subagents have: declared in their `CustomAgent`, not in `HarnessConfig.tools`. */
  subagentTools?: readonly string[];
}

const CONVERSATION_ID = /^[A-Za-z0-9-]{32,}$/;

const CONTINUATION: Record<SessionContinuationMode, HarnessConfig_SessionContinuationMode> = {
  resume: HarnessConfig_SessionContinuationMode.RESUME,
  createOrResume: HarnessConfig_SessionContinuationMode.CREATE_OR_RESUME,
  createOnly: HarnessConfig_SessionContinuationMode.CREATE_ONLY,
};

const BUDGET_SCOPE: Record<BudgetScopeOption, BudgetConfig_BudgetScope> = {
  lifetime: BudgetConfig_BudgetScope.LIFETIME,
  forwardLooking: BudgetConfig_BudgetScope.FORWARD_LOOKING,
};

const MAX_UINT32 = 2 ** 32 - 1;

const BEHAVIOR: Record<AgentBehaviorOption, AgentBehavior> = {
  autonomous: AgentBehavior.AUTONOMOUS,
  interactive: AgentBehavior.INTERACTIVE,
  minimal: AgentBehavior.MINIMAL,
};

/**
 * Assembles the `HarnessConfig` of a session (protocol §5.1) and validates the options on the
 * way: conflicting or malformed options throw `InvalidArgument` before anything connects.
 *
 * @example
 * const config = buildHarnessConfig({ model: "gemini-3.7-flash", systemInstructions: "Be terse." }, { tools });
 */
export function buildHarnessConfig(options: HarnessConfigOptions, runners: HarnessConfigRunners = {}): HarnessConfig {
  assertOptionTypes(options);
  const capabilities = options.capabilities ?? {};
  const active = activeBuiltinTools(capabilities);
  const threshold = capabilities.compactionThreshold ?? 0;
  if (!Number.isInteger(threshold) || threshold < 0)
    invalid(`capabilities.compactionThreshold must be an integer >= 0, got ${String(threshold)}`);
  if (options.conversationId !== undefined && !CONVERSATION_ID.test(options.conversationId)) {
    invalid(
      `conversationId must be at least 32 characters of letters, digits and "-" (e.g. crypto.randomUUID()), got ${JSON.stringify(options.conversationId)}`,
    );
  }
  if (options.sessionContinuationMode === "resume" && options.conversationId === undefined) {
    invalid('sessionContinuationMode "resume" needs the conversationId of the session to resume');
  }
  const policies = runners.policies ?? [];
  const budgetConfig = options.budget === undefined ? undefined : budgetOf(options.budget);
  const compactionConfig = compactionOf(options.compaction, capabilities.compactionThreshold);
  const systemInstructions = systemInstructionsOf(options.systemInstructions);
  const subagents = options.customSubagents ?? [];
  validateSubagents(subagents, capabilities.subagents?.allowedSubagents);
  const subagentOnly = new Set(runners.subagentTools ?? []);
  const retryConfig = retryConfigOf(options.retryConfig);
  const skillsConfig = skillsConfigOf(options.skills);
  const rulesConfig = rulesConfigOf(options.rules);
  const toolOutputTruncation = toolOutputTruncationOf(options.toolOutputTruncation);
  const init: MessageInitShape<typeof HarnessConfigSchema> = {
    cascadeId: options.conversationId ?? "",
    ...(options.sessionContinuationMode === undefined
      ? {}
      : { sessionContinuationMode: CONTINUATION[options.sessionContinuationMode] }),
    ...definedProperties({ systemInstructions }),
    tools: (runners.tools?.declarations() ?? []).filter((tool) => !subagentOnly.has(tool.name ?? "")),
    harnessSideTools: harnessSideTools(active, capabilities),
    // Upstream 0.1.19 sends compaction_threshold equal to compaction_config.token_threshold, which wins over
    // capabilities' threshold (local_connection_test.py @238766a3 test_compaction_config_explicit, _precedence_over_capabilities).
    compactionThreshold: compactionConfig?.tokenThreshold ?? threshold,
    workspaces: workspacesOf(options.workspaces).map((directory) => ({
      workspaceType: { case: "filesystemWorkspace" as const, value: { directory } },
    })),
    skillsPaths: [...(options.skillsPaths ?? [])],
    finishToolSchemaJson: responseSchemaOf(options.responseSchema, options.responseJsonSchema),
    ...(options.appDataDir === undefined ? {} : { appDataDir: appDataDirOf(options.appDataDir) }),
    mcpServers: [...(options.mcpServers ?? [])],
    models: modelsOf(options),
    enabledHooks: runners.hooks?.enabledHooks() ?? [],
    ...(policies.length === 0 ? {} : { policyConfig: toPolicyConfig(policies) }),
    agentBehavior: BEHAVIOR[options.agentBehavior ?? "autonomous"],
    ...definedProperties({
      budgetConfig,
      compactionConfig,
      retryConfig,
      skillsConfig,
      rulesConfig,
      toolOutputTruncation,
    }),
    customSubagents: customSubagentsConfig(subagents, runners.tools),
  };
  return createMessage<HarnessConfig>("antigravity.localharness.HarnessConfig", init);
}

/** The workspaces, each normalised (URIs to paths, upstream `normalize_workspace_paths`). */
function workspacesOf(workspaces: readonly string[] | undefined): string[] {
  if (workspaces === undefined) return [];
  if (!Array.isArray(workspaces)) invalid(`workspaces must be an array of directory paths, got ${typeof workspaces}`);
  return workspaces.map((workspace: string) => normalizeWorkspacePath(workspace));
}

function appDataDirOf(appDataDir: string): string {
  assertAppDataDir(appDataDir);
  return appDataDir;
}

function invalid(message: string): never {
  throw new SdkError(ErrorCode.InvalidArgument, message);
}

function responseSchemaOf(
  schema: JsonSchema | string | StandardSchemaV1 | undefined,
  jsonSchema: JsonSchema | undefined,
): string {
  if (schema === undefined) return "";
  if (isStandardSchema(schema)) return JSON.stringify(jsonSchemaOf(schema, "responseSchema", jsonSchema));
  // Runtime check for JavaScript callers (issue 10 item 13): `responseSchema(42)` is no schema.
  if (typeof schema !== "string" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    invalid(
      `responseSchema must be a JSON Schema object (e.g. { type: "object", properties: {...} }) or its JSON text, got ${schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema}`,
    );
  }
  if (typeof schema !== "string") return JSON.stringify(schema);
  let parsed: unknown;
  try {
    parsed = JSON.parse(schema);
  } catch (cause) {
    throw new SdkError(ErrorCode.InvalidArgument, `responseSchema is not valid JSON: ${errorText(cause)}`, { cause });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    invalid("responseSchema must be a JSON Schema object");
  return schema;
}

/**
 * The model list (upstream `LocalAgentConfig._merge_models_list`, explicit before shorthand):
 * `models` as given, followed by the shorthand text model when `model` is set too
 * (local_connection_test.py `test_merge_models_explicit_and_shorthand`); else upstream's
 * shorthand alone (`_build_shorthand_endpoint`): one text model on the Gemini API or, with
 * `vertex`, on Vertex AI, carrying `modelOptions`; explicit models as given (the agent puts its
 * thinking level on them first: config/thinking-level.ts). Upstream's default text and image
 * models are not added (docs/upstream-differences.md).
 */
function modelsOf(options: HarnessConfigOptions): MessageInitShape<typeof ModelConfigSchema>[] {
  if (options.models !== undefined)
    return options.model === undefined ? [...options.models] : [...options.models, ...shorthandModels(options)];
  return shorthandModels(options);
}

function shorthandModels(options: HarnessConfigOptions): MessageInitShape<typeof ModelConfigSchema>[] {
  const vertex =
    options.vertex === undefined || options.vertex === false
      ? undefined
      : options.vertex === true
        ? {}
        : options.vertex;
  const modelOptions = geminiOptionsOf(options.modelOptions);
  if (options.model === undefined && options.apiKey === undefined && vertex === undefined && modelOptions === undefined)
    return [];
  const name = options.model ?? DEFAULT_MODEL;
  if (vertex !== undefined)
    return [
      {
        name,
        types: [ModelType.TEXT],
        endpoint: { case: "vertexEndpoint", value: vertexEndpointOf(vertex, options.apiKey, modelOptions) },
      },
    ];
  return [
    {
      name,
      types: [ModelType.TEXT],
      endpoint: {
        case: "geminiApiEndpoint",
        value: { apiKey: options.apiKey ?? "", ...definedProperties({ options: modelOptions }) },
      },
    },
  ];
}

/**
 * Upstream `build_budget_config_proto`: no config without a limit (a scope alone says nothing);
 * `scope` travels as the enum.
 */
function budgetOf(budget: BudgetOptions): MessageInitShape<typeof BudgetConfigSchema> | undefined {
  if (budget.scope !== undefined && !Object.hasOwn(BUDGET_SCOPE, budget.scope)) {
    invalid(`budget.scope must be "lifetime" or "forwardLooking", got ${JSON.stringify(budget.scope)}`);
  }
  const limits = [
    budget.maxModelCalls,
    budget.maxToolCalls,
    budget.maxInputTokens,
    budget.maxOutputTokens,
    budget.maxTotalTokens,
  ];
  if (limits.every((limit) => limit === undefined)) return undefined;
  const big = (n: number | undefined): bigint | undefined => (n === undefined ? undefined : BigInt(Math.trunc(n)));
  const init: MessageInitShape<typeof BudgetConfigSchema> = {};
  if (budget.maxModelCalls !== undefined) init.maxModelCalls = budget.maxModelCalls;
  if (budget.maxToolCalls !== undefined) init.maxToolCalls = budget.maxToolCalls;
  const input = big(budget.maxInputTokens);
  const output = big(budget.maxOutputTokens);
  const total = big(budget.maxTotalTokens);
  if (input !== undefined) init.maxInputTokens = input;
  if (output !== undefined) init.maxOutputTokens = output;
  if (total !== undefined) init.maxTotalTokens = total;
  if (budget.scope !== undefined) init.scope = BUDGET_SCOPE[budget.scope];
  return init;
}

/** Upstream `to_proto_compaction_config` (local_connection.py @8249a379): `compaction_config` whenever a compaction dial is set. */
function compactionOf(
  compaction: CompactionOptions | undefined,
  threshold: number | undefined,
): MessageInitShape<typeof CompactionConfigSchema> | undefined {
  const dials = {
    tokenThreshold:
      compaction?.tokenThreshold ?? (compaction?.checkpointIntervalTokens === undefined ? threshold : undefined),
    checkpointIntervalTokens: compaction?.checkpointIntervalTokens,
    maxContextTokens: compaction?.maxContextTokens,
  };
  for (const [name, value] of Object.entries(dials)) {
    if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > MAX_UINT32))
      invalid(`compaction.${name} must be an integer from 0 to ${MAX_UINT32}, got ${String(value)}`);
  }
  const init = definedProperties(dials);
  return Object.keys(init).length === 0 ? undefined : init;
}
