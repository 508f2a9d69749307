import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startFakeGeminiServer,
  startFakeOpenAIServer,
  type FakeGeminiReply,
  type FakeModelServer,
} from "../providers/testing/index.js";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, harnessConfig, type Frame } from "../test-support/ws-client.js";

// Media parts of a prompt and supplementalMedia of a tool response, sent as upstream's client
// sends them (protobuf JSON: bytes as standard base64), reach the model as inline data — checked
// in the request bodies the fake model servers receive (issue 10 item 6).

const PNG = Buffer.from("\x89PNG\r\n\x1a\n fake image").toString("base64");
const JPEG = Buffer.from("\xff\xd8\xff fake screenshot").toString("base64");
const CASCADE_ID = "media-session-0123456789abcdef012345";
const SCREENSHOT = {
  name: "screenshot",
  description: "Takes a screenshot",
  parametersJsonSchema: '{"type":"object","properties":{}}',
};

/** `UserInput` with a text part and an image part, as upstream's `to_proto_input_content` builds it. */
const imagePrompt = (text: string): Frame => ({
  userInput: { parts: [{ text }, { media: { mimeType: "image/png", description: "the build chart", data: PNG } }] },
});

describe("media to the model, end to end", () => {
  const fixture = useHarnessFixture({ name: "media", args: (root) => ["--storage", path.join(root, "storage")] });
  const replies: FakeGeminiReply[] = [
    { type: "turn", text: "A chart." },
    { type: "turn", text: "Still a chart." },
    { type: "turn", text: "After the restart, still a chart." },
    { type: "turn", toolCalls: [{ name: "screenshot", args: {}, id: "shot-1" }] },
    { type: "turn", text: "The screenshot shows a login page." },
  ];
  let gemini: FakeModelServer;
  beforeAll(async () => {
    gemini = await startFakeGeminiServer(replies, { apiKey: "k" });
  });
  afterAll(async () => gemini.close());
  const config = (): Frame =>
    harnessConfig(fixture.workspace, {
      cascadeId: CASCADE_ID,
      tools: [SCREENSHOT],
      models: [
        {
          name: "gemini-test",
          types: ["MODEL_TYPE_TEXT"],
          geminiApiEndpoint: { baseUrl: gemini.baseUrl, apiKey: "k" },
        },
      ],
    });
  const contents = (index: number): Frame[] => (gemini.requests[index]?.body as { contents: Frame[] }).contents;
  const imagePart = { inlineData: { mimeType: "image/png", data: PNG } };

  it("gives a prompt's image to Gemini as inlineData, keeps it in later turns and across a restart", async () => {
    const client = await fixture.open();
    await client.init(config());
    client.send(imagePrompt("What does this chart show?"));
    const first = await client.turn();
    expect(first.at(-1)?.["trajectoryStateUpdate"]?.state).toBe("STATE_FULLY_IDLE");
    expect(finalSteps(first).at(-1)?.["text"]).toBe("A chart.");
    expect(contents(0)).toEqual([
      { role: "user", parts: [{ text: "What does this chart show?" }, { text: "the build chart" }, imagePart] },
    ]);
    // no text note instead of the bytes
    expect(JSON.stringify(contents(0))).not.toContain("attached");

    client.prompt("And now?");
    await client.turn();
    expect(contents(1)[0]).toEqual(contents(0)[0]);
    client.close();
    await client.closed;

    await fixture.restart();
    const resumed = await fixture.open();
    await resumed.init({ ...config(), sessionContinuationMode: "RESUME" });
    resumed.prompt("Once more?");
    await resumed.turn();
    expect(contents(2)[0]).toEqual(contents(0)[0]);
    resumed.close();
  });

  it("gives a client tool's supplementalMedia to Gemini in functionResponse.parts", async () => {
    const client = await fixture.open();
    await client.init({ ...config(), cascadeId: "" });
    client.prompt("Take a screenshot");
    const call = (await client.next((f) => f["toolCall"] !== undefined, "the toolCall"))["toolCall"] as Frame;
    client.send({
      toolResponse: {
        id: call["id"],
        responseJson: '{"saved":"shot.jpg"}',
        supplementalMedia: [{ mimeType: "image/jpeg", description: "login page", data: JPEG }],
      },
    });
    const turn = await client.turn();
    expect(finalSteps(turn).at(-1)?.["text"]).toBe("The screenshot shows a login page.");
    const last = contents(4).at(-1);
    expect(last).toEqual({
      role: "user",
      parts: [
        {
          functionResponse: {
            name: "screenshot",
            id: "shot-1",
            response: { saved: "shot.jpg" },
            parts: [{ inlineData: { mimeType: "image/jpeg", data: JPEG } }],
          },
        },
      ],
    });
    client.close();
  });

  it("refuses a prompt whose media cannot be sent, without calling the model", async () => {
    const client = await fixture.open();
    await client.init({ ...config(), cascadeId: "" });
    const before = gemini.requests.length;
    client.send({ userInput: { parts: [{ text: "look" }, { media: { mimeType: "png", data: PNG } }] } });
    const turn = await client.turn();
    expect(turn.at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      state: "STATE_FULLY_IDLE",
      error: expect.stringContaining('mimeType "png"'),
    });
    client.send({ userInput: { parts: [{ media: { mimeType: "image/png", data: "" } }] } });
    expect((await client.turn()).at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      error: expect.stringContaining("has no data"),
    });
    expect(gemini.requests.length).toBe(before);
    client.close();
  });

  it("gives an OpenAI-compatible server (gemmaEndpoint) the image as an image_url data URL", async () => {
    const openai = await startFakeOpenAIServer([{ type: "turn", text: "I see a chart." }]);
    try {
      const client = await fixture.open();
      await client.init(
        harnessConfig(fixture.workspace, {
          models: [{ name: "llava", types: ["MODEL_TYPE_TEXT"], gemmaEndpoint: { baseUrl: openai.baseUrl } }],
        }),
      );
      client.send(imagePrompt("What is this?"));
      expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("I see a chart.");
      const sent = (openai.requests[0]?.body as { messages: Frame[] }).messages.find((m) => m["role"] === "user");
      expect(sent?.["content"]).toEqual([
        { type: "text", text: "What is this?" },
        { type: "text", text: "the build chart" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ]);
      client.close();
    } finally {
      await openai.close();
    }
  });
});
