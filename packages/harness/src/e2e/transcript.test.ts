import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeGeminiServer, startFakeOpenAIServer, type FakeModelServer } from "../providers/testing/index.js";
import { useHarnessFixture } from "../test-support/fixture.js";
import { WAIT_MS } from "@antigravity-ts/test-kit";
import { finalSteps, harnessConfig, steps, type Frame } from "../test-support/ws-client.js";

// Seed 002's transcript, seen from outside: what the next model request carries after a halt
// mid-text, a halt mid-tool-call, a halt before any output and an error exit (through the fake
// Gemini and OpenAI servers, which record requests); compaction summaries across a restart; a
// corrupt session file on resume.

const ADD_TOOL = {
  name: "add",
  description: "Add",
  parametersJsonSchema: JSON.stringify({
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
  }),
};
const SCRIPT = { turns: [{ match: "ping", calls: [{ text: "pong to {{prompt}}" }] }] };

/** Upstream's `ModelConfig` for a Gemini API endpoint (§5.1), pointed at a fake. */
const gemini = (server: FakeModelServer): Frame => ({
  models: [
    {
      name: "gemini-fake",
      types: ["MODEL_TYPE_TEXT"],
      geminiApiEndpoint: { baseUrl: server.baseUrl, apiKey: "fake-key" },
    },
  ],
});
/** Upstream's `LocalOpenAIAgentConfig` (`gemmaEndpoint`), pointed at a fake OpenAI-compatible server. */
const openai = (server: FakeModelServer): Frame => ({
  models: [{ name: "local-model", types: ["MODEL_TYPE_TEXT"], gemmaEndpoint: { baseUrl: server.baseUrl } }],
});
const geminiText = (text: string): Frame => ({
  candidates: [{ content: { parts: [{ text }], role: "model" }, index: 0 }],
  usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
});
/** The chat messages of a recorded OpenAI request, without the system message. */
const chat = (server: FakeModelServer, index: number): Frame[] =>
  ((server.requests[index]?.body as Frame)["messages"] as Frame[]).filter((m) => m["role"] !== "system");

async function requestsReach(server: FakeModelServer, count: number): Promise<void> {
  for (const deadline = Date.now() + WAIT_MS; server.requests.length < count; await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`the fake model got ${server.requests.length} requests, not ${count}`);
  }
}

