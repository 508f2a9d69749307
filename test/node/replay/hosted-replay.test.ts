import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, ErrorCode, SdkError, defineTool, type ChatResponse } from "@antigravity-ts/sdk";
import { InteractionsClient, hostedAgent } from "@antigravity-ts/sdk/hosted";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { REDACTED, fileTraceSink, parseTrace, recordingFetch, replayFetch } from "@antigravity-ts/node/replay";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A hosted session recorded against the reference harness's Interactions API emulator (a real
// HTTP server on a real socket), then replayed with no server: the same answers, a client tool
// answered in the next request, a diff when one request differs, and no key or token in the trace.

const KEY = "AIzaHostedReplayKey0123456789";
const TOKEN = "route-token-5e6f7a8b9c0d";
const SLOW = Array.from({ length: 40 }, (_, i) => `s${i}`).join(" ");

let root = "";
let emulator: InteractionsEmulator;
let traceFile = "";
let traceText = "";
let recorded: ChatResponse[] = [];
const weatherCalls: unknown[] = [];

const weather = defineTool({
  name: "get_weather",
  description: "Weather of a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const,
  call: (args) => {
    weatherCalls.push(args);
    return { forecast: "sunny" };
  },
});

/** One session of two turns: text with thinking, then a client function answered in the next request. */
async function session(fetch: typeof globalThis.fetch, apiKey: string, baseUrl: string): Promise<ChatResponse[]> {
  await using agent = await Agent.builder()
    .connection(hostedAgent({ apiKey, baseUrl, fetch, headers: { authorization: `Bearer ${TOKEN}` } }))
    .tool(weather)
    .allowAll()
    .build()
    .start();
  return [await agent.chatToCompletion("hello"), await agent.chatToCompletion("weather in Paris?")];
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-replay-"));
  const workspace = path.join(root, "ws");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "notes.txt"), "hi\n");
  const script = parseScript({
    turns: [
      { match: "hello", calls: [{ thinking: "Short.", text: "Hello there." }] },
      { match: "slow", calls: [{ text: SLOW, chunkWords: 1, chunkDelayMs: 50 }] },
      { match: "again", calls: [{ text: "Again." }] },
      {
        match: "weather",
        calls: [{ toolCalls: [{ name: "$client", args: { city: "Paris" } }] }, { text: "Done with the weather." }],
      },
    ],
  });
  emulator = await startInteractionsEmulator({ apiKey: KEY, host: "127.0.0.1", port: 0, workspace, script });
  traceFile = path.join(root, "hosted.ndjson");
  const recorder = recordingFetch(globalThis.fetch, fileTraceSink(traceFile), {
    meta: { peer: "interactions emulator" },
  });
  try {
    recorded = await session(recorder.fetch, KEY, emulator.url);
  } finally {
    await recorder.close();
  }
  traceText = await readFile(traceFile, "utf8");
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

