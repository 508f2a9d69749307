import { Agent, ErrorCode, SdkError, defineTool } from "@antigravity-ts/sdk";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";
import { describe, expect, it } from "vitest";

// What the emulator never sends, on streams written from genai.d.ts's types: a hosted tool other
// than a function (GoogleSearchCallStep { id, arguments: { queries } } / GoogleSearchResultStep
// { call_id, result: GoogleSearchResult[] { search_suggestions } }), a client function whose
// arguments stream as ArgumentsDelta, and the `incomplete` status with its continuation_token.

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
});
