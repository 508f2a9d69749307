import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, ErrorCode, allowAll, askUser } from "@antigravity-ts/sdk";
import { ensureReferenceHarness, harnessEnv, processAlive, waitUntilGone } from "@antigravity-ts/test-kit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { acpAgent, acpWebSocketStream } from "@antigravity-ts/sdk/acp";
import { createAcpBridge, type AcpBridge, type AcpProcess } from "./index.js";

// createAcpBridge with `antigravity-harness --acp` (scripted model) behind it: the SDK's acpAgent
// over acpWebSocketStream as a page would drive it, and raw sockets for what a hostile page sends.

const ORIGIN = "https://app.example";
const TOKEN = "bridge-token-0123456789";
const SECRET = "bridge-secret-key-9876543210";
const SCRIPT = {
  turns: [
    { match: "hello", calls: [{ text: "Hello through the bridge" }] },
    {
      match: "run it",
      calls: [{ toolCalls: [{ name: "run_command", args: { CommandLine: "echo ran > ran.txt" } }] }, { text: "Ran." }],
    },
    {
      match: "slow",
      calls: [{ text: Array.from({ length: 400 }, (_, i) => `word${i}`).join(" "), chunkWords: 1, chunkDelayMs: 50 }],
    },
  ],
};

/** One raw page socket: what it received, in order, and how it closed. */
interface RawPage {
  socket: WebSocket;
  received: string[];
  send(message: unknown): void;
  /** The next message with this id (an answer), waiting for it. */
  answer(id: number | string | null): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
}

