import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInMemoryHarness, parseScript, type InMemoryHarness } from "@antigravity-ts/harness";
import {
  DefaultChatTransport,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk as AiUIMessageChunk,
} from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  BuiltinTool,
  DEFAULT_TOOLS,
  ErrorCode,
  SdkError,
  allowAll,
  defineTool,
  deferToUser,
  type ChatEvent,
  type ChatStream,
  type UIMessageChunk,
} from "../index.js";
import { approvalFromUIMessages } from "../continuation/index.js";

// ChatStream.toUIMessageStream() / toUIMessageStreamResponse() on real turns of the reference
// harness (in memory), read back by `ai`'s own code: every SSE event through `parseJsonEventStream`
// with `uiMessageChunkSchema` (what DefaultChatTransport runs), the chunks folded into a UIMessage by
// `readUIMessageStream`, and the page's approval posted back through DefaultChatTransport.

// Compile-time: every chunk this SDK emits is one of ai's UIMessageChunk union, field for field.
const _assignable = (chunk: UIMessageChunk): AiUIMessageChunk => chunk;
void _assignable;
// ...and names no field ai's member of the same type lacks (assignability alone allows extra fields;
// ai's runtime schema is loose too).
type InventedFields<C> = C extends { type: infer T }
  ? Exclude<keyof C, keyof Extract<AiUIMessageChunk, { type: T }>>
  : never;
const _noInventedFields: [InventedFields<UIMessageChunk>] extends [never] ? true : false = true;
void _noInventedFields;

const SECRET = "ui-message-stream-secret-0123456789abcdef";
let workspace = "";
let harness: InMemoryHarness;
/** Every chunk type the tests saw, to check that each type the SDK can emit was parsed by ai. */
const seenTypes = new Set<string>();

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "antigravity-ui-stream-"));
  const script = parseScript({
    turns: [
      {
        match: "weather",
        calls: [
          {
            thinking: "The user wants the weather.",
            text: "Checking the weather.",
            toolCalls: [{ name: "get_weather", args: { city: "Paris" } }],
          },
          { toolCalls: [{ name: "list_directory", args: { DirectoryPath: "." } }] },
          { text: "Paris is sunny." },
        ],
      },
      { match: "broken tool", calls: [{ toolCalls: [{ name: "broken", args: {} }] }, { text: "The tool failed." }] },
      {
        match: "clean up",
        calls: [
          { text: "Running it.", toolCalls: [{ name: "run_command", args: { CommandLine: "echo cleaned" } }] },
          { text: "Cleanup finished." },
        ],
      },
      {
        match: "quota",
        calls: [{ text: "partial", error: { message: "quota exhausted at the model", httpCode: 429 } }],
      },
      { match: "wait", calls: [{ toolCalls: [{ name: "wait_for_stop", args: {} }] }, { text: "not reached" }] },
    ],
  });
  harness = createInMemoryHarness({ workspace, script });
});

afterAll(async () => {
  await harness.close();
  await rm(workspace, { recursive: true, force: true });
});

const started: { resolve?: () => void } = {};
const tools = [
  defineTool({
    name: "get_weather",
    description: "The weather of a city",
    call: (args: { city: string }) => ({ city: args.city, sky: "sunny" }),
  }),
  defineTool({
    name: "broken",
    description: "Always fails",
    call: () => {
      throw new Error("the weather service is down");
    },
  }),
  defineTool({
    name: "wait_for_stop",
    description: "Waits until the turn is stopped",
    call: (_args: unknown, context) => {
      started.resolve?.();
      return new Promise((_, reject) =>
        context.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true }),
      );
    },
  }),
];

function agent(): Agent {
  return new Agent({
    transport: harness,
    workspaces: [workspace],
    // The script lists a directory: no default built-in since upstream 0.1.19.
    capabilities: { enabledTools: [...DEFAULT_TOOLS, BuiltinTool.ListDirectory] },
    tools,
    policies: [deferToUser("run_command"), allowAll()],
    continuationSecret: SECRET,
  });
}

/** Parses SSE bytes as DefaultChatTransport does, failing on any chunk ai's schema refuses. */
async function parsedChunks(body: ReadableStream<Uint8Array>): Promise<AiUIMessageChunk[]> {
  const chunks: AiUIMessageChunk[] = [];
  const reader = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!value.success) throw value.error;
    chunks.push(value.value);
    seenTypes.add(value.value.type);
  }
  return chunks;
}

