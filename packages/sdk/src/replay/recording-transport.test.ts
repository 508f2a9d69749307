import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInMemoryHarness, parseScript, type InMemoryHarness } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  ErrorCode,
  SdkError,
  createInMemoryTransport,
  defineTool,
  type CallOptions,
  type Channel,
  type Transport,
} from "../index.js";
import { createFakeHarnessTransport } from "../transport/in-memory-harness.js";
import { createMemoryTraceSink, parseTrace, recordingTransport, REDACTED, type TraceFrameEvent } from "./index.js";

// The recorder against the real reference harness in memory, and against scripted peers for what
// a real one never does (echo a secret, refuse a connection, expose a handshake).

const echoTool = defineTool({
  name: "echo",
  description: "Echoes its text",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  call: ({ text }: { text: string }) => ({ echoed: text }),
});

/** An init frame without `models` and `mcpServers`. */
function withoutRemotes(frame: string): string {
  const { config } = JSON.parse(frame) as { config: Record<string, unknown> };
  delete config["models"];
  delete config["mcpServers"];
  return JSON.stringify({ config });
}

let workspace = "";
let harness: InMemoryHarness;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "antigravity-recorder-"));
  const script = parseScript({
    turns: [
      {
        match: "echo",
        calls: [
          { toolCalls: [{ name: "echo", args: { text: "user-token-6c1f2a9d" } }] },
          { text: "Echoed {{result.echoed}}." },
        ],
      },
      { calls: [{ thinking: "Short.", text: "Hello there." }] },
    ],
  });
  harness = createInMemoryHarness({ workspace, script });
});

afterAll(async () => {
  await harness?.close();
  if (workspace !== "") await rm(workspace, { recursive: true, force: true });
});

