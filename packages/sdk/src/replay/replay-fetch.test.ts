import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { InteractionsClient } from "../hosted/interactions-client.js";
import { createMemoryTraceSink } from "./trace-sink.js";
import { recordingFetch } from "./recording-fetch.js";
import { replayFetch } from "./replay-fetch.js";

// replayFetch rule by rule, on a trace recorded here by recordingFetch from a fetch that answers
// like the Interactions API (a JSON resource, an event stream ending in [DONE]); the end-to-end
// tests against the emulator are in test/node/replay/hosted-replay.test.ts.

const KEY = "unit-test-key-0123456789";
const EVENTS =
  'data: {"event_type":"interaction.created","interaction":{"id":"i-1"}}\n\n' +
  'event: message\nid: 2\ndata: {"event_type":"interaction.completed","interaction":{"id":"i-1"}}\n\ndata: [DONE]\n\n';

/** A server in a function: GET …/i-1 answers the resource, POST …/interactions the event stream. */
const server: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  if (request.method === "GET")
    return Response.json({ id: "i-1", status: "completed" }, { headers: { "set-cookie": "session=s3cr3t-cookie" } });
  return new Response(EVENTS, { headers: { "content-type": "text/event-stream" } });
};

async function recorded(): Promise<string> {
  const sink = createMemoryTraceSink();
  const recorder = recordingFetch(server, sink);
  const client = new InteractionsClient({ apiKey: KEY, baseUrl: "https://example.test/api", fetch: recorder.fetch });
  expect(await client.get("i-1")).toEqual({ id: "i-1", status: "completed" });
  const events = [];
  for await (const event of await client.createStream({ input: "hi" })) events.push(event.event_type);
  expect(events).toEqual(["interaction.created", "interaction.completed"]);
  await recorder.close();
  return sink.text();
}

describe("replayFetch", () => {
  it("answers each request with the recorded status and body, the event stream written back event by event", async () => {
    const trace = await recorded();
    expect(trace).not.toContain(KEY);
    expect(trace).not.toContain("s3cr3t-cookie"); // response headers are not kept
    for (const baseUrl of ["https://elsewhere.test/api", "/api"]) {
      const replay = replayFetch(trace);
      const client = new InteractionsClient({ apiKey: "other", baseUrl, fetch: replay.fetch });
      expect(await client.get("i-1")).toEqual({ id: "i-1", status: "completed" });
      const events = [];
      for await (const event of await client.createStream({ input: "hi" })) events.push(event.event_type);
      expect(events).toEqual(["interaction.created", "interaction.completed"]);
      replay.verify();
    }
  });

  it("rejects a request that differs with the diff, and one past the trace's end", async () => {
    const trace = await recorded();
    const replay = replayFetch(trace, { match: "strict" });
    const client = new InteractionsClient({ apiKey: "other", baseUrl: "https://x.test/api", fetch: replay.fetch });
    // The client sees fetch reject (as when the network fails), with the mismatch as the cause.
    await expect(client.get("i-2")).rejects.toMatchObject({ cause: { code: ErrorCode.ProtocolError } });
    expect(replay.mismatch?.message).toContain("at path: differs");
    expect(replay.mismatch?.message).toContain('expected: "/api/v1beta/interactions/i-1"');
    const past = replayFetch(trace);
    const again = new InteractionsClient({ apiKey: "k", baseUrl: "https://x.test/api", fetch: past.fetch });
    await again.get("i-1");
    for await (const _ of await again.createStream({ input: "hi" }));
    await expect(again.get("i-1")).rejects.toMatchObject({
      cause: {
        code: ErrorCode.FailedPrecondition,
        message: expect.stringContaining("the trace holds 2 connection(s)"),
      },
    });
  });
});
