import { Agent, ErrorCode, SdkError, allowAll, defineTool, deferToUser, type Continuation } from "@antigravity-ts/sdk";
import { ConsumedConfirmations } from "@antigravity-ts/sdk/continuation";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";
import { describe, expect, it } from "vitest";

// What the emulator never sends, on streams written from genai.d.ts's types: a hosted tool other
// than a function (GoogleSearchCallStep { id, arguments: { queries } } / GoogleSearchResultStep
// { call_id, result: GoogleSearchResult[] { search_suggestions } }), a client function whose
// arguments stream as ArgumentsDelta, the `incomplete` status with its continuation_token, and an
// interaction that waits for two calls at once (the emulator's harness calls one at a time).

type Event = Record<string, unknown>;

/** A fetch that answers the n-th request with the n-th stream of `streams`, and records each request's body. */
function scripted(streams: Event[][], bodies: Record<string, unknown>[]): typeof fetch {
  let n = 0;
  return async (_input, init) => {
    bodies.push(typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : {});
    const events = streams[n++] ?? [];
    const text = events.map((event, i) => `data: ${JSON.stringify({ event_id: `e${n}-${i}`, ...event })}\n\n`).join("");
    return new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

const created = (id: string): Event => ({
  event_type: "interaction.created",
  interaction: { id, status: "in_progress" },
});
const completed = (id: string, status: string, extra: Event = {}): Event => ({
  event_type: "interaction.completed",
  interaction: { id, status, usage: { total_tokens: 7, total_input_tokens: 5, total_output_tokens: 2 }, ...extra },
});

describe("hostedAgent on streams typed by genai.d.ts", () => {
  it("maps a google_search call and result to a toolCall chunk and a toolResult event", async () => {
    const bodies: Record<string, unknown>[] = [];
    const fetch = scripted(
      [
        [
          created("i1"),
          {
            event_type: "step.start",
            index: 0,
            step: { type: "google_search_call", id: "gs1", arguments: { queries: ["antigravity"] } },
          },
          { event_type: "step.stop", index: 0 },
          {
            event_type: "step.start",
            index: 1,
            step: {
              type: "google_search_result",
              call_id: "gs1",
              result: [{ search_suggestions: "<div>antigravity</div>" }],
            },
          },
          { event_type: "step.stop", index: 1 },
          { event_type: "step.start", index: 2, step: { type: "model_output" } },
          { event_type: "step.delta", index: 2, delta: { type: "text", text: "Found it." } },
          { event_type: "step.stop", index: 2 },
          completed("i1", "completed"),
        ],
      ],
      bodies,
    );
    await using agent = await Agent.builder()
      .connection(hostedAgent({ apiKey: "k", baseUrl: "http://api.test/", fetch }))
      .allowAll()
      .build()
      .start();
    const events = [];
    for await (const event of agent.chat("search").events()) events.push(event);
    expect(events.find((e) => e.type === "toolCall")).toMatchObject({
      toolCall: { id: "gs1", name: "google_search", args: { queries: ["antigravity"] } },
    });
    expect(events.find((e) => e.type === "toolResult")).toMatchObject({
      result: [{ search_suggestions: "<div>antigravity</div>" }],
    });
    expect(
      events
        .filter((e) => e.type === "text")
        .map((e) => (e.type === "text" ? e.text : ""))
        .join(""),
    ).toBe("Found it.");
    expect(events.find((e) => e.type === "turnComplete")).toMatchObject({ usage: { totalTokenCount: 7 } });
  });

  it("assembles a client function's arguments from ArgumentsDelta and answers it in the next request", async () => {
    const bodies: Record<string, unknown>[] = [];
    const fetch = scripted(
      [
        [
          created("i1"),
          { event_type: "step.start", index: 0, step: { type: "function_call", id: "c1", name: "add", arguments: {} } },
          { event_type: "step.delta", index: 0, delta: { type: "arguments_delta", arguments: '{"a": 2, ' } },
          { event_type: "step.delta", index: 0, delta: { type: "arguments_delta", arguments: '"b": 3}' } },
          { event_type: "step.stop", index: 0 },
          completed("i1", "requires_action"),
        ],
        [
          created("i2"),
          {
            event_type: "step.start",
            index: 0,
            step: { type: "model_output", content: [{ type: "text", text: "5." }] },
          },
          { event_type: "step.stop", index: 0 },
          completed("i2", "completed"),
        ],
      ],
      bodies,
    );
    const calls: unknown[] = [];
    const add = defineTool({
      name: "add",
      description: "Adds",
      parameters: {
        type: "object",
        properties: { a: { type: "integer" }, b: { type: "integer" } },
        required: ["a", "b"],
      } as const,
      call: (args) => {
        calls.push(args);
        return { sum: args.a + args.b };
      },
    });
    await using agent = await Agent.builder()
      .connection(hostedAgent({ apiKey: "k", baseUrl: "http://api.test/", fetch }))
      .tool(add)
      .allowAll()
      .build()
      .start();
    expect((await agent.chatToCompletion("add 2 and 3")).text).toBe("5.");
    expect(calls).toEqual([{ a: 2, b: 3 }]);
    expect(bodies[0]?.["tools"]).toEqual([
      {
        type: "function",
        name: "add",
        description: "Adds",
        parameters: {
          type: "object",
          properties: { a: { type: "integer" }, b: { type: "integer" } },
          required: ["a", "b"],
        },
      },
    ]);
    expect(bodies[1]).toMatchObject({
      previous_interaction_id: "i1",
      input: [{ type: "function_result", call_id: "c1", name: "add", result: { sum: 5 } }],
    });
  });

  it("ends an incomplete interaction with ExecutionError carrying its continuation token", async () => {
    const fetch = scripted([[created("i1"), completed("i1", "incomplete", { continuation_token: "tok-1" })]], []);
    await using agent = await Agent.builder()
      .connection(hostedAgent({ apiKey: "k", baseUrl: "http://api.test/", fetch }))
      .allowAll()
      .build()
      .start();
    const error = await agent.chatToCompletion("long").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect(error).toMatchObject({
      code: ErrorCode.ExecutionError,
      details: { interactionId: "i1", continuationToken: "tok-1" },
    });
  });

  it("pauses on the second of two calls an interaction waits for, and answers both when resumed", async () => {
    // Interaction i1 waits (requires_action) for two FunctionCallSteps; `lookup` is allowed, `pay` deferred.
    const calling: Event[] = [
      created("i1"),
      { event_type: "step.start", index: 0, step: { type: "thought", summary: [] } },
      { event_type: "step.stop", index: 0 },
      {
        event_type: "step.start",
        index: 1,
        step: { type: "function_call", id: "c1", name: "lookup", arguments: { item: "book" } },
      },
      { event_type: "step.stop", index: 1 },
      {
        event_type: "step.start",
        index: 2,
        step: { type: "function_call", id: "c2", name: "pay", arguments: { amount: 12 } },
      },
      { event_type: "step.stop", index: 2 },
      completed("i1", "requires_action"),
    ];
    // Interaction { id, status, steps } as interactions.get answers it.
    const resource = {
      id: "i1",
      status: "requires_action",
      steps: [
        { type: "thought", summary: [] },
        { type: "function_call", id: "c1", name: "lookup", arguments: { item: "book" } },
        { type: "function_call", id: "c2", name: "pay", arguments: { amount: 12 } },
      ],
    };
    const answered: Event[] = [
      created("i2"),
      {
        event_type: "step.start",
        index: 0,
        step: { type: "model_output", content: [{ type: "text", text: "Paid." }] },
      },
      { event_type: "step.stop", index: 0 },
      completed("i2", "completed"),
    ];
    const requests: { method: string; url: string; body?: Record<string, unknown> }[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const method = init?.method ?? "GET";
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
      requests.push({ method, url: String(input), ...(body === undefined ? {} : { body }) });
      if (method === "GET") return Response.json(resource);
      const events = body?.["previous_interaction_id"] === "i1" ? answered : calling;
      const text = events
        .map((event, i) => `data: ${JSON.stringify({ event_id: `${requests.length}-${i}`, ...event })}\n\n`)
        .join("");
      return new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const ran: string[] = [];
    const tool = (name: string) =>
      defineTool({
        name,
        description: name,
        parameters: { type: "object", properties: {} } as const,
        call: () => {
          ran.push(name);
          return { done: name };
        },
      });
    const agent = () =>
      Agent.builder()
        .connection(hostedAgent({ apiKey: "k", baseUrl: "http://api.test/", fetch }))
        .tool(tool("lookup"), tool("pay"))
        .policies(deferToUser("pay"), allowAll())
        .resumeGuard(new ConsumedConfirmations())
        .build();
    const started = await agent().start();
    const continuation = (await started.chat("buy").final()).awaitingConfirmation?.continuation as Continuation;
    await started.stop();
    expect(ran).toEqual(["lookup"]);
    expect(continuation.payload).toMatchObject({
      pendingToolCalls: [
        { id: "c1", name: "lookup", args: { item: "book" }, trajectoryId: "i1", stepIndex: 1 },
        { id: "c2", name: "pay", args: { amount: 12 }, trajectoryId: "i1", stepIndex: 2 },
      ],
      awaitingIndex: 1,
      completedResults: [{ id: "c1", name: "lookup", result: { done: "lookup" } }],
    });

    // A continuation that leaves out a call the interaction waits for is refused: the next create must answer both.
    const leftOut = {
      version: 1,
      payload: {
        ...continuation.payload,
        pendingToolCalls: [continuation.payload.pendingToolCalls[1]],
        awaitingIndex: 0,
        completedResults: [],
      },
    };
    await expect(agent().resume(leftOut, { toolCallId: "c2", approved: true })).rejects.toMatchObject({
      code: ErrorCode.FailedPrecondition,
      details: { reason: "call-mismatch", part: "session" },
    });
    expect(requests.filter((r) => r.method === "POST")).toHaveLength(1);

    const { agent: resumed, stream } = await agent().resume(continuation, { toolCallId: "c2", approved: true });
    expect((await stream.final()).text).toBe("Paid.");
    await resumed.stop();
    expect(ran).toEqual(["lookup", "pay"]);
    expect(requests.at(-2)).toMatchObject({ method: "GET", url: "http://api.test/v1beta/interactions/i1" });
    expect(requests.at(-1)?.body).toMatchObject({
      previous_interaction_id: "i1",
      input: [
        { type: "function_result", call_id: "c1", name: "lookup", result: { done: "lookup" } },
        { type: "function_result", call_id: "c2", name: "pay", result: { done: "pay" } },
      ],
    });
  });
});
