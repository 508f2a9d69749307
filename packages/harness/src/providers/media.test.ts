import { afterEach, describe, expect, it } from "vitest";
import type { ModelMedia } from "../model/media.js";
import { ModelError, type ModelMessage, type ModelRequest } from "../model/provider.js";
import { createGeminiProvider } from "./gemini.js";
import { createOpenAIProvider } from "./openai.js";
import { rejectionOf, summarizeTurn } from "./testing/collect.js";
import { startFakeGeminiServer, startFakeOpenAIServer, type FakeModelServer } from "./testing/index.js";

// Media of a prompt and of a tool response reach the model as real inline data (issue 10 item 6):
// Gemini `inlineData` (and `functionResponse.parts`), Chat Completions content parts.

const b64 = (text: string): string => Buffer.from(text).toString("base64");
const PNG: ModelMedia = { mimeType: "image/png", data: b64("\x89PNG fake image bytes"), description: "a chart" };
const PDF: ModelMedia = { mimeType: "application/pdf", data: b64("%PDF-1.7 fake") };
const WAV: ModelMedia = { mimeType: "audio/wav", data: b64("RIFF fake wave") };
const TXT: ModelMedia = { mimeType: "text/plain", data: b64("Meeting notes: ship on Friday.") };

const messages: ModelMessage[] = [
  { role: "user", text: "What is in these?", media: [PNG, PDF, WAV, TXT] },
  { role: "model", text: "", toolCalls: [{ id: "shot-1", name: "screenshot", args: {} }] },
  {
    role: "tool",
    results: [
      {
        id: "shot-1",
        name: "screenshot",
        response: { ok: true },
        media: [{ mimeType: "image/jpeg", data: b64("jpeg bytes") }],
      },
    ],
  },
];
const request: ModelRequest = { model: "", systemInstruction: "", messages, tools: [] };

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("media to the model", () => {
  it("sends Gemini inlineData: prompt media after the text, tool media in functionResponse.parts", async () => {
    const server = await startFakeGeminiServer([{ type: "turn", text: "seen" }]);
    servers.push(server);
    await summarizeTurn(createGeminiProvider({ apiKey: "k", baseUrl: server.baseUrl, model: "gemini-t" }), request);
    const contents = (server.requests[0]?.body as { contents: unknown[] }).contents;
    expect(contents[0]).toEqual({
      role: "user",
      parts: [
        { text: "What is in these?" },
        { text: "a chart" },
        { inlineData: { mimeType: "image/png", data: PNG.data } },
        { inlineData: { mimeType: "application/pdf", data: PDF.data } },
        { inlineData: { mimeType: "audio/wav", data: WAV.data } },
        { inlineData: { mimeType: "text/plain", data: TXT.data } },
      ],
    });
    expect(contents[2]).toEqual({
      role: "user",
      parts: [
        {
          functionResponse: {
            name: "screenshot",
            response: { ok: true },
            id: "shot-1",
            parts: [{ inlineData: { mimeType: "image/jpeg", data: b64("jpeg bytes") } }],
          },
        },
      ],
    });
    // the bytes arrive intact
    const inline = (contents[0] as { parts: { inlineData?: { data: string } }[] }).parts[2]?.inlineData?.data ?? "";
    expect(Buffer.from(inline, "base64").toString("utf8")).toBe("\x89PNG fake image bytes");
  });

  it("sends Chat Completions content parts: image_url data URLs, input_audio, file, text documents inline", async () => {
    const server = await startFakeOpenAIServer([{ type: "turn", text: "seen" }]);
    servers.push(server);
    await summarizeTurn(createOpenAIProvider({ baseUrl: server.baseUrl, model: "llava" }), request);
    const sent = (server.requests[0]?.body as { messages: unknown[] }).messages;
    expect(sent[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is in these?" },
        { type: "text", text: "a chart" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.data}` } },
        { type: "file", file: { filename: "document.pdf", file_data: `data:application/pdf;base64,${PDF.data}` } },
        { type: "input_audio", input_audio: { data: WAV.data, format: "wav" } },
        { type: "text", text: "[text/plain document]\nMeeting notes: ship on Friday." },
      ],
    });
    // a tool message is text only: the tool's media follow in a user message naming the call
    expect(sent.slice(2)).toEqual([
      { role: "tool", tool_call_id: "shot-1", content: '{"ok":true}' },
      {
        role: "user",
        content: [
          { type: "text", text: "Media returned by screenshot (call shot-1):" },
          { type: "image_url", image_url: { url: `data:image/jpeg;base64,${b64("jpeg bytes")}` } },
        ],
      },
    ]);
  });

  it("refuses video for Chat Completions with an error that says why, before sending anything", async () => {
    const server = await startFakeOpenAIServer([{ type: "turn", text: "never" }]);
    servers.push(server);
    const video: ModelRequest = {
      ...request,
      messages: [{ role: "user", text: "watch", media: [{ mimeType: "video/mp4", data: b64("mp4") }] }],
    };
    const error = await rejectionOf(
      summarizeTurn(createOpenAIProvider({ baseUrl: server.baseUrl, model: "m" }), video),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toMatch(/no video input.*video\/mp4/);
    expect(server.requests).toHaveLength(0);
  });
});
