/**
 * Builds the body of an OpenAI-compatible `POST /chat/completions` streaming call (OpenAI, vLLM,
 * llama.cpp server, Ollama) from a {@link ModelRequest}.
 */
import type { ModelMessage, ModelRequest } from "../model/provider.js";

/** A chat-completions tool call as sent back in an assistant message. */
export interface OpenAIToolCallJson {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A chat-completions message. */
export type OpenAIMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIToolCallJson[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** The JSON body of a streaming chat-completions call. */
export interface OpenAIRequestBody {
  model: string;
  messages: OpenAIMessage[];
  stream: true;
  stream_options: { include_usage: true };
  tools?: {
    type: "function";
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }[];
}

/** Maps the system instruction, transcript and tools onto a chat-completions body. */
export function buildOpenAIRequestBody(request: ModelRequest, model: string): OpenAIRequestBody {
  const messages: OpenAIMessage[] = [];
  if (request.systemInstruction !== "") messages.push({ role: "system", content: request.systemInstruction });
  for (const message of request.messages) messages.push(...toMessages(message));
  const body: OpenAIRequestBody = {
    model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  return body;
}

function toMessages(message: ModelMessage): OpenAIMessage[] {
  switch (message.role) {
    case "user":
      return [{ role: "user", content: message.text }];
    case "model": {
      // Reasoning is not sent back: chat templates drop or reject it in earlier turns.
      if (message.toolCalls.length === 0) return [{ role: "assistant", content: message.text }];
      return [
        {
          role: "assistant",
          content: message.text === "" ? null : message.text,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          })),
        },
      ];
    }
    case "tool":
      return message.results.map((result) => ({
        role: "tool",
        tool_call_id: result.id,
        content: JSON.stringify(result.response),
      }));
  }
}
