import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { silentTcpServer } from "@antigravity-ts/test-kit";
import { Agent, ErrorCode, SdkError, WebSocketTransport, allowAll, run, subprocessTransportFactory } from "./index.js";
import { liveChildCount } from "./subprocess/child-registry.js";

// Issue 26 item 5: a caller's own start({ timeoutMs }) keeps the detailed error (the URL and the
// stage where the harness stopped answering), a missing harness binary is not retryable, and a
// server that completes the upgrade and then stays silent fails within the documented default.
// Real sockets on 127.0.0.1 (the ws adapter @antigravity-ts/node registers); bounded waits only.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A WebSocket server that accepts the upgrade and never sends a frame. */
async function mutedWebSocketServer(): Promise<number> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => wss.once("listening", resolve));
  cleanups.push(async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return (wss.address() as AddressInfo).port;
}

async function startFailure(start: Promise<unknown>): Promise<SdkError> {
  const error = await start.then(
    () => new Error("start() succeeded"),
    (e: unknown) => e,
  );
  if (!(error instanceof SdkError)) throw error;
  return error;
}

function agentOn(port: number, options: { initTimeoutMs?: number } = {}): Agent {
  return Agent.builder()
    .transport(new WebSocketTransport({ port, env: {}, ...options }))
    .allowAll()
    .build();
}

describe("start({ timeoutMs }) keeps what helps", () => {
  it("a server that accepts TCP and never answers the upgrade: the URL and stage upgrade, under the caller's deadline", async () => {
    const server = await silentTcpServer();
    cleanups.push(server.close);
    const error = await startFailure(agentOn(server.port).start({ timeoutMs: 300 }));
    expect(error.code).toBe(ErrorCode.DeadlineExceeded);
    expect(error.details).toMatchObject({ url: `ws://127.0.0.1:${server.port}/`, stage: "upgrade", timeoutMs: 300 });
    expect(error.message).toContain(
      `the harness at ws://127.0.0.1:${server.port}/ accepted the TCP connection but did not answer the WebSocket upgrade`,
    );
    expect(error.message).toContain("300 ms");
  });

  it("a server that upgrades and stays silent: the URL and stage init, under the caller's deadline", async () => {
    const port = await mutedWebSocketServer();
    const error = await startFailure(agentOn(port).start({ timeoutMs: 300 }));
    expect(error.code).toBe(ErrorCode.DeadlineExceeded);
    expect(error.details).toMatchObject({ url: `ws://127.0.0.1:${port}/`, stage: "init", timeoutMs: 300 });
    expect(error.message).toContain(
      `the harness at ws://127.0.0.1:${port}/ opened the WebSocket but did not answer the session configuration`,
    );
  });

  it("run() keeps the same detail", async () => {
    const port = await mutedWebSocketServer();
    const error = await startFailure(
      run("hi", {
        transport: new WebSocketTransport({ port, env: {} }),
        policies: [allowAll()],
        timeoutMs: 300,
      }).final(),
    );
    expect(error.details).toMatchObject({ url: `ws://127.0.0.1:${port}/`, stage: "init" });
  });

  it("without a deadline of the caller, a silent server after the upgrade fails at the transport's default init limit (10 s), named", async () => {
    const port = await mutedWebSocketServer();
    const error = await startFailure(agentOn(port).start());
    expect(error.code).toBe(ErrorCode.DeadlineExceeded);
    expect(error.details).toMatchObject({ stage: "init", timeoutMs: 10_000 });
    expect(error.message).toContain("raise initTimeoutMs");
  }, 60_000);
});

describe("what is retryable", () => {
  it("a missing harness binary is FailedPrecondition, not retryable, naming the path", async () => {
    const error = await startFailure(
      Agent.builder()
        .transport(subprocessTransportFactory({ harnessPath: "/nonexistent/localharness" }))
        .allowAll()
        .build()
        .start(),
    );
    expect(error.code).toBe(ErrorCode.FailedPrecondition);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("harness binary not found at /nonexistent/localharness");
    expect(liveChildCount()).toBe(0);
  });

  it("configuration errors are never retryable: no policy, a bad option, a bad port", async () => {
    const noPolicy = await startFailure(run("hi", {} as Parameters<typeof run>[1]).final());
    const badTimeout = await startFailure(agentOn(9).start({ timeoutMs: -1 }));
    const badPort = await startFailure(
      Promise.resolve().then(() => new WebSocketTransport({ env: { ANTIGRAVITY_HARNESS_PORT: "http" } })),
    );
    for (const error of [noPolicy, badTimeout, badPort]) {
      expect(error.code, error.message).toBe(ErrorCode.InvalidArgument);
      expect(error.retryable).toBe(false);
    }
  });
});