/** The assistant message ai's own reader folds the chunks into (continuing `message` when given). */
async function messageOf(chunks: readonly AiUIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<AiUIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  // readUIMessageStream continues `message` in place: give it a copy.
  for await (const m of readUIMessageStream<UIMessage>({
    stream,
    terminateOnError: true,
    ...(message === undefined ? {} : { message: structuredClone(message) }),
  }))
    last = m;
  if (last === undefined) throw new Error("ai's reader produced no message");
  return structuredClone(last);
}

/** A route as docs/ai-sdk.md shows it: a new prompt, or the page's answer to a paused turn. */
async function route(request: Request): Promise<Response> {
  const { messages } = (await request.json()) as { messages: UIMessage[] };
  const approval = approvalFromUIMessages(messages);
  let stream: ChatStream;
  let stop: () => Promise<void>;
  if (approval !== undefined) {
    const resumed = await agent().resume(approval.continuation, approval.decision);
    ({ stream } = resumed);
    stop = () => resumed.agent.stop();
  } else {
    const started = await agent().start();
    const text =
      messages
        .at(-1)
        ?.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))
        .join("") ?? "";
    stream = started.chat(text);
    stop = () => started.stop();
  }
  void stream.outcome().then(stop);
  return stream.toUIMessageStreamResponse(approval === undefined ? {} : { resumed: approval.decision });
}

/** The page's side: DefaultChatTransport posting `messages` to the route (its fetch calls it in process). */
async function post(messages: UIMessage[], abortSignal?: AbortSignal): Promise<AiUIMessageChunk[]> {
  const transport = new DefaultChatTransport<UIMessage>({
    api: "http://localhost/api/chat",
    fetch: (input, init) => route(new Request(input, init)),
  });
  const stream = await transport.sendMessages({
    chatId: "chat-1",
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal,
  });
  const chunks: AiUIMessageChunk[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    seenTypes.add(chunk.type);
  }
  return chunks;
}

function userMessage(text: string): UIMessage {
  return { id: `user-${text}`, role: "user", parts: [{ type: "text", text }] };
}

function toolParts(message: UIMessage): Record<string, unknown>[] {
  return message.parts.filter((part) => part.type === "dynamic-tool") as unknown as Record<string, unknown>[];
}