describe("a hosted session against the emulator, recorded and replayed", () => {
  it("writes a trace of wire interactions: each request, its status, and each server-sent event", () => {
    const trace = parseTrace(traceText);
    expect(trace.header).toMatchObject({ wire: "interactions", era: "v1beta" });
    const requests = trace.events.flatMap((e) =>
      e.kind === "frame" &&
      e.from === "client" &&
      typeof e.frame === "object" &&
      e.frame !== null &&
      !Array.isArray(e.frame)
        ? [`${e.frame["method"]} ${e.frame["path"]}`]
        : [],
    );
    expect(requests[0]).toBe("POST /v1beta/interactions");
    expect(requests.length).toBeGreaterThanOrEqual(3); // hello, weather, the function result
    const first = trace.connections[0]?.filter((e) => e.kind === "frame" && e.from === "peer") ?? [];
    expect(first[0]).toMatchObject({
      frame: { status: 200, contentType: expect.stringMatching(/^text\/event-stream/) },
    });
    expect(
      first
        .slice(1)
        .map((e) => (e.kind === "frame" ? (e.frame as { data?: { event_type?: string } }).data?.event_type : "")),
    ).toContain("interaction.completed");
    expect(recorded.map((r) => r.text)).toEqual(["Hello there.", "Done with the weather."]);
  });

  it("keeps the secrets out: no byte holds the API key or the bearer token, header names stay", async () => {
    const bytes = await readFile(traceFile);
    for (const secret of [KEY, TOKEN]) expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(traceText).toContain(`"x-goog-api-key":"${REDACTED}"`);
    expect(traceText).toContain(`"authorization":"${REDACTED}"`);
  });

  it("masks a key= query parameter, and the key wherever it shows up after", async () => {
    const chunks: string[] = [];
    const recorder = recordingFetch(globalThis.fetch, { write: (line) => void chunks.push(line) });
    const response = await recorder.fetch(`${emulator.url}/v1beta/interactions/none?key=${KEY}`, {
      headers: { "x-goog-api-key": KEY },
    });
    expect(response.status).toBe(404);
    await recorder.close();
    const text = chunks.join("");
    expect(text).not.toContain(KEY);
    expect(text).toContain(`/v1beta/interactions/none?key=${REDACTED}`);
  });

  it("replays the session with no server: the same answers, the client tool run again, every request played", async () => {
    for (const match of ["lenient", "strict"] as const) {
      weatherCalls.length = 0;
      const replay = replayFetch(traceText, { match });
      const replayed = await session(replay.fetch, "another-key-entirely", "http://replay.invalid");
      expect(replayed.map((r) => r.text)).toEqual(recorded.map((r) => r.text));
      expect(replayed.map((r) => r.thinking)).toEqual(recorded.map((r) => r.thinking));
      expect(replayed.map((r) => r.usageMetadata)).toEqual(recorded.map((r) => r.usageMetadata));
      expect(weatherCalls).toEqual([{ city: "Paris" }]);
      replay.verify();
    }
  });

  it("fails with the diff when one request differs: where, what was expected, what came", async () => {
    const replay = replayFetch(traceText);
    await using agent = await Agent.builder()
      .connection(
        hostedAgent({
          apiKey: "a-key-that-must-not-show",
          baseUrl: "http://replay.invalid",
          fetch: replay.fetch,
          headers: { authorization: `Bearer ${TOKEN}` },
        }),
      )
      .tool(weather)
      .allowAll()
      .build()
      .start();
    const failure = await agent.chatToCompletion("hello, world").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SdkError);
    expect(replay.mismatch?.code).toBe(ErrorCode.ProtocolError);
    const message = replay.mismatch?.message ?? "";
    expect(message).toMatch(
      /^replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame 1 of 1, POST \/v1beta\/interactions/,
    );
    expect(message).toMatch(/at body\.input[^:]*: differs/);
    expect(message).toContain('expected: "hello"');
    expect(message).toContain('got:      "hello, world"');
    for (const secret of ["a-key-that-must-not-show", TOKEN]) expect(message).not.toContain(secret);
  });

  it("replays a halt: the event stream and the cancel request, two requests at once, in their recorded order", async () => {
    /** A turn halted mid-stream through interactions.cancel, then a turn that goes on. */
    const halted = async (fetch: typeof globalThis.fetch, baseUrl: string): Promise<[string | undefined, string]> => {
      await using agent = await Agent.builder()
        .connection(hostedAgent({ apiKey: KEY, baseUrl, fetch }))
        .allowAll()
        .build()
        .start();
      const stream = agent.chat("slow please");
      let seen = "";
      for await (const chunk of stream) {
        if (chunk.type === "text") seen += chunk.text;
        if (seen.includes("s3")) break;
      }
      await agent.connection.halt();
      const outcome = await stream.outcome();
      return [outcome.error?.code, (await agent.chatToCompletion("and again")).text];
    };
    const lines: string[] = [];
    const recorder = recordingFetch(globalThis.fetch, { write: (line) => void lines.push(line) });
    const recordedRun = await halted(recorder.fetch, emulator.url);
    await recorder.close();
    expect(recordedRun).toEqual([ErrorCode.Canceled, "Again."]);
    const trace = parseTrace(lines.join(""));
    expect(trace.events.some((e) => e.kind === "frame" && JSON.stringify(e.frame).includes("/cancel"))).toBe(true);
    for (const speed of ["recorded", "fast"] as const) {
      const replay = replayFetch(trace, { speed });
      expect(await halted(replay.fetch, "http://replay.invalid")).toEqual(recordedRun);
      replay.verify();
    }
  });

  it("records a request the client aborted mid-stream as closed by the client, and the replay honours the abort", async () => {
    /** Reads the slow turn's events until the third, then aborts; returns how many it saw and what the abort threw. */
    const aborted = async (fetch: typeof globalThis.fetch, baseUrl: string): Promise<[number, unknown]> => {
      const client = new InteractionsClient({ apiKey: KEY, baseUrl, fetch });
      const abort = new AbortController();
      const events = await client.createStream(
        { agent: "antigravity-preview-09-2026", input: "slow please" },
        abort.signal,
      );
      let seen = 0;
      try {
        for await (const _event of events) if (++seen === 3) abort.abort(new Error("enough"));
      } catch (error) {
        return [seen, error];
      }
      return [seen, undefined];
    };
    const lines: string[] = [];
    const recorder = recordingFetch(globalThis.fetch, { write: (line) => void lines.push(line) });
    const [recordedSeen, recordedError] = await aborted(recorder.fetch, emulator.url);
    await recorder.close();
    expect(recordedSeen).toBe(3);
    expect(recordedError).toMatchObject({ message: "enough" });
    const trace = parseTrace(lines.join(""));
    expect(trace.events.at(-1)).toMatchObject({ kind: "close", by: "client" });
    const replay = replayFetch(trace);
    const [replayedSeen, replayedError] = await aborted(replay.fetch, "http://replay.invalid");
    expect(replayedSeen).toBe(3);
    expect(replayedError).toMatchObject({ message: "enough" });
    replay.verify();
  });

  it("refuses a trace of another wire, naming the replay that plays it", () => {
    expect(() => replayFetch(traceText.replace('"wire":"interactions"', '"wire":"localharness"'))).toThrow(
      /this trace's wire is localharness: use replayTransport/,
    );
  });
});