describe("recordingTransport", () => {
  it("writes a header, then every frame of both directions in order with its time, and the close", async () => {
    const sink = createMemoryTraceSink();
    let clock = 1000;
    const transport = recordingTransport(harness, sink, { now: () => (clock += 5), meta: { scenario: "hello" } });
    const agent = await Agent.builder().transport(transport).workspaces(workspace).allowAll().build().start();
    expect((await agent.chatToCompletion("hi")).text).toBe("Hello there.");
    await agent.stop();
    await transport.close();

    const trace = parseTrace(sink.text());
    expect(trace.header).toMatchObject({
      kind: "header",
      format: "antigravity-trace",
      version: 1,
      wire: "localharness",
      era: "0.1.19",
      meta: { scenario: "hello" },
    });
    expect(trace.header.sdk.name).toBe("@antigravity-ts/sdk");
    expect(Date.parse(trace.header.recordedAt)).not.toBeNaN();
    const kinds = trace.events.map((e) =>
      e.kind === "frame"
        ? `${e.from}:${Object.keys(e.frame as object).find((k) => k !== "seqNum" && k !== "timestampMicros")}`
        : e.kind,
    );
    expect(kinds[0]).toBe("open");
    expect(kinds[1]).toBe("client:config");
    expect(kinds[2]).toBe("peer:initializeConversationResponse");
    expect(kinds[3]).toBe("client:userInput");
    expect(kinds).toContain("peer:usageUpdate");
    expect(kinds.at(-1)).toBe("close");
    expect(trace.events.at(-1)).toMatchObject({ kind: "close", by: "client" });
    expect(trace.events.every((e) => e.c === 0)).toBe(true);
    const times = trace.events.map((e) => e.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThan(0);
    // The frames pass through unchanged: what was recorded is what the harness sent.
    const reply = trace.events.find(
      (e): e is TraceFrameEvent & { line: number } =>
        e.kind === "frame" && e.from === "peer" && JSON.stringify(e.frame).includes("Hello there."),
    );
    expect(reply).toBeDefined();
  });

  it("keeps keys, tokens, headers, the handshake's key and environment, and the user's secrets out of every recorded byte", async () => {
    const geminiKey = "AIzaSy-test-gemini-key-0123456789";
    const bearer = "bearer-token-d41d8cd98f00b204";
    const urlKey = "query-key-9e107d9d372bb682";
    const harnessKey = "harness-key-5d41402abc4b2a76";
    const envSecret = "env-secret-7215ee9c7d9dc229";
    const userToken = "user-token-6c1f2a9d"; // a tool result carries it: only the user's `secrets` can know
    // The harness gets the init without the model and MCP server (it would call them); the recorder sees all of it.
    const withHandshake: Transport = {
      async connect(options) {
        const channel = await harness.connect(options);
        return {
          send: (frame: string) => channel.send(frame.startsWith('{"config"') ? withoutRemotes(frame) : frame),
          frames: () => channel.frames(),
          close: (closeOptions?: CallOptions) => channel.close(closeOptions),
          handshake: {
            input: { storageDirectory: "/storage", env: { GEMINI_API_KEY: envSecret } },
            output: { port: 4242, apiKey: harnessKey },
          },
        } as Channel;
      },
    };
    const sink = createMemoryTraceSink();
    const transport = recordingTransport(withHandshake, sink, { secrets: [userToken] });
    const agent = await Agent.builder()
      .transport(transport)
      .workspaces(workspace)
      .apiKey(geminiKey)
      .mcpServers([
        {
          name: "docs",
          transport: {
            case: "http",
            value: { url: `https://mcp.example/sse?key=${urlKey}`, headers: { Authorization: `Bearer ${bearer}` } },
          },
        },
      ])
      .tool(echoTool)
      .allowAll()
      .build()
      .start();
    expect((await agent.chatToCompletion("echo please")).text).toBe(`Echoed ${userToken}.`);
    await agent.stop();
    await transport.close();

    const bytes = sink.text();
    for (const secret of [geminiKey, bearer, urlKey, harnessKey, envSecret, userToken])
      expect(bytes).not.toContain(secret);
    const trace = parseTrace(bytes);
    expect(trace.header.redaction).toEqual({ defaults: true, custom: true });
    const handshake = trace.events.find((e) => e.kind === "handshake");
    expect(handshake).toMatchObject({
      input: { storageDirectory: "/storage", env: { GEMINI_API_KEY: REDACTED } },
      output: { port: 4242, apiKey: REDACTED },
    });
    const init = trace.events.find(
      (e): e is TraceFrameEvent & { line: number } => e.kind === "frame" && e.from === "client",
    ) as TraceFrameEvent;
    const config = JSON.stringify(init.frame);
    expect(config).toContain(`"apiKey":"${REDACTED}"`);
    expect(config).toContain(`"Authorization":"${REDACTED}"`);
    expect(config).toContain(`?key=${REDACTED}`);
    expect(bytes).toContain(`Echoed ${REDACTED}.`);
  });

  it("masks a key of the init frame wherever the peer echoes it later, and runs the user's hook last", async () => {
    const key = "AIzaSy-echoed-key-00112233";
    const peer = createFakeHarnessTransport(async (fake) => {
      const init = await fake.readInit();
      const models = JSON.stringify(init.config?.models ?? []);
      fake.respondInit({ cascadeId: "c".repeat(32) });
      await fake.expect("userInput");
      fake.sendRaw(JSON.stringify({ seqNum: "2", echo: `the config was ${models}`, note: "/home/someone/project" }));
      await fake.closedBySdk();
    });
    const sink = createMemoryTraceSink();
    const transport = recordingTransport(peer, sink, { redact: (value) => value.replace("/home/someone", "/HOME") });
    const channel = await transport.connect();
    channel.send(
      JSON.stringify({ config: { cascadeId: "", models: [{ name: "m", geminiApiEndpoint: { apiKey: key } }] } }),
    );
    const frames = channel.frames()[Symbol.asyncIterator]();
    await frames.next();
    channel.send(JSON.stringify({ userInput: { parts: [{ text: "hi" }] } }));
    await frames.next();
    await channel.close();
    await transport.close();
    expect(sink.text()).not.toContain(key);
    expect(sink.text()).toContain("/HOME/project");
    expect(sink.text()).not.toContain("/home/someone");
  });

  it("records a frame that is not JSON as text, and a connection the transport refused", async () => {
    const sink = createMemoryTraceSink();
    let attempts = 0;
    const flaky: Transport = {
      connect: async () => {
        if (attempts++ === 0) throw new SdkError(ErrorCode.PermissionDenied, "the harness refused the key");
        return createInMemoryTransport(async (server) => {
          server.send("not json");
          await server.close();
        }).connect();
      },
    };
    const transport = recordingTransport(flaky, sink);
    await expect(transport.connect()).rejects.toMatchObject({ code: ErrorCode.PermissionDenied });
    const channel = await transport.connect();
    const received: string[] = [];
    for await (const frame of channel.frames()) received.push(frame);
    expect(received).toEqual(["not json"]);
    await transport.close();
    const trace = parseTrace(sink.text());
    expect(trace.connections[0]).toMatchObject([
      { kind: "connectError", c: 0, error: { code: "PermissionDenied", message: "the harness refused the key" } },
    ]);
    expect(trace.connections[1]).toMatchObject([
      { kind: "open" },
      { kind: "frame", from: "peer", text: "not json" },
      { kind: "close", by: "peer" },
    ]);
  });

  it("records a peer that drops the connection with the error the client saw", async () => {
    const sink = createMemoryTraceSink();
    const transport = recordingTransport(
      createInMemoryTransport((server) =>
        server.drop(new SdkError(ErrorCode.HarnessCrashed, "harness exited with code 1")),
      ),
      sink,
    );
    const channel = await transport.connect();
    await expect(
      (async () => {
        for await (const _ of channel.frames());
      })(),
    ).rejects.toMatchObject({ code: ErrorCode.HarnessCrashed });
    await transport.close();
    expect(parseTrace(sink.text()).events.at(-1)).toMatchObject({
      kind: "close",
      by: "peer",
      error: { code: "HarnessCrashed", message: "harness exited with code 1" },
    });
  });

  it("streams to a WritableStream and closes it, and reports a sink that failed", async () => {
    const chunks: string[] = [];
    let closed = false;
    const stream = new WritableStream<string>({
      write: (chunk) => void chunks.push(chunk),
      close: () => void (closed = true),
    });
    const transport = recordingTransport(harness, stream);
    const agent = await Agent.builder().transport(transport).workspaces(workspace).allowAll().build().start();
    await agent.chatToCompletion("hi");
    await agent.stop();
    await transport.close();
    expect(closed).toBe(true);
    expect(chunks.every((chunk) => chunk.endsWith("\n") && chunk.indexOf("\n") === chunk.length - 1)).toBe(true);
    expect(parseTrace(chunks.join("")).events.filter((e) => e.kind === "frame").length).toBeGreaterThan(4);

    const broken = recordingTransport(harness, {
      write: () => {
        throw new Error("disk full");
      },
    });
    await expect(broken.flush()).rejects.toThrow("disk full");
    await expect(broken.close()).rejects.toThrow("disk full");
  });
});
