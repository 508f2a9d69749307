import type { GeminiModelOptions, ModelConfig, RetryConfig } from "@antigravity-ts/sdk/wire";
import { DEFAULT_MODEL } from "@antigravity-ts/sdk";
import { ModelType, definedProperties } from "@antigravity-ts/sdk/internal";
import type { GeminiProviderOptions } from "./gemini.js";
import { DEFAULT_GEMINI_BASE_URL, lazyProvider } from "./lazy.js";
import type { OpenAIProviderOptions } from "./openai.js";
import { retryPolicyFrom, type ApiRetryPolicy } from "./retry.js";
import type { ModelProvider } from "../model/provider.js";
import type { ScriptFile } from "./script-format.js";
import { createScriptedProvider } from "./scripted.js";

/**
 * Gemini model used when neither the config nor `GEMINI_MODEL` names one: the SDK's `DEFAULT_MODEL`
 * (upstream's default text model, §5.1), one constant for the client and the harness.
 */
export const DEFAULT_GEMINI_MODEL: string = DEFAULT_MODEL;

/** The provider chosen for a session, and why (logged on stderr). */
export interface ProviderSelection {
  provider: ModelProvider;
  /** Model name passed in every `ModelRequest`. */
  model: string;
  reason: string;
  /** Parts of `HarnessConfig.models` the session does not honour; the caller warns once per session. */
  warnings: string[];
}

/** Options of {@link selectProvider}. */
export interface SelectProviderOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** `HarnessConfig.retry_config`: its `apiRetry` is honoured by the HTTP providers. */
  retryConfig?: RetryConfig | undefined;
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
 * Chooses the model provider of a session from `HarnessConfig.models` (§5.1, §19 `ModelConfig`)
 * and the environment. Only the first text model counts:
 *
 * 1. `geminiApiEndpoint` with an `apiKey` → gemini (`baseUrl`, `httpHeaders`, `options.thinkingLevel`
 *    and `options.serviceTier` honoured);
 * 2. `vertexEndpoint` with an `apiKey` → Vertex AI express mode; without one it needs Google Cloud
 *    credentials, which this harness does not support (an error that says so);
 * 3. `gemmaEndpoint{baseUrl}` → OpenAI Chat Completions at `baseUrl`, no key: what upstream's
 *    `LocalOpenAIAgentConfig` sends for Ollama, LM Studio, vLLM (protocol.md §19 `GemmaEndpoint`);
 * 4. `customEndpoint{backendType:"openai", configJson:{"baseUrl","apiKey","model"}}` → openai-compatible
 *    (our choice, UNCONFIRMED how the real harness reads `CustomEndpoint`);
 * 5. `ANTIGRAVITY_MODEL_PROVIDER` = scripted | gemini | openai (openai reads `OPENAI_BASE_URL`,
 *    `OPENAI_API_KEY`, `OPENAI_MODEL`; gemini reads `GEMINI_API_KEY`, `GEMINI_MODEL`);
 * 6. `GEMINI_API_KEY` in the environment → gemini (upstream sends `apiKey:""` and lets the harness
 *    read the key from its environment, §5.1);
 * 7. otherwise the offline scripted model.
 *
 * An explicit `ANTIGRAVITY_MODEL_PROVIDER` beats a key that only comes from the environment, so
 * `ANTIGRAVITY_MODEL_PROVIDER=scripted` forces the scripted model even when `GEMINI_API_KEY` is set.
 */