function rawPage(url: string, options: { origin?: string; token?: string } = {}): Promise<RawPage> {
  const token = options.token ?? TOKEN;
  const socket = new WebSocket(token === "" ? url : `${url}?token=${token}`, { origin: options.origin ?? ORIGIN });
  const received: string[] = [];
  const waiters: (() => void)[] = [];
  socket.on("message", (data) => {
    received.push(String(data));
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once("close", (code, reason) => {
      resolve({ code, reason: String(reason) });
      for (const wake of waiters.splice(0)) wake();
    }),
  );
  const page: RawPage = {
    socket,
    received,
    closed,
    send: (message) => socket.send(typeof message === "string" ? message : JSON.stringify(message)),
    async answer(id) {
      for (;;) {
        const found = received
          .map((m) => JSON.parse(m) as Record<string, unknown>)
          .find((m) => m["id"] === id && !("method" in m));
        if (found !== undefined) return found;
        if (socket.readyState === WebSocket.CLOSED) throw new Error(`closed before an answer to ${id}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve(page));
    socket.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.once("error", reject);
  });
}

const initialize = (id = 0, clientCapabilities: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities },
});

describe("createAcpBridge", () => {
  let bin = "";
  let root = "";
  let workspace = "";
  let bridge: AcpBridge;
  const pids: number[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    bin = await ensureReferenceHarness();
    root = mkdtempSync(join(tmpdir(), "acp-bridge-"));
    workspace = join(root, "ws");
    const script = join(root, "script.json");
    writeFileSync(script, JSON.stringify(SCRIPT));
    mkdirSync(workspace);
    bridge = await createAcpBridge({
      command: bin,
      args: ["--acp", "--script", script, "--storage", join(root, "storage")],
      env: harnessEnv(undefined, { GEMINI_API_KEY: SECRET }),
      cwd: workspace,
      allowedOrigins: [ORIGIN],
      token: TOKEN,
      maxFrameBytes: 64 * 1024,
      onProcess: (agent: AcpProcess) => pids.push(agent.pid),
      log: (line) => logs.push(line),
    });
  }, 300_000);
  afterEach(async () => {
    for (const pid of pids.splice(0)) expect(await waitUntilGone(pid)).toBe(true);
  });
  afterAll(async () => {
    await bridge?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** A page's agent: the core acpAgent over the bridge's socket; its cwd is the page's guess, replaced by the bridge. */
  const pageAgent = (received: string[], policies = [allowAll()]) =>
    Agent.builder()
      .connection(
        acpAgent({
          stream: () => {
            const socket = new WebSocket(bridge.url ?? "", [`antigravity.token.${TOKEN}`], { origin: ORIGIN });
            socket.on("message", (data) => received.push(String(data)));
            return acpWebSocketStream(socket as unknown as Parameters<typeof acpWebSocketStream>[0]);
          },
          cwd: "/page/guess",
        }),
      )
      .policies(policies)
      .build()
      .start();

  it("a page's turn, a permission its policy allows, a cancel; the key never reaches it; its process ends with it", {
    timeout: 120_000,
  }, async () => {
    const received: string[] = [];
    const asked: string[] = [];
    const agent = await pageAgent(received, [
      askUser("run_command", (call) => {
        asked.push(call.name);
        return true;
      }),
      allowAll(),
    ]);
    expect((await agent.chatToCompletion("hello")).text).toBe("Hello through the bridge");
    expect((await agent.chatToCompletion("run it")).text).toBe("Ran.");
    expect(asked).toEqual(["run_command"]);
    // The command ran in the bridge's cwd, not the directory the page named.
    expect(readdirSync(workspace)).toContain("ran.txt");
    const slow = agent.chat("slow");
    for await (const chunk of slow) if (chunk.type === "text") break;
    await slow.abort();
    expect((await slow.outcome()).error?.code).toBe(ErrorCode.Canceled);
    expect(pids).toHaveLength(1);
    const pid = pids[0] ?? -1;
    expect(processAlive(pid)).toBe(true);
    await agent.stop();
    expect(await waitUntilGone(pid)).toBe(true);
    expect(received.length).toBeGreaterThan(10);
    expect(received.join("\n")).not.toContain(SECRET);
  });

  it("refuses a page from another origin (403) or without the token (401), starting no process", async () => {
    await expect(rawPage(bridge.url ?? "", { origin: "https://evil.example" })).rejects.toThrow("HTTP 403");
    await expect(rawPage(bridge.url ?? "", { token: "" })).rejects.toThrow("HTTP 401");
    await expect(rawPage(bridge.url ?? "", { token: "wrong-token-0123456789" })).rejects.toThrow("HTTP 401");
    expect(pids).toHaveLength(0);
    await expect(
      Agent.builder()
        .connection(
          acpAgent({
            stream: () =>
              acpWebSocketStream(
                new WebSocket(bridge.url ?? "", { origin: "https://evil.example" }) as unknown as Parameters<
                  typeof acpWebSocketStream
                >[0],
              ),
            cwd: "/",
          }),
        )
        .allowAll()
        .build()
        .start(),
    ).rejects.toMatchObject({ code: ErrorCode.Unavailable });
  });

  it("answers malformed and forbidden messages with JSON-RPC errors and keeps the page and the bridge", {
    timeout: 60_000,
  }, async () => {
    const page = await rawPage(bridge.url ?? "");
    page.send("not json");
    expect((await page.answer(null))["error"]).toMatchObject({ code: -32700 });
    page.received.length = 0;
    page.send([initialize()]);
    expect((await page.answer(null))["error"]).toMatchObject({ code: -32600 });
    page.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    expect((await page.answer(1))["error"]).toMatchObject({ code: -32600, message: "send initialize first" });
    expect(pids).toHaveLength(0); // nothing admitted yet: no process
    page.send(initialize(2, { terminal: true }));
    expect(JSON.stringify(await page.answer(2))).toContain("terminal");
    page.send(initialize(3, { fs: { readTextFile: true, writeTextFile: false } }));
    expect((await page.answer(3))["error"]).toMatchObject({ code: -32602 });
    page.send(initialize(4));
    expect((await page.answer(4))["result"]).toMatchObject({ protocolVersion: 1 });
    expect(pids).toHaveLength(1);
    page.send({ jsonrpc: "2.0", id: 5, method: "session/list", params: {} });
    expect((await page.answer(5))["error"]).toMatchObject({ code: -32601 });
    const stdio = { name: "x", command: "/bin/sh", args: ["-c", "touch pwned"], env: [] };
    page.send({ jsonrpc: "2.0", id: 6, method: "session/new", params: { cwd: "/", mcpServers: [stdio] } });
    expect((await page.answer(6))["error"]).toMatchObject({ code: -32602 });
    const outside = { cwd: "/", mcpServers: [], additionalDirectories: ["/etc"] };
    page.send({ jsonrpc: "2.0", id: 11, method: "session/new", params: outside });
    expect(JSON.stringify((await page.answer(11))["error"])).toContain("additionalDirectories");
    page.send({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: "not-mine", prompt: [] } });
    expect((await page.answer(7))["error"]).toMatchObject({ code: -32602 });
    page.send({ jsonrpc: "2.0", id: 8, method: "authenticate", params: { methodId: "gemini-api-key" } });
    expect((await page.answer(8))["error"]).toMatchObject({ code: -32602 });
    page.send({ jsonrpc: "2.0", id: 99, result: { outcome: { outcome: "cancelled" } } }); // answers nothing: dropped
    page.send({ jsonrpc: "2.0", id: 9, method: "session/new", params: { cwd: "/elsewhere", mcpServers: [] } });
    const created = await page.answer(9);
    const sessionId = (created["result"] as { sessionId: string }).sessionId;
    expect(sessionId).not.toBe("");
    page.send({
      jsonrpc: "2.0",
      id: 10,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "hello" }] },
    });
    expect((await page.answer(10))["result"]).toMatchObject({ stopReason: "end_turn" });
    expect(page.received.join("\n")).toContain("agent_message_chunk");
    expect(page.received.join("\n")).not.toContain(SECRET);
    expect(readdirSync(workspace)).not.toContain("pwned");

    // Another page (another token) cannot load this page's session; its own agent starts.
    const other = await createAcpBridgePage("other-token-0123456789");
    other.send(initialize(1));
    await other.answer(1);
    other.send({ jsonrpc: "2.0", id: 2, method: "session/load", params: { sessionId, cwd: "/", mcpServers: [] } });
    expect(JSON.stringify((await other.answer(2))["error"])).toContain("only the sessions it created");
    other.socket.close();
    page.socket.close();
    await Promise.all([page.closed, other.closed]);
    expect(logs.join("\n")).toContain("refused a message");
  });

  /** A second bridge sharing nothing but the test's agent, for a page with another token. */
  let otherBridge: AcpBridge | undefined;
  async function createAcpBridgePage(token: string): Promise<RawPage> {
    otherBridge ??= await createAcpBridge({
      command: bin,
      args: ["--acp", "--storage", join(root, "storage")],
      env: harnessEnv(),
      cwd: workspace,
      allowedOrigins: [ORIGIN],
      token: (presented) => presented === TOKEN || presented === token,
      onProcess: (agent: AcpProcess) => pids.push(agent.pid),
      log: () => {},
    });
    return rawPage(otherBridge.url ?? "", { token });
  }
  afterAll(() => otherBridge?.close());

  it("caps pages at maxConnections (503) and closes a page that never initializes (1008), starting no process", async () => {
    const small = await createAcpBridge({
      command: bin,
      args: ["--acp"],
      env: harnessEnv(),
      cwd: workspace,
      allowedOrigins: [ORIGIN],
      token: TOKEN,
      maxConnections: 1,
      initializeTimeoutMs: 300,
      onProcess: (agent: AcpProcess) => pids.push(agent.pid),
      log: () => {},
    });
    try {
      const silent = await rawPage(small.url ?? "");
      await expect(rawPage(small.url ?? "")).rejects.toThrow("HTTP 503");
      expect(await silent.closed).toEqual({ code: 1008, reason: "no initialize within 0.3 s" });
      expect(pids).toHaveLength(0);
    } finally {
      await small.close();
    }
  });

  it("closes a page that sends a frame over maxFrameBytes (1009) and ends its process; other pages go on", {
    timeout: 60_000,
  }, async () => {
    const page = await rawPage(bridge.url ?? "");
    page.send(initialize(1));
    await page.answer(1);
    const pid = pids[0] ?? -1;
    page.send({
      jsonrpc: "2.0",
      id: 2,
      method: "session/new",
      params: { cwd: "/", mcpServers: [], pad: "x".repeat(70_000) },
    });
    expect((await page.closed).code).toBe(1009);
    expect(await waitUntilGone(pid)).toBe(true);
    const agent = await pageAgent([]);
    expect((await agent.chatToCompletion("hello")).text).toBe("Hello through the bridge");
    await agent.stop();
  });

  it("a page that goes mid-turn takes its agent process with it", { timeout: 60_000 }, async () => {
    const page = await rawPage(bridge.url ?? "");
    page.send(initialize(1));
    await page.answer(1);
    page.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    const sessionId = ((await page.answer(2))["result"] as { sessionId: string }).sessionId;
    const before = page.received.length;
    page.send({
      jsonrpc: "2.0",
      id: 3,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "slow" }] },
    });
    while (!page.received.slice(before).some((m) => m.includes("agent_message_chunk")))
      await new Promise<void>((resolve) => page.socket.once("message", () => resolve()));
    const pid = pids[0] ?? -1;
    expect(processAlive(pid)).toBe(true);
    page.socket.terminate();
    expect(await waitUntilGone(pid)).toBe(true);
  });
});
