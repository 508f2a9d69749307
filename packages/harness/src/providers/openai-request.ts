/**
 * Builds the body of an OpenAI-compatible `POST /chat/completions` streaming call (OpenAI, vLLM,
 * llama.cpp server, Ollama) from a {@link ModelRequest}.
 */
import { baseMimeType, mediaKind, mediaText, type ModelMedia } from "../model/media.js";
import { ModelError, type ModelMessage, type ModelRequest, type ModelToolResult } from "../model/provider.js";

/** A chat-completions tool call as sent back in an assistant message. */
export interface OpenAIToolCallJson {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * A content part of a user message (Chat Completions API): text, an image as a data URL, audio
 * as base64 with its format, or a file (e.g. a PDF) as a data URL.
 */
export type OpenAIContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "input_audio"; input_audio: { data: string; format: string } }
  | { type: "file"; file: { filename: string; file_data: string } };

/** A chat-completions message. */
export type OpenAIMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | OpenAIContentPart[] }
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
      if (message.media === undefined || message.media.length === 0) return [{ role: "user", content: message.text }];
      return [
        {
          role: "user",
          content: [
            ...(message.text === "" ? [] : [{ type: "text" as const, text: message.text }]),
            ...message.media.flatMap(contentParts),
          ],
        },
      ];
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
    case "tool": {
      const messages: OpenAIMessage[] = message.results.map((result) => ({
        role: "tool",
        tool_call_id: result.id,
        content: JSON.stringify(result.response),
      }));
      // A tool message holds text only: media the tools returned follow in one user message.
      const withMedia = message.results.filter(
        (result): result is ModelToolResult & { media: ModelMedia[] } =>
          result.media !== undefined && result.media.length > 0,
      );
      if (withMedia.length === 0) return messages;
      const parts = withMedia.flatMap((result) => [
        { type: "text" as const, text: `Media returned by ${result.name} (call ${result.id}):` },
        ...result.media.flatMap(contentParts),
      ]);
      return [...messages, { role: "user", content: parts }];
    }
  }
}

/** Audio formats by MIME type; other audio is sent with its subtype as the format. */
const AUDIO_FORMATS: Record<string, string> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/vnd.wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
};

/**
 * A medium as Chat Completions content parts, after its description: images as `image_url` data
 * URLs, audio as `input_audio`, text documents as their text, other documents (PDF…) as `file`
 * data URLs. Video has no Chat Completions form: a clear error rather than a silent drop.
 */
function contentParts(media: ModelMedia): OpenAIContentPart[] {
  const described: OpenAIContentPart[] = media.description ? [{ type: "text", text: media.description }] : [];
  const type = baseMimeType(media.mimeType);
  const dataUrl = `data:${type};base64,${media.data}`;
  switch (mediaKind(type)) {
    case "image":
      return [...described, { type: "image_url", image_url: { url: dataUrl } }];
    case "audio":
      return [
        ...described,
        {
          type: "input_audio",
          input_audio: { data: media.data, format: AUDIO_FORMATS[type] ?? type.slice("audio/".length) },
        },
      ];
    case "text":
      return [...described, { type: "text", text: `[${type} document]\n${mediaText(media)}` }];
    case "document":
      return [
        ...described,
        {
          type: "file",
          file: {
            filename: `document.${type.slice(type.indexOf("/") + 1).replace(/[^A-Za-z0-9]+/g, "-")}`,
            file_data: dataUrl,
          },
        },
      ];
    case "video":
      throw new ModelError(
        `OpenAI-compatible server: Chat Completions has no video input, so the ${type} attachment cannot be sent; use a Gemini model for video`,
      );
  }
}