export function selectProvider(models: readonly ModelConfig[], options: SelectProviderOptions): ProviderSelection {
  const env = options.env;
  const http: HttpOptions = {
    retry: retryPolicyFrom(options.retryConfig),
    ...definedProperties({ fetch: options.fetch }),
  };
  const textModels = models.filter((m) => m.types.length === 0 || m.types.includes(ModelType.TEXT));
  const model = textModels[0];
  const warnings = [
    ...models
      .filter((m) => !textModels.includes(m))
      .map((m) => `models: ${modelLabel(m)} is not a text model; image models are not supported`),
    ...textModels.slice(1).map((m) => `models: only the first text model is used; ${modelLabel(m)} is ignored`),
  ];
  const endpoint = model?.endpoint;
  const geminiOptions =
    endpoint?.case === "geminiApiEndpoint" || endpoint?.case === "vertexEndpoint" ? endpoint.value.options : undefined;
  const headers =
    endpoint?.case === "geminiApiEndpoint" || endpoint?.case === "vertexEndpoint"
      ? checkedHeaders(endpoint.value.httpHeaders, endpoint.case)
      : {};
  const gemini = (
    apiKey: string,
    baseUrl: string | undefined,
    reason: string,
    api: "gemini" | "vertexExpress" = "gemini",
  ): ProviderSelection => {
    const modelName = model?.name || env["GEMINI_MODEL"] || DEFAULT_GEMINI_MODEL;
    const provider = lazyGemini({
      apiKey,
      baseUrl: baseUrl || (api === "gemini" ? env["GEMINI_BASE_URL"] || DEFAULT_GEMINI_BASE_URL : ""),
      model: modelName,
      api,
      headers,
      ...modelOptions(geminiOptions),
      ...http,
    });
    return { provider, model: modelName, reason, warnings };
  };
  const openai = (
    baseUrl: string,
    apiKey: string | undefined,
    modelName: string,
    reason: string,
  ): ProviderSelection => ({
    provider: lazyOpenAI({ baseUrl, model: modelName, ...(apiKey ? { apiKey } : {}), ...http }),
    model: modelName,
    reason,
    warnings,
  });

  switch (endpoint?.case) {
    case "geminiApiEndpoint":
      if (endpoint.value.apiKey)
        return gemini(
          endpoint.value.apiKey,
          endpoint.value.baseUrl,
          `gemini (${model?.name || "default model"}, key from HarnessConfig.models)`,
        );
      break;
    case "vertexEndpoint": {
      const { apiKey, project, location } = endpoint.value;
      if (!apiKey) {
        throw new ProviderConfigError(
          `vertexEndpoint without apiKey (project ${JSON.stringify(project ?? "")}, location ${JSON.stringify(location ?? "")}) needs Google Cloud credentials, which this harness does not support; give an apiKey (Vertex AI express mode) or use geminiApiEndpoint`,
        );
      }
      if (project || location)
        warnings.push("vertexEndpoint: project and location are ignored in Vertex AI express mode (apiKey)");
      return gemini(
        apiKey,
        endpoint.value.baseUrl,
        `vertex express (${model?.name || "default model"})`,
        "vertexExpress",
      );
    }
    case "gemmaEndpoint": {
      const baseUrl = endpoint.value.baseUrl ?? "";
      if (baseUrl === "" || !model?.name)
        throw new ProviderConfigError(
          `gemmaEndpoint needs baseUrl (e.g. http://localhost:11434/v1) and the ModelConfig name of the model the server serves; got baseUrl ${JSON.stringify(baseUrl)}, name ${JSON.stringify(model?.name ?? "")}`,
        );
      checkUrl(baseUrl, "gemmaEndpoint.baseUrl");
      return openai(baseUrl, undefined, model.name, `openai-compatible (gemmaEndpoint ${model.name})`);
    }
    case "customEndpoint": {
      if (endpoint.value.backendType?.toLowerCase() !== "openai") {
        warnings.push(
          `models: customEndpoint backendType ${JSON.stringify(endpoint.value.backendType ?? "")} is not supported (only "openai"); ignored`,
        );
        break;
      }
      const config = parseOpenAIConfig(endpoint.value.configJson);
      const modelName = config.model ?? model?.name;
      if (!config.baseUrl || !modelName)
        throw new ProviderConfigError(
          `customEndpoint "openai" needs configJson {"baseUrl", "model"} (and "apiKey" if the server wants one)`,
        );
      return openai(config.baseUrl, config.apiKey, modelName, "openai-compatible (customEndpoint)");
    }
    default:
      break;
  }
  const forced = env["ANTIGRAVITY_MODEL_PROVIDER"]?.toLowerCase();
  const geminiFromEnv = (reason: string): ProviderSelection => {
    const key = env["GEMINI_API_KEY"];
    if (!key)
      throw new ProviderConfigError(
        "ANTIGRAVITY_MODEL_PROVIDER=gemini needs GEMINI_API_KEY (or an apiKey in HarnessConfig.models)",
      );
    return gemini(key, endpoint?.case === "geminiApiEndpoint" ? endpoint.value.baseUrl : undefined, reason);
  };
  if ((forced === "scripted" || forced === "openai") && model !== undefined) {
    warnings.push(`models: ${modelLabel(model)} is not used: ANTIGRAVITY_MODEL_PROVIDER=${forced} chooses the model`);
  }
  switch (forced) {
    case undefined:
    case "":
      break;
    case "scripted":
      return scripted(options, model?.name, "scripted (ANTIGRAVITY_MODEL_PROVIDER)", warnings);
    case "gemini":
      return geminiFromEnv("gemini (ANTIGRAVITY_MODEL_PROVIDER)");
    case "openai": {
      const baseUrl = env["OPENAI_BASE_URL"];
      const modelName = env["OPENAI_MODEL"];
      if (!baseUrl || !modelName)
        throw new ProviderConfigError(
          "ANTIGRAVITY_MODEL_PROVIDER=openai needs OPENAI_BASE_URL (e.g. http://localhost:11434/v1) and OPENAI_MODEL",
        );
      return openai(baseUrl, env["OPENAI_API_KEY"], modelName, "openai-compatible (ANTIGRAVITY_MODEL_PROVIDER)");
    }
    default:
      throw new ProviderConfigError(`ANTIGRAVITY_MODEL_PROVIDER=${forced} is not one of scripted, gemini, openai`);
  }
  if (env["GEMINI_API_KEY"]) return geminiFromEnv("gemini (GEMINI_API_KEY from the environment)");
  if (model !== undefined)
    warnings.push(
      `models: ${modelLabel(model)} has no usable endpoint here (no apiKey, and GEMINI_API_KEY is not set); using the offline scripted model`,
    );
  return scripted(options, model?.name, "scripted (no model credentials configured)", warnings);
}

