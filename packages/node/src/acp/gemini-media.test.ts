import { Agent, ErrorCode } from "@antigravity-ts/sdk";
import {
  GEMINI_ROUTER,
  geminiScratch,
  geminiSessionText,
  geminiStream,
  geminiText,
  geminiUsage,
} from "@antigravity-ts/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { acpAgent } from "./index.js";

// A media prompt to Gemini CLI 0.61 `--acp` (offline): it advertises promptCapabilities
// { image: true, audio: true, embeddedContext: true }, so an image part goes as an ACP
// ImageContent block { type: "image", mimeType, data } and reaches its model as inlineData
// (read back from its session file); a type the agent does not take is refused before sending.

const removers: (() => void)[] = [];
afterEach(() => {
  for (const remove of removers.splice(0)) remove();
});

/** A 1×1 PNG. */
const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

describe("media prompts to Gemini CLI --acp, offline", () => {
  it("an image part reaches the model as inlineData; a video part is refused up front", {
    timeout: 180_000,
  }, async () => {
    // Non-strict: Gemini CLI 0.61 asks its router more than once for a prompt with media, so the
    // canned answers are taken by method (router answers for generateContent, the reply for the stream).
    const g = geminiScratch([
      GEMINI_ROUTER,
      GEMINI_ROUTER,
      geminiStream({ ...geminiText("A single pixel.", { finishReason: "STOP" }), ...geminiUsage(260, 4) }),
    ]);
    removers.push(g.remove);
    g.options.args = g.options.args.map((arg) => (arg === "--fake-responses" ? "--fake-responses-non-strict" : arg));
    const started = await Agent.builder().connection(acpAgent(g.options)).allowAll().build().start();
    try {
      await expect(
        started.chatToCompletion([{ text: "what is this?" }, { media: { mimeType: "video/mp4", data: PNG } }]),
      ).rejects.toMatchObject({ code: ErrorCode.Unsupported });
      const response = await started.chatToCompletion([
        { text: "what is this?" },
        { media: { mimeType: "image/png", data: PNG } },
      ]);
      expect(response.text).toBe("A single pixel.");
      const base64 = Buffer.from(PNG).toString("base64");
      expect(geminiSessionText(g)).toContain(`"inlineData":{"mimeType":"image/png","data":"${base64}"}`);
    } finally {
      await started.stop();
    }
  });
});
