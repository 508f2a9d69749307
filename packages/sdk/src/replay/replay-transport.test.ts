import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInMemoryHarness, parseScript, type InMemoryHarness } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ErrorCode, SdkError, defineTool, type Channel } from "../index.js";
import {
  createMemoryTraceSink,
  parseTrace,
  recordingTransport,
  REDACTED,
  replayTransport,
  type ReplayOptions,
} from "./index.js";

// replayTransport on hand-written traces (each rule on its own) and on a trace recorded from the
// reference harness in memory (a whole session with a client tool, replayed by the same agent).

const HEADER = {
  kind: "header",
  format: "antigravity-trace",
  version: 1,
  wire: "localharness",
  era: "0.1.14",
  sdk: { name: "@antigravity-ts/sdk", version: "0.1.0" },
  recordedAt: "2026-11-01T00:00:00.000Z",
  redaction: { defaults: true, custom: false },
};
const client = (t: number, frame: unknown, c = 0) => ({ kind: "frame", t, c, from: "client", frame });
const peer = (t: number, frame: unknown, c = 0) => ({ kind: "frame", t, c, from: "peer", frame });
const open = (t = 0, c = 0) => ({ kind: "open", t, c });
const traceOf = (...events: unknown[]): string => [HEADER, ...events].map((line) => JSON.stringify(line)).join("\n");

/** A simple session: init, its reply, one prompt and its answer; ids as a harness would assign them. */
const SESSION = traceOf(
  open(),
  client(1, {
    config: {
      cascadeId: "conversation-0000000000000000000000000001",
      workspaces: [{ filesystemWorkspace: { directory: "/recorded" } }],
    },
  }),
  peer(2, {
    seqNum: "1",
    timestampMicros: "1",
    initializeConversationResponse: { cascadeId: "conversation-0000000000000000000000000001" },
  }),
  client(3, { userInput: { parts: [{ text: "hi" }] } }),
  peer(4, {
    seqNum: "2",
    timestampMicros: "2",
    stepUpdate: {
      cascadeId: "conversation-0000000000000000000000000001",
      stepIndex: 1,
      state: "STATE_DONE",
      text: "hello",
    },
  }),
  { kind: "close", t: 5, c: 0, by: "client" },
);

/** Reads a channel's frames one at a time. */
function reader(channel: Channel): () => Promise<string | undefined> {
  const frames = channel.frames()[Symbol.asyncIterator]();
  return async () => {
    const next = await frames.next();
    return next.done === true ? undefined : next.value;
  };
}

/** Plays SESSION's client side with `init` as the first frame; resolves with what the peer sent back. */
async function playSession(
  init: unknown,
  options: ReplayOptions = {},
): Promise<{ frames: string[]; error?: SdkError; verify: () => void }> {
  const replay = replayTransport(SESSION, options);
  const channel = await replay.connect();
  const next = reader(channel);
  const frames: string[] = [];
  try {
    channel.send(JSON.stringify(init));
    frames.push((await next()) as string);
    channel.send(JSON.stringify({ userInput: { parts: [{ text: "hi" }] } }));
    frames.push((await next()) as string);
    await channel.close();
    return { frames, verify: () => replay.verify() };
  } catch (error) {
    return { frames, error: SdkError.from(error), verify: () => replay.verify() };
  }
}