/** The HTTP providers load on the session's first model call (providers/lazy.ts). */
function lazyGemini(options: GeminiProviderOptions): ModelProvider {
  return lazyProvider("gemini", async () => (await import("./gemini.js")).createGeminiProvider(options));
}

function lazyOpenAI(options: OpenAIProviderOptions): ModelProvider {
  return lazyProvider("openai", async () => (await import("./openai.js")).createOpenAIProvider(options));
}

interface HttpOptions {
  retry: ApiRetryPolicy;
  fetch?: typeof fetch;
}

function scripted(
  options: SelectProviderOptions,
  name: string | undefined,
  reason: string,
  warnings: string[],
): ProviderSelection {
  return {
    provider: createScriptedProvider(definedProperties({ script: options.script })),
    model: name || "scripted",
    reason,
    warnings,
  };
}

function modelLabel(model: ModelConfig): string {
  return `${JSON.stringify(model.name ?? "")} (${model.endpoint.case ?? "no endpoint"})`;
}

/** `GeminiModelOptions`: thinking level and service tier, both passed to the Gemini API. */
function modelOptions(options: GeminiModelOptions | undefined): { thinkingLevel?: string; serviceTier?: string } {
  return {
    ...(options?.thinkingLevel ? { thinkingLevel: options.thinkingLevel } : {}),
    ...(options?.serviceTier ? { serviceTier: options.serviceTier } : {}),
  };
}

/** `httpHeaders` as fetch will send them; an unusable name or value is a config error, not a network one. */
function checkedHeaders(headers: Readonly<Record<string, string>>, where: string): Record<string, string> {
  try {
    new Headers(headers);
  } catch (error) {
    throw new ProviderConfigError(`${where}.httpHeaders: ${(error as Error).message}`);
  }
  return { ...headers };
}

function checkUrl(url: string, where: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProviderConfigError(`${where} is not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new ProviderConfigError(`${where} must be an http(s) URL, got ${JSON.stringify(url)}`);
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
  const pick = (key: string): string | undefined =>
    typeof config[key] === "string" && config[key] !== "" ? (config[key] as string) : undefined;
  const result: { baseUrl?: string; apiKey?: string; model?: string } = {};
  const baseUrl = pick("baseUrl");
  const apiKey = pick("apiKey");
  const model = pick("model");
  if (baseUrl !== undefined) result.baseUrl = baseUrl;
  if (apiKey !== undefined) result.apiKey = apiKey;
  if (model !== undefined) result.model = model;
  return result;
}
