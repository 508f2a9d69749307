import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, ErrorCode, SdkError, defineTool } from "@antigravity-ts/sdk";
import { InteractionsClient, hostedAgent } from "@antigravity-ts/sdk/hosted";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// hostedAgent over the reference harness's Interactions API emulator (a real HTTP server on a real
// socket): a turn with text, a hosted tool, a client tool, a conversation of three turns, a halt,
// a failed turn, the budget, and the options this wire refuses.

const KEY = "hosted-test-key-0123456789";
const SLOW = Array.from({ length: 40 }, (_, i) => `s${i}`).join(" ");

let root = "";
let emulator: InteractionsEmulator;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-"));
  const workspace = path.join(root, "ws");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "notes.txt"), "hi\n");
  const script = parseScript({
    turns: [
      { match: "hello", calls: [{ thinking: "Short.", text: "Hello there." }] },
      {
        match: "list",
        calls: [{ toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] }, { text: "Listed." }],
      },
      {
        match: "weather",
        calls: [{ toolCalls: [{ name: "$client", args: { city: "Paris" } }] }, { text: "Done with the weather." }],
      },
      { match: "slow", calls: [{ text: SLOW, chunkWords: 1, chunkDelayMs: 50 }] },
      { match: "broken", calls: [{ error: { message: "the model is broken", httpCode: 400 } }] },
      { calls: [{ text: "Again." }] },
    ],
  });
  emulator = await startInteractionsEmulator({ apiKey: KEY, host: "127.0.0.1", port: 0, workspace, script });
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

const strategy = () => hostedAgent({ apiKey: KEY, baseUrl: emulator.url });

