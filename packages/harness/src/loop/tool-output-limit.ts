import type { ToolOutputTruncation } from "@antigravity-ts/sdk/wire";
import { estimateTextTokens } from "../model/usage.js";

// `HarnessConfig.tool_output_truncation` (localharness.proto: ToolOutputTruncation, oneof
// strategy {TruncateStrategy{max_tokens} | ErrorStrategy{max_tokens, error_message}}). Upstream's
// SDK sends the truncate strategy (local_connection.py @8249a379 `build_tool_output_truncation_proto`)
// and documents it (types.py @4bfe2531 `ToolOutputTruncationConfig`): a tool response over
// `max_tokens` estimated tokens keeps its beginning and loses its end, with a notice telling the
// model so; 0 turns truncation off. Tokens are estimated as everywhere in this harness
// (model/usage.ts: ceil(characters / 4)) over the JSON the model is given.

/** How a session limits what a tool call gives the model. */
export interface ToolOutputLimit {
  readonly maxTokens: number;
  /** `truncate`: keep the beginning; `error`: the call fails with `errorMessage`. */
  readonly strategy: "truncate" | "error";
  readonly errorMessage: string;
}

/** The session's limit, or undefined when there is none (absent, or `max_tokens` 0 or less). */
export function toolOutputLimitOf(config: ToolOutputTruncation | undefined): ToolOutputLimit | undefined {
  const strategy = config?.strategy;
  if (strategy?.case === "truncate") {
    const maxTokens = strategy.value.maxTokens ?? 0;
    return maxTokens > 0 ? { maxTokens, strategy: "truncate", errorMessage: "" } : undefined;
  }
  if (strategy?.case === "error") {
    const maxTokens = strategy.value.maxTokens ?? 0;
    return maxTokens > 0
      ? { maxTokens, strategy: "error", errorMessage: strategy.value.errorMessage ?? "" }
      : undefined;
  }
  return undefined;
}

/** Most string fields cut before the whole response is replaced by its beginning. */
const MAX_CUTS = 32;

/**
 * `response` as the model may see it under `limit`: unchanged when it fits; else, truncating, its
 * longest strings cut from the end (each with a notice) until it fits — and if strings alone cannot
 * make it fit, `{truncated_output: <the beginning of its JSON>, truncated: true}`; or, with the
 * error strategy, `{error}`.
 */
export function limitToolOutput(
  response: Record<string, unknown>,
  toolName: string,
  limit: ToolOutputLimit | undefined,
): Record<string, unknown> {
  if (limit === undefined) return response;
  const tokens = estimateTextTokens(JSON.stringify(response));
  if (tokens <= limit.maxTokens) return response;
  if (limit.strategy === "error")
    return {
      error:
        limit.errorMessage ||
        `the output of ${toolName} is about ${tokens} tokens, more than the session's limit of ${limit.maxTokens} (toolOutputTruncation)`,
    };
  const budget = limit.maxTokens * 4;
  const copy = structuredClone(response);
  for (let cut = 0; cut < MAX_CUTS; cut++) {
    const over = JSON.stringify(copy).length - budget;
    if (over <= 0) return copy;
    const longest = longestString(copy);
    if (longest === undefined) break;
    const { holder, key, value } = longest;
    // The longest prefix whose JSON (escapes counted) shrinks the response by `over`.
    const target = JSON.stringify(value).length - over;
    const cutTo = (keep: number) => value.slice(0, keep) + notice(value.length - keep, limit.maxTokens);
    let low = 0;
    let high = value.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (JSON.stringify(cutTo(middle)).length <= target) low = middle;
      else high = middle - 1;
    }
    const cut = cutTo(low);
    if (cut.length >= value.length) break;
    holder[key] = cut;
  }
  if (JSON.stringify(copy).length <= budget) return copy;
  return { truncated_output: JSON.stringify(response).slice(0, Math.max(0, budget - 48)), truncated: true };
}

type Holder = Record<string, unknown> | unknown[];

function notice(dropped: number, maxTokens: number): string {
  return `\n… [truncated: ${dropped} more characters; tool output is limited to about ${maxTokens} tokens]`;
}

function longestString(
  value: Holder,
): { holder: Record<string | number, unknown>; key: string | number; value: string } | undefined {
  let best: { holder: Record<string | number, unknown>; key: string | number; value: string } | undefined;
  const visit = (holder: Holder, depth: number): void => {
    if (depth > 64) return;
    for (const [key, item] of Object.entries(holder)) {
      const index = Array.isArray(holder) ? Number(key) : key;
      if (typeof item === "string") {
        if (best === undefined || item.length > best.value.length)
          best = { holder: holder as Record<string | number, unknown>, key: index, value: item };
      } else if (typeof item === "object" && item !== null) visit(item as Holder, depth + 1);
    }
  };
  visit(value, 0);
  return best;
}
