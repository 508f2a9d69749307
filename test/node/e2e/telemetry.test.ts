import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  defineTool,
  type AgentBuilder,
  type StartedAgent,
} from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 12 item 5: the GenAI spans of a session, recorded by the real OpenTelemetry SDK's
// in-memory exporter, against the reference harness over a real socket.

const SCRIPT = fileURLToPath(new URL("./scripts/telemetry-script.json", import.meta.url));
/** Bound of every wait: a hang fails the test saying what did not happen. */
const BOUND_MS = 10_000;

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${BOUND_MS} ms`)), BOUND_MS)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
});

const explode = defineTool({
  name: "explode",
  description: "Always fails",
  call: () => {
    throw new Error("the tool blew up");
  },
});

describe("OpenTelemetry GenAI spans (reference harness over WebSocket)", () => {
  let workspace = "";
  let harness: ListeningHarness | undefined;
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("antigravity-telemetry-test");
  const running: StartedAgent[] = [];

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-telemetry-"));
    harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "telemetry-key-0123456789" });
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((agent) => agent.stop()));
    exporter.reset();
  });

  afterAll(async () => {
    await provider.shutdown();
    await harness?.stop();
    await killAllHarnesses();
    if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  });

  async function start(configure: (builder: AgentBuilder<false>) => AgentBuilder<true>): Promise<StartedAgent> {
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: harness?.apiKey ?? "",
    });
    const agent = await configure(Agent.builder().transport(transport).workspaces(workspace).tracer(tracer))
      .build()
      .start({ timeoutMs: BOUND_MS });
    running.push(agent);
    return agent;
  }

  function spans(name: string): ReadableSpan[] {
    return exporter.getFinishedSpans().filter((span) => span.name === name);
  }

  function only(name: string): ReadableSpan {
    const found = spans(name);
    expect(found.map((span) => span.name)).toEqual([name]);
    return found[0] as ReadableSpan;
  }

  const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

  it("a turn with a client tool call: invoke_agent > chat > execute_tool, with ids, turn index and usage", async () => {
    const agent = await start((b) => b.tool(add).allowAll());
    const response = await bounded(agent.chatToCompletion("please add two numbers"), "the tool turn");
    expect(response.text).toBe("The sum is 5.");
    const turnUsages = [await agent.conversation().lastTurnUsage()];
    await bounded(agent.chatToCompletion("and hello"), "the second turn");
    turnUsages.push(await agent.conversation().lastTurnUsage());
    await agent.stop();

    const session = only("invoke_agent antigravity");
    const chats = spans("chat");
    const tool = only("execute_tool add");
    expect(session.kind).toBe(SpanKind.CLIENT);
    expect(session.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "antigravity",
      "gen_ai.conversation.id": agent.conversationId,
    });
    expect(parentOf(session)).toBeUndefined();
    expect(agent.conversationId).not.toBe("");

    expect(chats.map((chat) => chat.attributes["antigravity.turn.index"])).toEqual([0, 1]);
    const [first, second] = chats as [ReadableSpan, ReadableSpan];
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": agent.conversationId,
        "antigravity.turn.solicited": true,
      });
      expect(parentOf(chat)).toBe(session.spanContext().spanId);
      expect(chat.spanContext().traceId).toBe(session.spanContext().traceId);
      expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    }
    // Per-turn usage is the growth of the harness's session total (§14); the session span has the total.
    const usage = agent.conversation();
    expect(first.attributes["gen_ai.usage.input_tokens"]).toBe(turnUsages[0]?.promptTokenCount);
    expect(first.attributes["gen_ai.usage.output_tokens"]).toBe(turnUsages[0]?.candidatesTokenCount);
    expect(second.attributes["gen_ai.usage.input_tokens"]).toBe(turnUsages[1]?.promptTokenCount);
    expect(first.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(first.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    const total = await usage.totalUsage();
    expect(session.attributes["gen_ai.usage.input_tokens"]).toBe(total.promptTokenCount);
    expect(session.attributes["gen_ai.usage.output_tokens"]).toBe(total.candidatesTokenCount);

    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(tool)).toBe(first.spanContext().spanId);
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "add",
      "gen_ai.tool.type": "function",
      "gen_ai.conversation.id": agent.conversationId,
    });
    const callIds = (await usage.history()).flatMap((step) => step.toolCalls.map((call) => call.id));
    expect(callIds).toContain(tool.attributes["gen_ai.tool.call.id"]);
    expect(tool.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("a failing tool records its error on the execute_tool span; the turn goes on", async () => {
    const agent = await start((b) => b.tool(explode).allowAll());
    expect((await bounded(agent.chatToCompletion("please break the tool"), "the failing tool turn")).text).toBe(
      "The tool failed.",
    );
    await agent.stop();
    const tool = only("execute_tool explode");
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: "the tool blew up" });
    expect(tool.attributes["error.type"]).toBe("tool_error");
    expect(tool.events.map((event) => [event.name, event.attributes?.["exception.message"]])).toEqual([
      ["exception", "the tool blew up"],
    ]);
    expect(only("chat").status.code).toBe(SpanStatusCode.UNSET);
  });

  it("a cancelled turn ends its chat span (marked canceled, not an error) and its tool span", async () => {
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const waitForStop = defineTool({
      name: "wait_for_stop",
      description: "Waits until the turn is cancelled",
      call: (_args: unknown, ctx) => {
        started();
        return new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(new Error("stopped by the halt")), { once: true }),
        );
      },
    });
    const agent = await start((b) => b.tool(waitForStop).allowAll());
    const stream = agent.chat("please wait in the tool");
    await bounded(toolStarted, "the client tool's start");
    await bounded(stream.abort(), "the halted turn's end");
    const error = await stream.final().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.Canceled);
    // The chat span ended with the turn, before the session did.
    const chat = only("chat");
    expect(chat.attributes["antigravity.turn.canceled"]).toBe(true);
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(only("execute_tool wait_for_stop").status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "stopped by the halt",
    });
    expect(spans("invoke_agent antigravity")).toEqual([]);
    await agent.stop();
    expect(spans("invoke_agent antigravity")).toHaveLength(1);
  });

  it("parentContext: the session span is a child of the caller's span, in its trace", async () => {
    const parent = tracer.startSpan("request");
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: harness?.apiKey ?? "",
    });
    const agent = await Agent.builder()
      .transport(transport)
      .workspaces(workspace)
      .tracer(tracer, { parentContext: trace.setSpan(ROOT_CONTEXT, parent) })
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS });
    running.push(agent);
    await bounded(agent.chatToCompletion("hello"), "the turn");
    await agent.stop();
    parent.end();
    const session = only("invoke_agent antigravity");
    expect(parentOf(session)).toBe(parent.spanContext().spanId);
    expect(session.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(parentOf(only("chat"))).toBe(session.spanContext().spanId);
    expect(only("chat").spanContext().traceId).toBe(parent.spanContext().traceId);
  });

  it("a session that fails to start records the error on its invoke_agent span", async () => {
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: "wrong-key-0123456789",
    });
    const failed = await Agent.builder()
      .transport(transport)
      .tracer(tracer)
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(failed).toBeInstanceOf(SdkError);
    const session = only("invoke_agent antigravity");
    expect(session.status.code).toBe(SpanStatusCode.ERROR);
    expect(session.attributes["error.type"]).toBe((failed as SdkError).code);
  });
});