describe("replayTransport, rule by rule", () => {
  const recordedInit = {
    config: {
      cascadeId: "conversation-0000000000000000000000000001",
      workspaces: [{ filesystemWorkspace: { directory: "/recorded" } }],
    },
  };

  it("answers each client frame with the peer's recorded frames, and verify() passes once all was played", async () => {
    const { frames, error, verify } = await playSession(recordedInit, { match: "strict" });
    expect(error).toBeUndefined();
    expect(frames.map((f) => Object.keys(JSON.parse(f) as object)[2])).toEqual([
      "initializeConversationResponse",
      "stepUpdate",
    ]);
    expect(() => verify()).not.toThrow();
  });

  it("strict mode fails on fields in another order; lenient mode does not", async () => {
    const reordered = {
      config: { workspaces: recordedInit.config.workspaces, cascadeId: recordedInit.config.cascadeId },
    };
    const strict = await playSession(reordered, { match: "strict" });
    expect(strict.error?.code).toBe(ErrorCode.ProtocolError);
    expect(strict.error?.message).toContain(
      "at config: fields in another order: expected cascadeId,workspaces, got workspaces,cascadeId",
    );
    expect(() => strict.verify()).toThrow(strict.error);
    const lenient = await playSession(reordered);
    expect(lenient.error).toBeUndefined();
  });

  it("lenient mode maps an id the client generated differently, and the peer's later frames carry the live one", async () => {
    const live = "conversation-ffffffffffffffffffffffffffff";
    const { frames, error, verify } = await playSession({ config: { ...recordedInit.config, cascadeId: live } });
    expect(error).toBeUndefined();
    expect(frames.every((frame) => frame.includes(live) && !frame.includes("0000000000000000000000000001"))).toBe(true);
    verify();
    const strict = await playSession({ config: { ...recordedInit.config, cascadeId: live } }, { match: "strict" });
    expect(strict.error?.message).toContain("at config.cascadeId: differs");
  });

  it("lenient mode leaves out the paths the user lists, and nothing else", async () => {
    const elsewhere = {
      config: { ...recordedInit.config, workspaces: [{ filesystemWorkspace: { directory: "/elsewhere" } }] },
    };
    const failed = await playSession(elsewhere);
    expect(failed.error?.message).toContain("at config.workspaces[0].filesystemWorkspace.directory: differs");
    expect(failed.error?.message).toContain('expected: "/recorded"');
    expect(failed.error?.message).toContain('got:      "/elsewhere"');
    expect((await playSession(elsewhere, { ignore: ["config.workspaces"] })).error).toBeUndefined();
    expect((await playSession(elsewhere, { ignore: ["**.directory"] })).error).toBeUndefined();
    expect((await playSession(elsewhere, { ignore: ["config.*.*.filesystemWorkspace"] })).error).toBeUndefined();
    const extra = await playSession(
      { config: { ...recordedInit.config, skillsPaths: ["/s"] } },
      { ignore: ["config.workspaces"] },
    );
    expect(extra.error?.message).toContain("at config.skillsPaths: not in the trace");
  });

  it("lenient mode still requires the same kind of frame", async () => {
    const replay = replayTransport(SESSION);
    const channel = await replay.connect();
    const next = reader(channel);
    channel.send(JSON.stringify({ haltRequest: true }));
    await expect(next()).rejects.toThrow(/at the frame: expected a config frame, got haltRequest/);
  });

  it("a redacted string in the trace matches whatever the client sends in its place", async () => {
    const replay = replayTransport(
      traceOf(
        open(),
        client(1, {
          config: {
            models: [{ geminiApiEndpoint: { apiKey: REDACTED, baseUrl: `https://x.example/?key=${REDACTED}` } }],
          },
        }),
        peer(2, { seqNum: "1", initializeConversationResponse: { cascadeId: "c" } }),
      ),
      { match: "strict" },
    );
    const channel = await replay.connect();
    channel.send(
      JSON.stringify({
        config: {
          models: [{ geminiApiEndpoint: { apiKey: "AIza-real-key", baseUrl: "https://x.example/?key=real" } }],
        },
      }),
    );
    expect(await reader(channel)()).toContain("initializeConversationResponse");
    replay.verify();
  });

  it("fails with DeadlineExceeded, naming the frame, when the client never sends what the trace has next", async () => {
    const replay = replayTransport(SESSION, { waitTimeoutMs: 20 });
    const channel = await replay.connect();
    const error = await reader(channel)().then(
      () => undefined,
      (e: unknown) => SdkError.from(e),
    );
    expect(error?.code).toBe(ErrorCode.DeadlineExceeded);
    expect(error?.message).toMatch(
      /^replay: waited 20 ms at trace line 3 \(connection 0, client frame 1 of 2\) for the client to send a config frame from the client; it sent nothing$/,
    );
  });

  it("verify() says what was not played, and what the client sent past the trace", async () => {
    const early = replayTransport(SESSION);
    const channel = await early.connect();
    channel.send(JSON.stringify(recordedInit));
    await reader(channel)();
    await channel.close();
    expect(() => early.verify()).toThrow(
      /connection 0 stopped at trace line 5 \(a userInput frame from the client\); 1 client frame\(s\) of the trace were never sent/,
    );

    const chatty = replayTransport(traceOf(open(), client(1, { userInput: { parts: [] } })));
    const talk = await chatty.connect();
    talk.send(JSON.stringify({ userInput: { parts: [] } }));
    talk.send(JSON.stringify({ haltRequest: true }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(() => chatty.verify()).toThrow(
      /the client sent 1 frame\(s\) the trace does not have, the first: \{"haltRequest":true\}/,
    );

    const unopened = replayTransport(SESSION);
    expect(() => unopened.verify()).toThrow(/connection 0 \(trace line 2\) was never opened/);
  });

  it("replays a peer that closed or dropped, a refused connect, and refuses a connect the trace does not have", async () => {
    const replay = replayTransport(
      traceOf(
        { kind: "connectError", t: 0, c: 0, error: { code: "PermissionDenied", message: "wrong key" } },
        open(1, 1),
        peer(2, { seqNum: "1", initializeConversationResponse: {} }, 1),
        {
          kind: "close",
          t: 3,
          c: 1,
          by: "peer",
          error: { code: "HarnessCrashed", message: "harness exited with code 1" },
        },
      ),
    );
    await expect(replay.connect()).rejects.toMatchObject({ code: ErrorCode.PermissionDenied, message: "wrong key" });
    const channel = await replay.connect();
    const next = reader(channel);
    expect(await next()).toContain("initializeConversationResponse");
    await expect(next()).rejects.toMatchObject({
      code: ErrorCode.HarnessCrashed,
      message: "harness exited with code 1",
    });
    expect(() => channel.send("{}")).toThrow(/closed/);
    await expect(replay.connect()).rejects.toMatchObject({
      code: ErrorCode.FailedPrecondition,
      message: "replay: connect() number 3, but the trace holds 2 connection(s)",
    });
  });

  it("goes fast by default, keeps the recorded pace when asked, or a chosen factor of it", async () => {
    // A minute between two frames: replayed fast, the test would time out otherwise.
    const slow = traceOf(open(), peer(10, { seqNum: "1", a: 1 }), peer(60_010, { seqNum: "2", b: 1 }));
    const fast = reader(await replayTransport(slow).connect());
    await fast();
    await fast();
    const paced = traceOf(
      open(),
      peer(0, { seqNum: "1", a: 1 }),
      peer(150, { seqNum: "2", b: 1 }),
      peer(300, { seqNum: "3", c: 1 }),
    );
    for (const [speed, least] of [
      ["recorded", 300],
      [3, 100],
    ] as const) {
      // Measured from before connect(): the pacing clock starts when the channel opens.
      const started = performance.now();
      const next = reader(await replayTransport(paced, { speed }).connect());
      for (let i = 0; i < 3; i++) await next();
      expect(performance.now() - started).toBeGreaterThanOrEqual(least - 2); // timers may fire a millisecond early
    }
    expect(() => replayTransport(paced, { speed: 0 })).toThrow(/positive factor/);
  });
});

describe("parseTrace", () => {
  it("names the line that is wrong, refuses a newer version, and skips event kinds it does not know", () => {
    expect(() => parseTrace("")).toThrow(/the trace is empty/);
    expect(() => parseTrace('{"kind":"frame"}')).toThrow(/trace line 1 is not a trace header/);
    expect(() => parseTrace(`${JSON.stringify(HEADER)}\nnot json`)).toThrow(/trace line 2 is not JSON/);
    expect(() => parseTrace(JSON.stringify({ ...HEADER, version: 2 }))).toThrow(
      /format version 2; this SDK reads version 1 and older: upgrade/,
    );
    const trace = parseTrace(
      traceOf(open(), { kind: "annotation", t: 1, c: 0, note: "from a later version" }, peer(2, { x: 1 })),
    );
    expect(trace.events.map((e) => [e.kind, e.line])).toEqual([
      ["open", 2],
      ["frame", 4],
    ]);
  });
});

describe("a session recorded from the reference harness, replayed", () => {
  let workspace = "";
  let harness: InMemoryHarness;
  const add = defineTool({
    name: "add",
    description: "Adds two numbers",
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  });

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-replay-"));
    harness = createInMemoryHarness({
      workspace,
      script: parseScript({
        turns: [
          { calls: [{ toolCalls: [{ name: "add", args: { a: 2, b: 3 } }] }, { text: "The sum is {{result.sum}}." }] },
        ],
      }),
    });
  });

  afterAll(async () => {
    await harness?.close();
    if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  });

  it("gives the same answer with no harness at all, under a conversation id generated anew", async () => {
    const sink = createMemoryTraceSink();
    const recording = recordingTransport(harness, sink);
    const recorded = await Agent.builder()
      .transport(recording)
      .workspaces(workspace)
      .conversationId(crypto.randomUUID())
      .tool(add)
      .allowAll()
      .build()
      .start();
    const original = await recorded.chatToCompletion("add 2 and 3");
    await recorded.stop();
    await recording.close();

    const replay = replayTransport(sink.text());
    const id = crypto.randomUUID();
    const agent = await Agent.builder()
      .transport(replay)
      .workspaces(workspace)
      .conversationId(id)
      .tool(add)
      .allowAll()
      .build()
      .start();
    const replayed = await agent.chatToCompletion("add 2 and 3");
    await agent.stop();
    replay.verify();
    expect(replayed.text).toBe("The sum is 5.");
    expect(replayed.text).toBe(original.text);
    expect(replayed.usageMetadata).toEqual(original.usageMetadata);
    expect(agent.conversationId).toBe(id);
  });
});
