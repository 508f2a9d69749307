import { ModelType, type ModelConfig } from "@antigravity-ts/sdk/wire";
import { DEFAULT_GEMINI_BASE_URL, createGeminiProvider } from "../providers/gemini.js";
import { createOpenAIProvider } from "../providers/openai.js";
import type { ModelProvider } from "./provider.js";
import type { ScriptFile } from "./script-format.js";
import { createScriptedProvider } from "./scripted.js";

/** Gemini model used when neither the config nor `GEMINI_MODEL` names one (upstream's default text model, §5.1). */
export const DEFAULT_GEMINI_MODEL = "gemini-3.7-flash";

/** The provider chosen for a session, and why (logged on stderr). */
export interface ProviderSelection {
  provider: ModelProvider;
  /** Model name passed in every `ModelRequest`. */
  model: string;
  reason: string;
}

/** Options of {@link selectProvider}. */
export interface SelectProviderOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Script of the scripted provider (`--script` / `ANTIGRAVITY_SCRIPT`); the demo when absent. */
  script?: ScriptFile;
  /** Injected into the HTTP providers (tests). */
  fetch?: typeof fetch;
}

/** The session's model configuration cannot be used; the message says what to set. */
export class ProviderConfigError extends Error {
  override readonly name = "ProviderConfigError";
}

/**
 * Chooses the model provider of a session from `HarnessConfig.models` (§5.1) and the environment:
 *
 * 1. the first text model with a `geminiApiEndpoint` carrying an `apiKey` → gemini;
 * 2. the first text model with `customEndpoint{backendType:"openai", configJson:{"baseUrl","apiKey","model"}}`
 *    → openai-compatible. Our choice: the protocol has no OpenAI endpoint and `CustomEndpoint` is the
 *    only plausible carrier (UNCONFIRMED how the real harness reads it);
 * 3. `ANTIGRAVITY_MODEL_PROVIDER` = scripted | gemini | openai (openai reads `OPENAI_BASE_URL`,
 *    `OPENAI_API_KEY`, `OPENAI_MODEL`; gemini reads `GEMINI_API_KEY`, `GEMINI_MODEL`);
 * 4. `GEMINI_API_KEY` in the environment → gemini (upstream sends `apiKey:""` and lets the harness
 *    read the key from its environment, §5.1);
 * 5. otherwise the offline scripted model.
 *
 * An explicit `ANTIGRAVITY_MODEL_PROVIDER` beats a key that only comes from the environment, so
 * `ANTIGRAVITY_MODEL_PROVIDER=scripted` forces the scripted model even when `GEMINI_API_KEY` is set.
 */
export function selectProvider(models: readonly ModelConfig[], options: SelectProviderOptions): ProviderSelection {
  const env = options.env;
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const model = models.find((m) => m.types.length === 0 || m.types.includes(ModelType.TEXT));
  const endpoint = model?.endpoint;
  const thinkingLevel = endpoint?.case === "geminiApiEndpoint" ? endpoint.value.options?.thinkingLevel : undefined;
  const gemini = (apiKey: string, baseUrl: string | undefined, name: string | undefined, reason: string): ProviderSelection => {
    const modelName = name || env["GEMINI_MODEL"] || DEFAULT_GEMINI_MODEL;
    return {
      provider: createGeminiProvider({
        apiKey,
        baseUrl: baseUrl || env["GEMINI_BASE_URL"] || DEFAULT_GEMINI_BASE_URL,
        model: modelName,
        ...(thinkingLevel ? { thinkingLevel } : {}),
        ...fetchOption,
      }),
      model: modelName,
      reason,
    };
  };
  if (endpoint?.case === "geminiApiEndpoint" && endpoint.value.apiKey) {
    return gemini(endpoint.value.apiKey, endpoint.value.baseUrl, model?.name, `gemini (${model?.name || "default model"}, key from HarnessConfig.models)`);
  }
  if (endpoint?.case === "customEndpoint" && endpoint.value.backendType?.toLowerCase() === "openai") {
    const config = parseOpenAIConfig(endpoint.value.configJson);
    const modelName = config.model ?? model?.name;
    if (!config.baseUrl || !modelName) throw new ProviderConfigError(`customEndpoint "openai" needs configJson {"baseUrl", "model"} (and "apiKey" if the server wants one)`);
    return openai(config.baseUrl, config.apiKey, modelName, "openai-compatible (customEndpoint)", fetchOption);
  }
  const forced = env["ANTIGRAVITY_MODEL_PROVIDER"]?.toLowerCase();
  const geminiFromEnv = (reason: string): ProviderSelection => {
    const key = env["GEMINI_API_KEY"];
    if (!key) throw new ProviderConfigError("ANTIGRAVITY_MODEL_PROVIDER=gemini needs GEMINI_API_KEY (or an apiKey in HarnessConfig.models)");
    const baseUrl = endpoint?.case === "geminiApiEndpoint" ? endpoint.value.baseUrl : undefined;
    return gemini(key, baseUrl, model?.name, reason);
  };
  switch (forced) {
    case undefined:
    case "":
      break;
    case "scripted":
      return scripted(options, model?.name, "scripted (ANTIGRAVITY_MODEL_PROVIDER)");
    case "gemini":
      return geminiFromEnv("gemini (ANTIGRAVITY_MODEL_PROVIDER)");
    case "openai": {
      const baseUrl = env["OPENAI_BASE_URL"];
      const modelName = env["OPENAI_MODEL"];
      if (!baseUrl || !modelName) throw new ProviderConfigError("ANTIGRAVITY_MODEL_PROVIDER=openai needs OPENAI_BASE_URL (e.g. http://localhost:11434/v1) and OPENAI_MODEL");
      return openai(baseUrl, env["OPENAI_API_KEY"], modelName, "openai-compatible (ANTIGRAVITY_MODEL_PROVIDER)", fetchOption);
    }
    default:
      throw new ProviderConfigError(`ANTIGRAVITY_MODEL_PROVIDER=${forced} is not one of scripted, gemini, openai`);
  }
  if (env["GEMINI_API_KEY"]) return geminiFromEnv("gemini (GEMINI_API_KEY from the environment)");
  return scripted(options, model?.name, "scripted (no model credentials configured)");
}

function scripted(options: SelectProviderOptions, name: string | undefined, reason: string): ProviderSelection {
  return { provider: createScriptedProvider(options.script === undefined ? {} : { script: options.script }), model: name || "scripted", reason };
}

function openai(baseUrl: string, apiKey: string | undefined, model: string, reason: string, fetchOption: { fetch?: typeof fetch }): ProviderSelection {
  return { provider: createOpenAIProvider({ baseUrl, model, ...(apiKey ? { apiKey } : {}), ...fetchOption }), model, reason };
}

function parseOpenAIConfig(json: string | undefined): { baseUrl?: string; apiKey?: string; model?: string } {
  if (json === undefined || json === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ProviderConfigError(`customEndpoint.configJson is not JSON: ${json.slice(0, 80)}`);
  }
  const config = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const pick = (key: string): string | undefined => (typeof config[key] === "string" && config[key] !== "" ? (config[key] as string) : undefined);
  const result: { baseUrl?: string; apiKey?: string; model?: string } = {};
  const baseUrl = pick("baseUrl");
  const apiKey = pick("apiKey");
  const model = pick("model");
  if (baseUrl !== undefined) result.baseUrl = baseUrl;
  if (apiKey !== undefined) result.apiKey = apiKey;
  if (model !== undefined) result.model = model;
  return result;
}
