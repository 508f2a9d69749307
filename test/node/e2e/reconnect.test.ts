import { mkdtemp, rm } from "node:fs/promises";
import { createServer, connect, type AddressInfo, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyDecision } from "@antigravity-ts/sdk/wire";
import {
  Agent,
  ErrorCode,
  createHarnessConnection,
  SdkError,
  StepSource,
  WebSocketTransport,
  type ReconnectedEvent,
  type Step,
  type StartedAgent,
} from "@antigravity-ts/node";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 11 item 4: a WebSocketTransport with `reconnect` to a listening reference harness, through
// a TCP proxy on 127.0.0.1 that the test cuts. 100 forced disconnects (between turns and mid-turn):
// every step seen live is in the history, no step id twice, the history equals what the harness
// itself replays, and the next turn works. A harness that forgot the session → NotFound, no loop.

const SCRIPT = fileURLToPath(new URL("./scripts/reconnect-script.json", import.meta.url));
const BOUND_MS = 20_000;

/** A TCP relay to `target()` whose live connections {@link cut} destroys at once. */
async function startProxy(target: () => number): Promise<{ port: number; cut(): void; close(): Promise<void> }> {
  const live = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target(), "127.0.0.1");
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      live.add(a);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        live.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      for (const socket of live) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of live) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Resolves once `check()` holds, polling; rejects after `BOUND_MS` naming `what`. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !check(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() - started > BOUND_MS) throw new Error(`${what} did not happen within ${BOUND_MS} ms`);
  }
}

