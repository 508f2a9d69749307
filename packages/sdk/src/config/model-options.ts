import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { ServiceTier } from "../step.js";
import type {
  GeminiModelOptionsSchema,
  ModelAPIRetryConfigSchema,
  RetryConfigSchema,
  VertexEndpointSchema,
} from "../wire/index.js";
import { definedProperties } from "../defined-properties.js";

/**
 * How much the model thinks before answering: upstream's `ThinkingLevel` enum (models.py,
 * lovicho/antigravity-sdk-python @3148fc0d; re-exported by types.py, Stars1233 @4bfe2531), whose
 * values travel as they are in `GeminiModelOptions.thinking_level` (a string in both wire eras,
 * localharness.proto field 1). `ThinkingLevel.High` and `"high"` are the same value.
 */
export const ThinkingLevel = {
  Minimal: "minimal",
  Low: "low",
  Medium: "medium",
  High: "high",
  ExtraHigh: "extra_high",
} as const;
export type ThinkingLevel = (typeof ThinkingLevel)[keyof typeof ThinkingLevel];

/** The values of {@link ThinkingLevel}, in upstream's order. */
export const THINKING_LEVELS: readonly ThinkingLevel[] = Object.values(ThinkingLevel);

/** Options of a Gemini or Vertex model (upstream `types.GeminiModelOptions`). */
export interface GeminiModelOptions {
  thinkingLevel?: ThinkingLevel;
  serviceTier?: ServiceTier;
}

/** Retries of transient model API errors, with exponential backoff (upstream `ModelAPIRetryConfig`). */
export interface ModelApiRetryOptions {
  maxRetries?: number;
  initialSleepDurationMs?: number;
  exponentialMultiplier?: number;
  jitterRange?: number;
}

/** Retries of malformed model output (upstream `ModelOutputRetryConfig`). */
export interface ModelOutputRetryOptions {
  maxRetries?: number;
}

/**
 * Retry behaviour of the harness's model calls (upstream `types.RetryConfig`,
 * `HarnessConfig.retry_config`). Unset parts keep the harness's own defaults.
 */
export interface RetryOptions {
  apiRetry?: ModelApiRetryOptions;
  modelOutputRetry?: ModelOutputRetryOptions;
}

/**
 * Vertex AI for the shorthand model (upstream `LocalAgentConfig(vertex=True, project, location)`):
 * either `project` and `location` (standard mode) or the agent's `apiKey` (express mode).
 */
export interface VertexOptions {
  project?: string;
  location?: string;
}

const MAX_UINT32 = 2 ** 32 - 1;

function invalid(message: string): never {
  throw new SdkError(ErrorCode.InvalidArgument, message);
}

function uint32(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > MAX_UINT32)
    invalid(`${name} must be an integer from 0 to ${MAX_UINT32}, got ${String(value)}`);
  return value;
}

function nonNegative(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    invalid(`${name} must be a finite number >= 0, got ${String(value)}`);
  return value;
}

/**
 * Upstream `build_retry_config_proto` (local_connection.py): only the parts that set something;
 * no `retry_config` at all when nothing is set. Limits as upstream's pydantic fields (uint32, >= 0).
 */
export function retryConfigOf(
  options: RetryOptions | undefined,
): MessageInitShape<typeof RetryConfigSchema> | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null) invalid(`retryConfig must be an object, got ${String(options)}`);
  const init: MessageInitShape<typeof RetryConfigSchema> = {};
  const api = options.apiRetry;
  if (api !== undefined) {
    const apiRetry: MessageInitShape<typeof ModelAPIRetryConfigSchema> = {};
    const maxRetries = uint32("retryConfig.apiRetry.maxRetries", api.maxRetries);
    const initial = uint32("retryConfig.apiRetry.initialSleepDurationMs", api.initialSleepDurationMs);
    const multiplier = nonNegative("retryConfig.apiRetry.exponentialMultiplier", api.exponentialMultiplier);
    const jitter = nonNegative("retryConfig.apiRetry.jitterRange", api.jitterRange);
    if (maxRetries !== undefined) apiRetry.maxRetries = maxRetries;
    if (initial !== undefined) apiRetry.initialSleepDurationMs = initial;
    if (multiplier !== undefined) apiRetry.exponentialMultiplier = multiplier;
    if (jitter !== undefined) apiRetry.jitterRange = jitter;
    if (Object.keys(apiRetry).length > 0) init.apiRetry = apiRetry;
  }
  const output = uint32("retryConfig.modelOutputRetry.maxRetries", options.modelOutputRetry?.maxRetries);
  if (output !== undefined) init.modelOutputRetry = { maxRetries: output };
  return init.apiRetry === undefined && init.modelOutputRetry === undefined ? undefined : init;
}

/**
 * Upstream `build_gemini_options_proto`: the thinking level's and the service tier's string
 * values; `undefined` when neither is set (upstream sends an empty `options` then, which means
 * the same).
 */
export function geminiOptionsOf(
  options: GeminiModelOptions | undefined,
): MessageInitShape<typeof GeminiModelOptionsSchema> | undefined {
  if (options === undefined) return undefined;
  const init: MessageInitShape<typeof GeminiModelOptionsSchema> = {};
  if (options.thinkingLevel !== undefined) init.thinkingLevel = checkedThinkingLevel(options.thinkingLevel);
  if (options.serviceTier !== undefined) {
    if (typeof options.serviceTier !== "string" || options.serviceTier.trim() === "")
      invalid(
        `modelOptions.serviceTier must be a tier name such as "priority", got ${JSON.stringify(options.serviceTier)}`,
      );
    init.serviceTier = options.serviceTier;
  }
  return Object.keys(init).length === 0 ? undefined : init;
}

/** `level` when it is a {@link ThinkingLevel}, else `InvalidArgument` listing them. */
export function checkedThinkingLevel(level: ThinkingLevel): ThinkingLevel {
  if (!THINKING_LEVELS.includes(level))
    invalid(`modelOptions.thinkingLevel must be one of ${THINKING_LEVELS.join(", ")}, got ${JSON.stringify(level)}`);
  return level;
}

/**
 * The shorthand `VertexEndpoint` with upstream's checks (`models.VertexEndpoint.validate_endpoint`):
 * express mode (`apiKey`) and standard mode (`project` + `location`) exclude each other, and one
 * of them is needed.
 */
export function vertexEndpointOf(
  vertex: VertexOptions,
  apiKey: string | undefined,
  options: MessageInitShape<typeof GeminiModelOptionsSchema> | undefined,
): MessageInitShape<typeof VertexEndpointSchema> {
  const project = vertex.project || undefined;
  const location = vertex.location || undefined;
  const key = apiKey || undefined;
  if ((project !== undefined || location !== undefined) && key !== undefined) {
    invalid("Vertex AI takes either apiKey (express mode) or project and location (standard mode), not both");
  }
  if (key === undefined && (project === undefined || location === undefined)) {
    invalid(
      "Vertex AI needs project and location (standard mode) or apiKey (express mode); in Node, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION fill project and location",
    );
  }
  return {
    ...definedProperties({ project, location, apiKey: key, options }),
  };
}
