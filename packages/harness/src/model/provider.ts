import type { ModelMedia } from "./media.js";

/**
 * The contract between the agent loop and a model backend. A provider turns the conversation so
 * far into a stream of events; the agent loop turns those events into `stepUpdate` frames.
 */

/** A tool the model may call: built-ins and client-side tools alike. */
export interface ToolDeclaration {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** A tool call the model made. */
export interface ModelToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** A tool outcome fed back to the model. */
export interface ModelToolResult {
  id: string;
  name: string;
  /** A JSON object; errors are `{ error: "..." }`. */
  response: Record<string, unknown>;
  /** Media the tool returned beside its JSON (`ToolResponse.supplementalMedia`), given to the model inline. */
  media?: ModelMedia[];
}

/** One entry of the model-facing transcript. */
export type ModelMessage =
  | {
      role: "user";
      text: string;
      media?: ModelMedia[];
      /**
       * Set where consecutive user messages were merged into this one for a provider (a prompt
       * after a halted turn that produced nothing, a trigger): where each starts in `text`, the
       * first at 0. A model reads `text`; the scripted model answers the newest part.
       */
      promptStarts?: number[];
    }
  | { role: "model"; text: string; thinking?: string; toolCalls: ModelToolCall[] }
  | { role: "tool"; results: ModelToolResult[] };

/** Everything a provider needs for one model call. */
export interface ModelRequest {
  /** Model name from `HarnessConfig.models`, if any. */
  model: string;
  systemInstruction: string;
  messages: readonly ModelMessage[];
  tools: readonly ToolDeclaration[];
}

/** Token counts of one model call. */
export interface ModelUsage {
  promptTokens: number;
  candidatesTokens: number;
  thoughtsTokens: number;
  cachedTokens: number;
  totalTokens: number;
}

/** What a provider streams back. Text and thinking arrive as deltas; tool calls whole. */
export type ModelEvent =
  | { type: "thinking"; delta: string }
  | { type: "text"; delta: string }
  | { type: "toolCall"; call: ModelToolCall }
  | { type: "usage"; usage: ModelUsage };

/**
 * A model backend. `generate` is called once per model call; the stream ends when the model's
 * answer is complete. It must stop promptly when `signal` aborts, and throw a
 * {@link ModelError} for HTTP or protocol failures.
 */
export interface ModelProvider {
  readonly name: string;
  generate(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

/** A failure of the model backend; `httpCode` feeds the ERROR step's `error.httpCode` (protocol §16). */
export class ModelError extends Error {
  override readonly name = "ModelError";
  constructor(
    message: string,
    readonly httpCode = 0,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
