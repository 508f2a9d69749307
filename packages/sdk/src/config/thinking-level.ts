import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { ModelConfigSchema } from "../wire/index.js";
import { ModelType } from "../wire/wire-enums.gen.js";
import { checkedThinkingLevel, type ThinkingLevel } from "./model-options.js";

// Part of what the agent loads at start() only when `models([...])` and a thinking level are both
// set (config/presets.ts `resolvedOptions`, a dynamic import); `buildHarnessConfig` itself sends
// explicit models as given.

type ModelInit = MessageInitShape<typeof ModelConfigSchema>;

/**
 * The explicit `models` with the agent's thinking level on each text model (a model without
 * `types` is a text model, as upstream's `ModelTarget` defaults), as upstream's `AgentConfig.eval`
 * applies one (`_with_thinking_level`, google/antigravity/connections/connection.py, Stars1233
 * @238766a3): set in the `options` of a Gemini API or Vertex AI endpoint. A text model whose
 * endpoint carries no `GeminiModelOptions` (gemmaEndpoint, customEndpoint, none) cannot take a
 * level: `Unsupported` naming it; one whose endpoint already sets another level: `InvalidArgument`,
 * as upstream refuses it. `shorthand`: a `model(name)` text model is sent too (it carries the
 * level itself); without it and without a text model here, the level would reach no model.
 */
export function withThinkingLevel(models: readonly ModelInit[], level: ThinkingLevel, shorthand: boolean): ModelInit[] {
  checkedThinkingLevel(level);
  let texts = 0;
  const out = models.map((model): ModelInit => {
    const types = model.types ?? [];
    if (types.length > 0 && !types.includes(ModelType.TEXT)) return model;
    texts++;
    const name = JSON.stringify(model.name ?? "");
    const endpoint = model.endpoint;
    if (endpoint?.case !== "geminiApiEndpoint" && endpoint?.case !== "vertexEndpoint") {
      throw new SdkError(
        ErrorCode.Unsupported,
        `thinkingLevel cannot be honoured by the text model ${name}: its endpoint (${endpoint?.case ?? "none"}) takes no GeminiModelOptions; give it a geminiApiEndpoint or vertexEndpoint, or leave thinkingLevel unset`,
        { details: { option: "thinkingLevel", model: model.name ?? "" } },
      );
    }
    const set = endpoint.value.options?.thinkingLevel;
    if (set !== undefined && set !== level)
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `the text model ${name} already sets thinkingLevel ${JSON.stringify(set)} and the agent asks for ${JSON.stringify(level)}: remove one of them (with eval(), pass eval({ thinkingLevel: null }) to keep the model's)`,
      );
    const options = { ...endpoint.value.options, thinkingLevel: level };
    return { ...model, endpoint: { ...endpoint, value: { ...endpoint.value, options } } } as ModelInit;
  });
  if (texts === 0 && !shorthand)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `thinkingLevel ${JSON.stringify(level)} reaches no model: models(...) holds no text model and no model(name) is set`,
    );
  return out;
}
