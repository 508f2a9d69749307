import type { ModelEvent, ModelProvider, ModelRequest } from "../model/provider.js";

// The HTTP providers (gemini, openai-compatible) and their SSE parser load on a session's first
// model call, not when the harness starts: most harness processes (tests, the scripted model, a
// prewarmed harness) never call one, and every module left out of start-up shortens it.

/** Endpoints the providers default to, here so that choosing a provider loads no provider code. */
export const DEFAULT_GEMINI_BASE_URL = "https://generativelanguage.googleapis.com";
/** The Vertex AI endpoint of express mode (API key, no project) used when no base URL is configured. */
export const DEFAULT_VERTEX_BASE_URL = "https://aiplatform.googleapis.com";

/**
 * A provider named `name` whose implementation `load` imports on the first `generate` call (once;
 * a failed import fails that call and is retried by the next).
 */
export function lazyProvider(name: string, load: () => Promise<ModelProvider>): ModelProvider {
  let loaded: Promise<ModelProvider> | undefined;
  return {
    name,
    async *generate(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent, void, undefined> {
      loaded ??= load().catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
      yield* (await loaded).generate(request, signal);
    },
  };
}