describe("the model transcript (seed 002)", () => {
  const fixture = useHarnessFixture({
    name: "transcript",
    script: SCRIPT,
    args: (root) => ["--storage", path.join(root, "storage")],
  });
  const servers: FakeModelServer[] = [];
  afterAll(() => Promise.all(servers.map((server) => server.close())));
  const serve = <T extends FakeModelServer>(server: T): T => (servers.push(server), server);

  it("a halt mid-text keeps the partial answer: the next Gemini request carries it, and its usage was reported", async () => {
    const server = serve(
      await startFakeGeminiServer([
        { type: "chunks", chunks: [geminiText("Partial "), geminiText("answer "), geminiText("so far")], hold: true },
        { type: "turn", text: "Second answer." },
      ]),
    );
    const client = await fixture.connect(gemini(server));
    client.prompt("first question");
    // The harness shows a delta once the next one arrived: "Partial answer " on screen means all three are in.
    await client.next((f) => f["stepUpdate"]?.text === "Partial answer ", "the first two chunks on screen");
    client.send({ haltRequest: true });
    const halted = await client.turn();
    expect(halted.at(-1)?.["trajectoryStateUpdate"]).toEqual({
      trajectoryId: expect.any(String),
      state: "STATE_FULLY_IDLE",
    });
    expect(steps(halted).at(-1)).toMatchObject({
      state: "STATE_ERROR",
      errorMessage: "cancelled by haltRequest",
      text: "Partial answer so far",
    });
    expect(await server.responseClosed(0)).toEqual({ completed: false });
    // Issue 8 item 9: Gemini reports usage at the end of the stream; the halted call counts its estimate.
    const usage = halted.filter((f) => f["usageUpdate"] !== undefined).at(-1)?.["usageUpdate"].total as Frame;
    expect(usage).toMatchObject({ candidatesTokenCount: String(Math.ceil("Partial answer so far".length / 4)) });
    expect(Number(usage["promptTokenCount"])).toBeGreaterThan(0);

    client.prompt("next question");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("Second answer.");
    expect((server.requests[1]?.body as Frame)["contents"]).toEqual([
      { role: "user", parts: [{ text: "first question" }] },
      { role: "model", parts: [{ text: "Partial answer so far" }] },
      { role: "user", parts: [{ text: "next question" }] },
    ]);
    client.close();
  });

  it("a halt mid-tool-call gives every call without a result a (cancelled) result, sent with the next request", async () => {
    const server = serve(
      await startFakeOpenAIServer([
        {
          type: "turn",
          text: "Adding.",
          toolCalls: [
            { id: "call_a", name: "add", args: { a: 1, b: 2 } },
            { id: "call_b", name: "add", args: { a: 3, b: 4 } },
          ],
        },
        { type: "turn", text: "One of two." },
      ]),
    );
    const client = await fixture.connect({ tools: [ADD_TOOL], ...openai(server) });
    client.prompt("add twice");
    const first = (await client.next((f) => f["toolCall"] !== undefined, "the first toolCall"))["toolCall"] as Frame;
    client.send({ toolResponse: { id: first["id"], responseJson: '{"sum":3}' } });
    await client.next((f) => f["toolCall"]?.id === "call_b", "the second toolCall");
    client.send({ haltRequest: true });
    expect((await client.turn()).at(-1)?.["trajectoryStateUpdate"]?.state).toBe("STATE_FULLY_IDLE");

    client.prompt("what happened?");
    await client.turn();
    expect(chat(server, 1)).toEqual([
      { role: "user", content: "add twice" },
      {
        role: "assistant",
        content: "Adding.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } },
          { id: "call_b", type: "function", function: { name: "add", arguments: '{"a":3,"b":4}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: '{"sum":3}' },
      { role: "tool", tool_call_id: "call_b", content: '{"error":"(cancelled)"}' },
      { role: "user", content: "what happened?" },
    ]);
    client.close();
  });

  it("a halt before any output keeps the prompt; the next one is merged with it (no two user messages in a row)", async () => {
    const server = serve(
      await startFakeOpenAIServer([
        { type: "chunks", chunks: [], hold: true },
        { type: "turn", text: "Both noted." },
      ]),
    );
    const client = await fixture.connect(openai(server));
    client.prompt("first thought");
    await requestsReach(server, 1);
    client.send({ haltRequest: true });
    await client.turn();
    client.prompt("second thought");
    await client.turn();
    expect(chat(server, 1)).toEqual([{ role: "user", content: "first thought\n\nsecond thought" }]);
    client.close();
  });

  it("an error exit drops the unanswered prompt, so the next request does not start with two user messages", async () => {
    const server = serve(
      await startFakeOpenAIServer([
        { type: "error", status: 400, message: "context too long" },
        { type: "turn", text: "Fine now." },
      ]),
    );
    const client = await fixture.connect(openai(server));
    client.prompt("doomed");
    expect((await client.turn()).at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      state: "STATE_FULLY_IDLE",
      error: expect.stringContaining("context too long"),
    });
    client.prompt("try again");
    await client.turn();
    expect(chat(server, 1)).toEqual([{ role: "user", content: "try again" }]);
    client.close();
  });

  it("compaction keeps the first prompt and the 3 newest summaries, across a restart and resume", async () => {
    const server = serve(
      await startFakeOpenAIServer((_request, index) => ({ type: "turn", text: `answer ${index} ${"y".repeat(200)}` })),
    );
    const cascadeId = "compaction-fifo-0123456789abcdef01234567";
    const config = { cascadeId, compactionThreshold: 100, ...openai(server) };
    const first = await fixture.connect(config);
    for (let turn = 1; turn <= 5; turn++) {
      first.prompt(turn === 1 ? `the original task ${"x".repeat(200)}` : `follow-up ${turn}`);
      await first.turn();
    }
    first.close();
    await first.closed;
    const stored = JSON.parse(await readFile(path.join(fixture.root, "storage", `${cascadeId}.json`), "utf8")) as Frame;
    expect(stored["firstPrompt"]).toBe(`the original task ${"x".repeat(200)}`);
    // Turns 2-5 each compacted the turns before them; only the newest three summaries are kept.
    expect(stored["summaries"]).toHaveLength(3);
    expect(stored["summaries"].map((s: string) => /- user: (follow-up \d|the original task)/.exec(s)?.[1])).toEqual([
      "follow-up 2",
      "follow-up 3",
      "follow-up 4",
    ]);

    await fixture.restart();
    const resumed = await fixture.open();
    await resumed.init(harnessConfig(fixture.workspace, { ...config, sessionContinuationMode: "RESUME" }));
    resumed.prompt("after the restart");
    await resumed.turn();
    const [head, ack, ...rest] = chat(server, 5);
    expect(head?.["role"]).toBe("user");
    expect(head?.["content"].startsWith(`the original task ${"x".repeat(200)}\n\n[conversation summary]`)).toBe(true);
    expect(head?.["content"].split("[conversation summary]")).toHaveLength(4);
    expect(head?.["content"]).toContain("- user: follow-up 5");
    expect(ack).toEqual({ role: "assistant", content: "(earlier conversation summarised)" });
    expect(rest).toEqual([{ role: "user", content: "after the restart" }]);
    resumed.close();
  });

  it("moves a corrupt session file aside on resume, warns on stderr, and starts the session empty with its id", async () => {
    const cascadeId = "corrupt-session-0123456789abcdef0123456";
    const storage = path.join(fixture.root, "storage");
    await writeFile(
      path.join(storage, `${cascadeId}.json`),
      '{"version":1,"cascadeId":"corrupt-session-0123456789abcdef0123456","history":[{"stepIndex":',
    );
    const client = await fixture.open();
    const init = await client.init(harnessConfig(fixture.workspace, { cascadeId, sessionContinuationMode: "RESUME" }));
    expect(init).toMatchObject({ cascadeId });
    expect(init["history"] ?? []).toEqual([]);
    await fixture.harness.waitForStderr(
      new RegExp(`session file .*${cascadeId}\\.json is corrupt \\(.*\\); moved it to ${cascadeId}\\.json\\.corrupt-`),
    );
    expect((await readdir(storage)).filter((name) => name.startsWith(`${cascadeId}.json.corrupt-`))).toHaveLength(1);
    client.prompt("ping");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong to ping");
    client.close();
    await client.closed;
    const saved = JSON.parse(await readFile(path.join(storage, `${cascadeId}.json`), "utf8")) as Frame;
    expect(saved["transcript"]).toEqual([
      { role: "user", text: "ping" },
      { role: "model", text: "pong to ping", toolCalls: [] },
    ]);
  });
});
