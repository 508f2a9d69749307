/**
 * Builds the Gemini API `streamGenerateContent` request body from a {@link ModelRequest}.
 * Wire format: https://ai.google.dev/api/generate-content (Content, Part, FunctionCall,
 * FunctionResponse, Tool, GenerationConfig.thinkingConfig).
 */
import type { ModelMedia } from "../model/media.js";
import type { ModelMessage, ModelRequest } from "../model/provider.js";
import { GENERATED_CALL_ID } from "./call-ids.js";

/**
 * The documented placeholder Gemini accepts instead of a real thought signature, for function
 * calls whose signature we no longer have (e.g. a resumed conversation). Gemini 3 rejects a
 * replayed function-call step without any signature with HTTP 400.
 */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

/** Inline bytes (`Blob`): base64 `data` of `mimeType`. */
export interface GeminiBlob {
  mimeType: string;
  data: string;
}

/** A Gemini `FunctionResponse`; `parts` carry media the tool returned (multimodal function responses). */
export interface GeminiFunctionResponse {
  name: string;
  response: Record<string, unknown>;
  id?: string;
  parts?: { inlineData: GeminiBlob }[];
}

/** A Gemini `Part` as we send it. */
export type GeminiPart =
  | { text: string }
  | { inlineData: GeminiBlob }
  | {
      functionCall: { name: string; args: Record<string, unknown>; id?: string };
      thoughtSignature?: string;
    }
  | { functionResponse: GeminiFunctionResponse };

/** A Gemini `Content`. */
export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

/** The JSON body of a `streamGenerateContent` call. */
export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: {
    functionDeclarations: { name: string; description: string; parametersJsonSchema: Record<string, unknown> }[];
  }[];
  generationConfig: { thinkingConfig: { includeThoughts: boolean; thinkingLevel?: string } };
  /** Inference tier: "standard" (default), "flex" or "priority" (Gemini API `service_tier`). */
  serviceTier?: string;
}

/** Options of {@link buildGeminiRequestBody}. */
export interface BuildGeminiRequestOptions {
  thinkingLevel?: string | undefined;
  serviceTier?: string | undefined;
  /** Thought signatures Gemini attached to earlier function calls, by call id. */
  signatureFor(callId: string): string | undefined;
}

/** Maps the transcript, system instruction and tools onto a Gemini request body. */
export function buildGeminiRequestBody(request: ModelRequest, options: BuildGeminiRequestOptions): GeminiRequestBody {
  const contents: GeminiContent[] = [];
  for (const message of request.messages) {
    const content = toContent(message, options);
    if (content !== undefined) contents.push(content);
  }
  const thinkingConfig: GeminiRequestBody["generationConfig"]["thinkingConfig"] = { includeThoughts: true };
  if (options.thinkingLevel) thinkingConfig.thinkingLevel = options.thinkingLevel;
  const body: GeminiRequestBody = { contents, generationConfig: { thinkingConfig } };
  if (options.serviceTier) body.serviceTier = options.serviceTier;
  if (request.systemInstruction !== "") {
    body.systemInstruction = { parts: [{ text: request.systemInstruction }] };
  }
  if (request.tools.length > 0) {
    // `parametersJsonSchema` takes the declaration's JSON Schema as is; the older `parameters`
    // field only accepts the OpenAPI subset and rejects keywords such as `$schema`.
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.parameters,
        })),
      },
    ];
  }
  return body;
}

function toContent(message: ModelMessage, options: BuildGeminiRequestOptions): GeminiContent | undefined {
  switch (message.role) {
    case "user": {
      // A prompt's media follow its text, each as inlineData after its description (if any).
      const parts: GeminiPart[] = message.text !== "" || message.media === undefined ? [{ text: message.text }] : [];
      for (const media of message.media ?? []) parts.push(...mediaParts(media));
      return { role: "user", parts };
    }
    case "model": {
      // Thought summaries are never sent back; only text and function calls (with signatures).
      const parts: GeminiPart[] = [];
      if (message.text !== "") parts.push({ text: message.text });
      message.toolCalls.forEach((call, index) => {
        const functionCall: { name: string; args: Record<string, unknown>; id?: string } = {
          name: call.name,
          args: call.args,
        };
        if (!GENERATED_CALL_ID.test(call.id)) functionCall.id = call.id;
        const part: GeminiPart = { functionCall };
        // In a parallel step only the first call carries a signature.
        const signature = options.signatureFor(call.id) ?? (index === 0 ? SKIP_THOUGHT_SIGNATURE : undefined);
        if (signature !== undefined) part.thoughtSignature = signature;
        parts.push(part);
      });
      return parts.length > 0 ? { role: "model", parts } : undefined;
    }
    case "tool": {
      const parts: GeminiPart[] = message.results.map((result) => {
        const functionResponse: GeminiFunctionResponse = { name: result.name, response: result.response };
        if (!GENERATED_CALL_ID.test(result.id)) functionResponse.id = result.id;
        if (result.media !== undefined && result.media.length > 0) {
          functionResponse.parts = result.media.map((media) => ({
            inlineData: { mimeType: media.mimeType, data: media.data },
          }));
        }
        return { functionResponse };
      });
      return parts.length > 0 ? { role: "user", parts } : undefined;
    }
  }
}

/** A medium as Gemini parts: its description as text (when it has one), then the bytes as `inlineData`. */
function mediaParts(media: ModelMedia): GeminiPart[] {
  const inline: GeminiPart = { inlineData: { mimeType: media.mimeType, data: media.data } };
  return media.description ? [{ text: media.description }, inline] : [inline];
}
