import { ModelConfigSchema, ModelType, create, type ModelConfig } from "@antigravity-ts/sdk/wire";
import { DEFAULT_MODEL } from "@antigravity-ts/sdk";
import { describe, expect, it } from "vitest";
import { ProviderConfigError, selectProvider } from "./select-provider.js";

const gemini = (apiKey: string, name = "gemini-x"): ModelConfig =>
  create(ModelConfigSchema, {
    name,
    types: [ModelType.TEXT],
    endpoint: { case: "geminiApiEndpoint", value: { apiKey } },
  });
const openai = (configJson: string): ModelConfig =>
  create(ModelConfigSchema, {
    name: "local",
    endpoint: { case: "customEndpoint", value: { backendType: "openai", configJson } },
  });
const image = create(ModelConfigSchema, {
  name: "img",
  types: [ModelType.IMAGE],
  endpoint: { case: "geminiApiEndpoint", value: { apiKey: "img-key" } },
});

describe("selectProvider", () => {
  it("uses the gemini endpoint of the first text model when it carries a key", () => {
    const selection = selectProvider([image, gemini("k")], { env: { ANTIGRAVITY_MODEL_PROVIDER: "scripted" } });
    expect(selection.provider.name).toBe("gemini");
    expect(selection.model).toBe("gemini-x");
  });

  it("uses customEndpoint openai with configJson", () => {
    const selection = selectProvider(
      [openai(JSON.stringify({ baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3" }))],
      { env: {} },
    );
    expect(selection.provider.name).toBe("openai");
    expect(selection.model).toBe("qwen3");
    expect(() => selectProvider([openai("{}")], { env: {} })).toThrow(ProviderConfigError);
    expect(() => selectProvider([openai("nope")], { env: {} })).toThrow(/not JSON/);
  });

  it("lets ANTIGRAVITY_MODEL_PROVIDER beat a key that only comes from the environment", () => {
    expect(
      selectProvider([gemini("")], { env: { GEMINI_API_KEY: "env", ANTIGRAVITY_MODEL_PROVIDER: "scripted" } }).provider
        .name,
    ).toBe("scripted");
    expect(selectProvider([gemini("")], { env: { GEMINI_API_KEY: "env" } }).provider.name).toBe("gemini");
    expect(
      selectProvider([], {
        env: { ANTIGRAVITY_MODEL_PROVIDER: "openai", OPENAI_BASE_URL: "http://x/v1", OPENAI_MODEL: "m" },
      }).provider.name,
    ).toBe("openai");
    expect(() => selectProvider([], { env: { ANTIGRAVITY_MODEL_PROVIDER: "openai" } })).toThrow(/OPENAI_BASE_URL/);
    expect(() => selectProvider([], { env: { ANTIGRAVITY_MODEL_PROVIDER: "gemini" } })).toThrow(/GEMINI_API_KEY/);
    expect(() => selectProvider([], { env: { ANTIGRAVITY_MODEL_PROVIDER: "claude" } })).toThrow(
      /not one of scripted, gemini, openai/,
    );
  });

  it("falls back to the scripted model without credentials", () => {
    const selection = selectProvider([gemini("")], { env: {} });
    expect(selection.provider.name).toBe("scripted");
    expect(selection.reason).toContain("no model credentials");
  });

  it("asks for the SDK's default model when neither the config nor GEMINI_MODEL names one", () => {
    // One default for client and harness: an agent given only an API key sends DEFAULT_MODEL, a harness given none uses it too.
    expect(DEFAULT_MODEL).toBe("gemini-3.8-flash");
    expect(selectProvider([], { env: { GEMINI_API_KEY: "env" } }).model).toBe(DEFAULT_MODEL);
    expect(selectProvider([gemini("k", "")], { env: {} }).model).toBe(DEFAULT_MODEL);
    expect(selectProvider([gemini("k", "")], { env: { GEMINI_MODEL: "gemini-y" } }).model).toBe("gemini-y");
  });
});