describe("WebSocketTransport reconnect", () => {
  let workspace = "";
  let harness: ListeningHarness;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  const reconnects: ReconnectedEvent[] = [];

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-reconnect-"));
    harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "reconnect-key-0123456789" });
    proxy = await startProxy(() => harness.port);
  });

  afterAll(async () => {
    await proxy.close();
    await harness.stop();
    await killAllHarnesses();
    await rm(workspace, { recursive: true, force: true });
  });

  const transport = (): WebSocketTransport =>
    new WebSocketTransport({
      host: "127.0.0.1",
      port: proxy.port,
      apiKey: harness.apiKey,
      reconnect: {
        maxAttempts: 20,
        initialDelayMs: 1,
        maxDelayMs: 50,
        onReconnected: (event) => reconnects.push(event),
      },
    });

  it("100 forced disconnects between turns and mid-turn: 0 lost, 0 duplicated steps, the next turn works", async () => {
    const agent: StartedAgent = await Agent.builder()
      .transport(transport())
      .workspaces(workspace)
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS });
    const connection = agent.connection;
    const seen = new Set<string>();
    let interrupted = 0;
    try {
      for (let i = 0; i < 100; i++) {
        const before = reconnects.length;
        const midTurn = i % 4 === 0;
        await connection.send(midTurn ? `story ${i}` : `ping ${i}`, { timeoutMs: BOUND_MS });
        let cut = false;
        let last: Step | undefined;
        const failure = await (async () => {
          for await (const step of connection.receiveSteps({ timeoutMs: BOUND_MS })) {
            seen.add(step.id);
            last = step;
            if (midTurn && !cut && step.source === StepSource.Model && step.content.length > 0) {
              cut = true;
              proxy.cut();
            }
          }
          return undefined;
        })().catch((error: unknown) => error);
        if (midTurn) {
          // The harness stops a turn whose client left: the turn ends as interrupted, typed.
          expect(failure).toBeInstanceOf(SdkError);
          expect(failure).toMatchObject({
            code: ErrorCode.ConnectionClosed,
            details: { interruptedByDisconnect: true },
          });
          interrupted++;
        } else {
          expect(failure).toBeUndefined();
          expect(last?.content).toBe(`pong to ping ${i}`);
          proxy.cut();
        }
        await until(() => reconnects.length === before + 1, `reconnect #${i + 1}`);
      }
      expect(reconnects).toHaveLength(100);
      expect(reconnects.filter((event) => event.interruptedTurn)).toHaveLength(interrupted);
      expect(new Set(reconnects.map((event) => event.conversationId))).toEqual(new Set([agent.conversationId]));

      // The next turn works on the resumed session.
      const response = await agent.chatToCompletion("ping after", { timeoutMs: BOUND_MS });
      expect(response.text).toContain("pong to ping after");

      const ids = (await agent.conversation().history()).map((step) => step.id);
      expect(new Set(ids).size).toBe(ids.length); // 0 duplicated
      for (const id of seen) expect(ids).toContain(id); // 0 lost of what the turns showed
      expect(ids.length).toBeGreaterThan(200);
      const conversationId = agent.conversationId;
      await agent.stop();

      // What the harness itself recorded, replayed to a fresh client, is exactly that history.
      const fresh = await Agent.builder()
        .transport(new WebSocketTransport({ host: "127.0.0.1", port: harness.port, apiKey: harness.apiKey }))
        .workspaces(workspace)
        .allowAll()
        .conversationId(conversationId)
        .sessionContinuationMode("resume")
        .build()
        .start({ timeoutMs: BOUND_MS });
      try {
        expect(fresh.connection.initialHistory.map((step) => step.id)).toEqual(ids);
      } finally {
        await fresh.stop();
      }
    } finally {
      await agent.stop();
    }
  }, 240_000);

  it("a connection closed by the user never reconnects", async () => {
    const agent = await Agent.builder()
      .transport(transport())
      .workspaces(workspace)
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS });
    const before = reconnects.length;
    await agent.stop();
    proxy.cut();
    const error = await agent.connection.send("ping closed").then(
      () => new Error("expected ConnectionClosed"),
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: ErrorCode.ConnectionClosed });
    expect((error as SdkError).message).toContain("disconnect()");
    expect(reconnects.length).toBe(before);
  }, 60_000);

  it("a drop while a tool call waits for its confirmation keeps the turn: the harness holds it, the SDK answers again", async () => {
    let asked = 0;
    const before = reconnects.length;
    // A static ASK_USER rule: the harness asks through a WAITING_FOR_USER step (§8) and holds it across the drop.
    const connection = await createHarnessConnection({
      transport: transport(),
      timeoutMs: BOUND_MS,
      config: {
        workspaces: [{ workspaceType: { case: "filesystemWorkspace", value: { directory: workspace } } }],
        harnessSideTools: { runCommand: { enabled: true } },
        policyConfig: {
          rules: [
            { tool: "run_command", decision: PolicyDecision.ASK_USER, name: "ask", isDynamic: false, ruleId: "" },
          ],
        },
      },
      confirmTool: async () => {
        if (++asked === 1) {
          proxy.cut();
          await until(() => reconnects.length === before + 1, "the reconnect while waiting");
        }
        return true;
      },
    });
    try {
      await connection.send("confirm it", { timeoutMs: BOUND_MS });
      const steps: Step[] = [];
      for await (const step of connection.receiveSteps({ timeoutMs: BOUND_MS })) steps.push(step);
      expect(steps.at(-1)?.content).toContain("ran: confirmed-42");
      expect(asked).toBe(2); // answered again after the harness re-sent the held request
      expect(reconnects.at(-1)).toMatchObject({ interruptedTurn: false, conversationId: connection.conversationId });
    } finally {
      await connection.disconnect();
    }
  }, 60_000);

  it("bounded: a harness that stays away closes the connection after maxAttempts with a typed error", async () => {
    const down = await startProxy(() => harness.port);
    const agent = await Agent.builder()
      .transport(
        new WebSocketTransport({
          host: "127.0.0.1",
          port: down.port,
          apiKey: harness.apiKey,
          reconnect: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 10 },
        }),
      )
      .workspaces(workspace)
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS });
    const connection = agent.connection;
    try {
      await connection.send("story away", { timeoutMs: BOUND_MS });
      const interrupted = await (async () => {
        for await (const step of connection.receiveSteps({ timeoutMs: BOUND_MS })) {
          if (step.source === StepSource.Model && step.content.length > 0) await down.close(); // cuts and refuses every new socket
        }
      })().then(
        () => new Error("expected an interrupted turn"),
        (e: unknown) => e,
      );
      expect(interrupted).toMatchObject({
        code: ErrorCode.ConnectionClosed,
        details: { interruptedByDisconnect: true },
      });
      // Reconnecting: busy; after 3 refused attempts the connection closes with the last error.
      const error = await connection.waitForIdle({ timeoutMs: BOUND_MS }).then(
        () => new Error("expected a closed connection"),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SdkError);
      expect([ErrorCode.Unavailable, ErrorCode.ConnectionClosed]).toContain((error as SdkError).code);
      await expect(connection.send("ping")).rejects.toMatchObject({ code: (error as SdkError).code });
    } finally {
      await agent.stop();
    }
  }, 60_000);

  it("a harness that forgot the session: NotFound after one attempt, no endless loop, nothing hangs", async () => {
    const agent = await Agent.builder()
      .transport(transport())
      .workspaces(workspace)
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS });
    try {
      const first = await agent.chatToCompletion("ping one", { timeoutMs: BOUND_MS });
      expect(first.text).toContain("pong to ping one");
      // A new harness process (memory store: it knows no session) takes the old one's place.
      const old = harness;
      harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: old.apiKey });
      await old.stop();
      proxy.cut();
      const error = await agent.connection
        .waitForIdle({ timeoutMs: BOUND_MS })
        .then(() => agent.connection.send("ping two", { timeoutMs: BOUND_MS }))
        .then(
          () => new Error("expected NotFound"),
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(SdkError);
      expect(error).toMatchObject({ code: ErrorCode.NotFound, retryable: false });
      expect((error as SdkError).message).toContain(`no stored session ${agent.conversationId}`);
    } finally {
      await agent.stop();
    }
  }, 60_000);
});