describe("hostedAgent over the interactions emulator", () => {
  it("runs a turn: text and thinking as chunks, usage as the API reports it", async () => {
    await using agent = await Agent.builder().connection(strategy()).allowAll().build().start();
    const response = await agent.chatToCompletion("hello");
    expect(response.text).toBe("Hello there.");
    expect(response.thinking).toBe("Short.");
    expect(response.usageMetadata.totalTokenCount).toBeGreaterThan(0);
    expect(await agent.conversation().lastResponse()).toBe("Hello there.");
  });

  it("shows a hosted tool's call and result", async () => {
    await using agent = await Agent.builder().connection(strategy()).allowAll().build().start();
    const events = [];
    for await (const event of agent.chat("list the files").events()) events.push(event);
    const call = events.find((e) => e.type === "toolCall");
    expect(call).toMatchObject({ toolCall: { name: "list_directory", args: { directory_path: "." } } });
    const result = events.find((e) => e.type === "toolResult");
    expect(JSON.stringify(result?.type === "toolResult" ? result.result : undefined)).toContain("notes.txt");
    expect(
      events
        .filter((e) => e.type === "text")
        .map((e) => (e.type === "text" ? e.text : ""))
        .join(""),
    ).toBe("Listed.");
  });

  it("answers a client function through the agent's tool, once, with synthetic steps from 50,000", async () => {
    const calls: unknown[] = [];
    const weather = defineTool({
      name: "get_weather",
      description: "Weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const,
      call: (args) => {
        calls.push(args);
        return { forecast: "sunny" };
      },
    });
    await using agent = await Agent.builder().connection(strategy()).tool(weather).allowAll().build().start();
    const stream = agent.chat("weather in Paris?");
    const steps = [];
    for await (const step of stream.steps()) steps.push(step);
    expect(calls).toEqual([{ city: "Paris" }]);
    expect(steps.some((s) => s.stepIndex >= 50_000 && s.toolCalls[0]?.name === "get_weather")).toBe(true);
    expect((await stream.final()).text).toBe("Done with the weather.");
  });

  it("continues a conversation of three turns through previous_interaction_id", async () => {
    await using agent = await Agent.builder().connection(strategy()).allowAll().build().start();
    expect((await agent.chatToCompletion("hello")).text).toBe("Hello there.");
    expect((await agent.chatToCompletion("and again")).text).toBe("Again.");
    expect((await agent.chatToCompletion("once more")).text).toBe("Again.");
    expect(await agent.conversation().turnCount()).toBe(3);
  });

  it("halts a running turn through interactions.cancel: the turn ends Canceled", async () => {
    await using agent = await Agent.builder().connection(strategy()).allowAll().build().start();
    const stream = agent.chat("slow please");
    let seen = "";
    for await (const chunk of stream) {
      if (chunk.type === "text") seen += chunk.text;
      if (seen.includes("s3")) break;
    }
    await agent.connection.halt();
    const outcome = await stream.outcome();
    expect(outcome.error?.code).toBe(ErrorCode.Canceled);
    // The next turn goes on from the last finished interaction.
    expect((await agent.chatToCompletion("and again")).text).toBe("Again.");
  });

  it("reports a failed interaction as ExecutionError with the API's message", async () => {
    await using agent = await Agent.builder().connection(strategy()).allowAll().build().start();
    const error = await agent.chatToCompletion("broken model").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.ExecutionError);
    expect((error as SdkError).message).toContain("the model is broken");
  });

  it("maps budget({ maxTotalTokens }) to agent_config.max_total_tokens and budget_exceeded to its stop reason", async () => {
    await using agent = await Agent.builder()
      .connection(strategy())
      .budget({ maxTotalTokens: 1 })
      .allowAll()
      .build()
      .start();
    const response = await agent.chatToCompletion("hello");
    expect(response.stopReason).toBe("MAX_TOTAL_TOKENS_EXCEEDED");
  });

  it("refuses what the wire cannot do with Unsupported, naming the option and the wire", async () => {
    const hooked = () =>
      Agent.builder()
        .connection(strategy())
        .hook({ preToolCall: () => ({ allow: true }) })
        .allowAll()
        .build();
    expect(hooked).toThrow(
      expect.objectContaining({
        code: ErrorCode.Unsupported,
        details: expect.objectContaining({ wire: "interactions" }),
      }),
    );
    const instructed = Agent.builder().connection(strategy()).systemInstructions("Be terse.").allowAll().build();
    await expect(instructed.start()).rejects.toMatchObject({
      code: ErrorCode.Unsupported,
      details: { option: "systemInstructions", wire: "interactions" },
    });
    // The 0.1.15-0.1.19 session options are refused at build() (packages/sdk/src/agent/wire-refusals.test.ts).
    expect(() =>
      Agent.builder()
        .connection(strategy())
        .skills({ directories: ["/s"] })
        .allowAll()
        .build(),
    ).toThrow(
      expect.objectContaining({ code: ErrorCode.Unsupported, details: { option: "skills", wire: "interactions" } }),
    );
  });

  it("runs background interactions (create, then get with stream) and halts them through cancel", async () => {
    await using agent = await Agent.builder()
      .connection(hostedAgent({ apiKey: KEY, baseUrl: emulator.url, background: true }))
      .allowAll()
      .build()
      .start();
    expect((await agent.chatToCompletion("hello")).text).toBe("Hello there.");
    const stream = agent.chat("slow please");
    for await (const chunk of stream) if (chunk.type === "text") break;
    await agent.connection.halt();
    expect((await stream.outcome()).error?.code).toBe(ErrorCode.Canceled);
  });

  it("sends agent_config with the model and the budget, and the first environment's id on later turns", async () => {
    const bodies: Record<string, unknown>[] = [];
    const recording: typeof fetch = (input, init) => {
      if (typeof init?.body === "string") bodies.push(JSON.parse(init.body) as Record<string, unknown>);
      return fetch(input, init);
    };
    await using agent = await Agent.builder()
      .connection(
        hostedAgent({
          apiKey: KEY,
          baseUrl: emulator.url,
          fetch: recording,
          agentConfig: { model: "gemini-3.7-flash" },
          environment: { type: "remote" },
          reuseEnvironment: true,
        }),
      )
      .budget({ maxTotalTokens: 1_000_000 })
      .allowAll()
      .build()
      .start();
    await agent.chatToCompletion("hello");
    await agent.chatToCompletion("and again");
    expect(bodies[0]).toMatchObject({
      agent: "antigravity-preview-09-2026",
      agent_config: { type: "antigravity", model: "gemini-3.7-flash", max_total_tokens: "1000000" },
      environment: { type: "remote" },
      stream: true,
    });
    const firstId = (bodies[1]?.["previous_interaction_id"] as string | undefined) ?? "";
    const first = await new InteractionsClient({ apiKey: KEY, baseUrl: emulator.url }).get(firstId);
    expect(typeof first["environment_id"]).toBe("string");
    expect(bodies[1]?.["environment"]).toBe(first["environment_id"]);
  });

  it("refuses a wrong key with PermissionDenied", async () => {
    await using agent = await Agent.builder()
      .connection(hostedAgent({ apiKey: "wrong", baseUrl: emulator.url }))
      .allowAll()
      .build()
      .start();
    await expect(agent.chatToCompletion("hello")).rejects.toMatchObject({ code: ErrorCode.PermissionDenied });
  });
});