describe("ChatStream.toUIMessageStreamResponse", () => {
  it("sends ai's headers and framing, every event accepted by ai's chunk schema", async () => {
    const started = await agent().start();
    try {
      const response = await started
        .chat("weather in Paris")
        .toUIMessageStreamResponse({ headers: { "x-extra": "1" } });
      expect(Object.fromEntries(response.headers)).toMatchObject({
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "x-vercel-ai-ui-message-stream": "v1",
        "x-accel-buffering": "no",
        "x-extra": "1",
      });
      const text = await response.text();
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
      const chunks = await parsedChunks(new Response(text).body as ReadableStream<Uint8Array>);
      expect(chunks.length).toBe(text.split("\n\n").filter((event) => event.startsWith("data: {")).length);
    } finally {
      await started.stop();
    }
  });

  it("streams text, reasoning, a client tool and a harness tool as one part per call, a step per model call, usage as metadata", async () => {
    const chunks = await post([userMessage("weather in Paris")]);
    expect(chunks[0]).toEqual({ type: "start" });
    expect(chunks.filter((c) => c.type === "start-step").length).toBe(3);
    expect(chunks.filter((c) => c.type === "finish-step").length).toBe(3);
    expect(
      chunks.filter((c) => c.type === "tool-input-available").map((c) => (c as { toolName: string }).toolName),
    ).toEqual(["get_weather", "list_directory"]);
    const finish = chunks.at(-1) as Extract<AiUIMessageChunk, { type: "finish" }>;
    expect(finish).toMatchObject({
      type: "finish",
      finishReason: "stop",
      messageMetadata: { turnIndex: 0, usage: { totalTokenCount: expect.any(Number) } },
    });
    expect((finish.messageMetadata as { usage: { totalTokenCount: number } }).usage.totalTokenCount).toBeGreaterThan(0);
    expect(chunks.some((c) => c.type === "message-metadata")).toBe(true);

    const message = await messageOf(chunks);
    expect(message.parts.map((p) => p.type)).toEqual([
      "step-start",
      "reasoning",
      "text",
      "dynamic-tool",
      "step-start",
      "dynamic-tool",
      "step-start",
      "text",
    ]);
    expect(message.parts[1]).toMatchObject({ type: "reasoning", text: "The user wants the weather.", state: "done" });
    expect(message.parts[2]).toMatchObject({ type: "text", text: "Checking the weather.", state: "done" });
    const [weather, listing] = toolParts(message);
    expect(weather).toMatchObject({
      toolName: "get_weather",
      state: "output-available",
      input: { city: "Paris" },
      output: { city: "Paris", sky: "sunny" },
      providerExecuted: true,
    });
    expect(listing).toMatchObject({ toolName: "list_directory", state: "output-available", providerExecuted: true });
    expect(message.parts.at(-1)).toMatchObject({ type: "text", text: "Paris is sunny." });
    expect(message.metadata).toMatchObject({ turnIndex: 0 });
  });

  it("shows a failing client tool as output-error with its message", async () => {
    const message = await messageOf(await post([userMessage("broken tool")]));
    expect(toolParts(message)).toEqual([
      expect.objectContaining({
        toolName: "broken",
        state: "output-error",
        errorText: expect.stringContaining("the weather service is down"),
      }),
    ]);
    expect(message.parts.at(-1)).toMatchObject({ type: "text", text: "The tool failed." });
  });

  it("asks the page to approve a deferred call, and resumes the turn with its answer: approved runs it", async () => {
    const first = await messageOf(await post([userMessage("clean up")]));
    const [pending] = toolParts(first);
    expect(pending).toMatchObject({
      toolName: "run_command",
      state: "approval-requested",
      input: { CommandLine: "echo cleaned" },
    });
    const approval = pending?.approval as {
      id: string;
      descriptor: { antigravityContinuation: { signature: string } };
    };
    expect(approval.descriptor.antigravityContinuation.signature).toMatch(/^hmac-sha256:/);

    // The page: addToolApprovalResponse({ id, approved: true }) marks the part, useChat posts the messages again.
    const answered = answer(first, approval.id, true);
    const rest = await post([userMessage("clean up"), answered]);
    expect(rest.some((c) => c.type === "tool-input-available")).toBe(false); // the part is continued, not repeated
    const after = await messageOf(rest, answered);
    const [ran] = toolParts(after);
    expect(ran).toMatchObject({ toolName: "run_command", state: "output-available" });
    expect(JSON.stringify(ran?.output)).toContain("cleaned");
    expect(after.parts.at(-1)).toMatchObject({ type: "text", text: "Cleanup finished." });
  });

  it("resumes a denied call as output-denied; a replayed answer is refused", async () => {
    const first = await messageOf(await post([userMessage("clean up")]));
    const approval = toolParts(first)[0]?.approval as { id: string };
    const answered = answer(first, approval.id, false);
    const after = await messageOf(await post([userMessage("clean up"), answered]), answered);
    expect(toolParts(after)).toEqual([expect.objectContaining({ toolName: "run_command", state: "output-denied" })]);
    const replay = await post([userMessage("clean up"), answered]).then(
      (chunks) => chunks,
      (error: unknown) => error,
    );
    expect(replay).toBeInstanceOf(SdkError); // the route's resume refuses it before anything is sent
    expect((replay as SdkError).details).toMatchObject({ reason: "replayed" });
  });

  it("refuses an approval whose continuation the page altered, before anything runs", async () => {
    const first = await messageOf(await post([userMessage("clean up")]));
    const [pending] = toolParts(first);
    const approval = pending?.approval as {
      id: string;
      descriptor: { antigravityContinuation: { payload: { pendingToolCalls: { args: { CommandLine: string } }[] } } };
    };
    const forged = structuredClone(answer(first, approval.id, true));
    const tool = (forged.parts as unknown as { approval?: typeof approval }[]).find((p) => p.approval !== undefined);
    const call = tool?.approval?.descriptor.antigravityContinuation.payload.pendingToolCalls[0];
    if (call === undefined) throw new Error("the continuation names no call");
    call.args.CommandLine = "echo forged > forged.txt";
    const refusal = await post([userMessage("clean up"), forged]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(SdkError);
    expect((refusal as SdkError).code).toBe(ErrorCode.PermissionDenied);
    await expect(access(path.join(workspace, "forged.txt"))).rejects.toThrow();
  });

  it("ends a failed turn with an error chunk (masked unless onError says otherwise)", async () => {
    const masked = await agent().start();
    try {
      const chunks = await parsedChunks(
        (await masked.chat("quota").toUIMessageStreamResponse()).body as ReadableStream<Uint8Array>,
      );
      expect(chunks.at(-1)).toEqual({ type: "error", errorText: "An error occurred." });
      const shown = await parsedChunks(
        (await masked.chat("quota again").toUIMessageStreamResponse({ onError: (e) => `${e.code}: ${e.message}` }))
          .body as ReadableStream<Uint8Array>,
      );
      expect((shown.at(-1) as { errorText: string }).errorText).toContain("quota exhausted at the model");
      const errors: unknown[] = [];
      const stream = new ReadableStream<AiUIMessageChunk>({
        start(c) {
          for (const chunk of shown) c.enqueue(chunk);
          c.close();
        },
      });
      for await (const _ of readUIMessageStream({ stream, onError: (e) => errors.push(e) })) void _;
      expect(String(errors[0])).toContain("quota exhausted at the model");
    } finally {
      await masked.stop();
    }
  });

  it("cancels the turn when the page stops reading (Stop), and shows a server-side cancel as abort", async () => {
    const started = await agent().start();
    try {
      const waiting = new Promise<void>((resolve) => startedResolve(resolve));
      const stream = started.chat("wait for it");
      const reader = stream.toUIMessageStream().getReader();
      await waiting;
      await reader.cancel();
      expect((await stream.outcome()).error?.code).toBe(ErrorCode.Canceled);

      const second = started.chat("wait again");
      const secondWaiting = new Promise<void>((resolve) => startedResolve(resolve));
      const chunksPromise = collect(second.toUIMessageStream());
      await secondWaiting;
      await second.abort(new SdkError(ErrorCode.Canceled, "stopped by the server"));
      const chunks = await chunksPromise;
      expect(chunks.at(-1)).toEqual({ type: "abort", reason: "stopped by the server" });
      seenTypes.add("abort");
      await parsedChunks(
        new Response(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")).body as ReadableStream<Uint8Array>,
      );
    } finally {
      await started.stop();
    }
  });

  it("keeps the text of separate model calls apart when no tool separates them (a step and a text part each)", async () => {
    const events: ChatEvent[] = [
      { type: "text", stepIndex: 3, text: "Checking the weather." },
      { type: "text", stepIndex: 5, text: "Converting." },
      {
        type: "turnComplete",
        turnIndex: 0,
        usage: {
          promptTokenCount: 1,
          candidatesTokenCount: 1,
          totalTokenCount: 2,
          cachedContentTokenCount: 0,
          thoughtsTokenCount: 0,
        },
      },
    ];
    const turn = {
      events: () => events[Symbol.iterator](),
      final: () => Promise.reject(new Error("not paused")),
      abort: () => Promise.resolve(),
    };
    const { uiMessageStream } = await import("./ui-message-stream.js");
    const chunks = await collect(uiMessageStream(turn as unknown as ChatStream));
    const message = await messageOf(chunks as AiUIMessageChunk[]);
    expect(message.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Checking the weather.", state: "done" },
      { type: "step-start" },
      { type: "text", text: "Converting.", state: "done" },
    ]);
  });

  it("emitted every chunk type it declares, each accepted by ai's parser", () => {
    const declared = [
      "start",
      "start-step",
      "finish-step",
      "text-start",
      "text-delta",
      "text-end",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "tool-input-available",
      "tool-output-available",
      "tool-output-error",
      "tool-output-denied",
      "tool-approval-request",
      "message-metadata",
      "finish",
      "abort",
      "error",
    ];
    expect([...seenTypes].sort()).toEqual(declared.sort());
  });
});

function startedResolve(resolve: () => void): void {
  started.resolve = resolve;
}

async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream as unknown as AsyncIterable<T>) out.push(item);
  return out;
}

/** What `addToolApprovalResponse({ id, approved })` does to the message (ai's AbstractChat). */
function answer(message: UIMessage, approvalId: string, approved: boolean): UIMessage {
  return {
    ...message,
    parts: message.parts.map((part) => {
      const p = part as Record<string, unknown> & { approval?: { id: string } };
      return p.state === "approval-requested" && p.approval?.id === approvalId
        ? ({ ...p, state: "approval-responded", approval: { ...p.approval, approved } } as unknown as typeof part)
        : part;
    }),
  };
}
