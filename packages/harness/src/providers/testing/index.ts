/**
 * Fake model servers for tests: real HTTP servers on 127.0.0.1 that speak the Gemini API and
 * the OpenAI chat-completions streaming format, replay scripted answers and record requests.
 */
export {
  type FakeModelServer,
  type FakeScript,
  type RecordedRequest,
  type ResponseOutcome,
} from "./fake-http-server.js";
export {
  fakeGeminiSignature,
  geminiErrorBody,
  geminiTurnChunks,
  startFakeGeminiServer,
  type FakeGeminiReply,
  type FakeGeminiServerOptions,
  type FakeGeminiToolCall,
  type FakeGeminiUsage,
} from "./fake-gemini-server.js";
export {
  openAIErrorBody,
  openAITurnChunks,
  startFakeOpenAIServer,
  type FakeOpenAIReply,
  type FakeOpenAIServerOptions,
  type FakeOpenAIToolCall,
  type FakeOpenAIUsage,
} from "./fake-openai-server.js";
export { collectEvents, rejectionOf, summarizeEvents, type EventSummary } from "./collect.js";
