import type { AddressInfo } from "node:net";
import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { silentTcpServer } from "@antigravity-ts/test-kit";
import { createHarnessConnection } from "../connection/index.js";
import { ErrorCode, SdkError, WebSocketTransport, type WebSocketLike } from "../index.js";

// Issue 12 item 3: a peer that never answers cannot hang a connect; refusals say what to fix.
// The core's own adapter here; what only `ws` tells (the upgrade stage, a refusal's body) is
// tested with the Node adapter in packages/node/src/socket/ws-adapter-refusal.test.ts.
// Real sockets on 127.0.0.1; every wait is bounded by the limits passed here (no timing assertions).

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A WebSocket server that accepts the upgrade and never sends a frame. */
async function mutedWebSocketServer(
  onSocket: (socket: WebSocket) => void = () => undefined,
): Promise<{ port: number; closed: Promise<void> }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => wss.once("listening", resolve));
  let serverSawClose!: () => void;
  const closed = new Promise<void>((resolve) => (serverSawClose = resolve));
  wss.on("connection", (socket) => {
    socket.once("close", () => serverSawClose());
    onSocket(socket);
  });
  cleanups.push(async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return { port: (wss.address() as AddressInfo).port, closed };
}

/** An HTTP server that answers every upgrade with `status` and `body`. */
async function refusingServer(status: number, body = ""): Promise<number> {
  const http = createServer();
  http.on("upgrade", (_request: IncomingMessage, socket: Duplex) => {
    socket.end(
      `HTTP/1.1 ${status} Refused\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
  return (http.address() as AddressInfo).port;
}

async function rejection(promise: Promise<unknown>): Promise<SdkError> {
  const error = await promise.then(
    () => new Error("expected a failure"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

describe("WebSocketTransport deadlines", () => {
  it("a caller's own timeoutMs still applies under the transport's limit", async () => {
    const server = await silentTcpServer();
    cleanups.push(server.close);
    const error = await rejection(
      new WebSocketTransport({ port: server.port, env: {}, connectTimeoutMs: 60_000 }).connect({ timeoutMs: 100 }),
    );
    expect(error.code).toBe(ErrorCode.DeadlineExceeded);
    expect(error.message).toContain("within the call's timeoutMs (100 ms)");
    // The caller's deadline keeps the URL and the stage (the core's adapter cannot tell TCP from the upgrade: connect).
    expect(error.details).toMatchObject({ url: `ws://127.0.0.1:${server.port}/`, stage: "connect", timeoutMs: 100 });
    await server.gone;
  });

  it("names the connect stage where the runtime cannot tell TCP from the upgrade (a WebSocket that never opens)", async () => {
    let closedBySdk = false;
    class NeverOpens extends EventTarget {
      binaryType = "blob";
      readyState = 0;
      send(): void {}
      close(): void {
        closedBySdk = true;
        this.readyState = 3;
      }
    }
    const transport = new WebSocketTransport({
      url: "ws://harness.invalid:9/?token=x",
      env: {},
      connectTimeoutMs: 50,
      WebSocket: NeverOpens as unknown as new (url: string) => WebSocketLike,
    });
    const error = await rejection(transport.connect());
    expect(error).toMatchObject({
      code: ErrorCode.DeadlineExceeded,
      details: { stage: "connect", url: "ws://harness.invalid:9/" },
    });
    expect(closedBySdk).toBe(true);
  });

  it("bounds a connect factory that never settles", async () => {
    const transport = new WebSocketTransport({
      url: "wss://worker.example/",
      env: {},
      connectTimeoutMs: 50,
      connect: () => new Promise<WebSocketLike>(() => undefined),
    });
    expect(await rejection(transport.connect())).toMatchObject({
      code: ErrorCode.DeadlineExceeded,
      details: { stage: "connect" },
    });
  });

  it("fails frames() at the init stage when the peer never answers the first frame, and drops the socket", async () => {
    const server = await mutedWebSocketServer();
    const channel = await new WebSocketTransport({ port: server.port, env: {}, initTimeoutMs: 100 }).connect();
    channel.send("{}");
    const error = await rejection(
      (async () => {
        for await (const _frame of channel.frames()) throw new Error("no frame expected");
      })(),
    );
    expect(error).toMatchObject({ code: ErrorCode.DeadlineExceeded, details: { stage: "init", timeoutMs: 100 } });
    expect(error.message).toContain("opened the WebSocket but did not answer the session configuration");
    await server.closed;
    expect(() => channel.send("{}")).toThrow(SdkError);
    await channel.close();
  });

  it("createHarnessConnection fails with the init-stage DeadlineExceeded against a silent WebSocket server", async () => {
    const server = await mutedWebSocketServer();
    const transport = new WebSocketTransport({ port: server.port, env: {}, initTimeoutMs: 100 });
    const error = await rejection(createHarnessConnection({ transport, config: { cascadeId: "" } }));
    expect(error).toMatchObject({ code: ErrorCode.DeadlineExceeded, details: { stage: "init" } });
    expect(error.message).toContain(
      `the harness at ws://127.0.0.1:${server.port}/ opened the WebSocket but did not answer the session configuration`,
    );
    await server.closed;
  });

  it("an answered channel outlives the init limit", async () => {
    const server = await mutedWebSocketServer((socket) =>
      socket.on("message", (data) => socket.send(`echo ${String(data)}`)),
    );
    const channel = await new WebSocketTransport({ port: server.port, env: {}, initTimeoutMs: 50 }).connect();
    const frames = channel.frames()[Symbol.asyncIterator]();
    channel.send("one");
    expect((await frames.next()).value).toBe("echo one");
    await new Promise((resolve) => setTimeout(resolve, 150)); // past the init limit
    channel.send("two");
    expect((await frames.next()).value).toBe("echo two");
    await channel.close();
  });

  it("refuses negative limits with InvalidArgument", async () => {
    expect(await rejection(new WebSocketTransport({ port: 9, env: {}, connectTimeoutMs: -1 }).connect())).toMatchObject(
      { code: ErrorCode.InvalidArgument },
    );
  });
});

describe("WebSocketTransport refusal hints", () => {
  it("HTTP 429 is ResourceExhausted, retryable", async () => {
    const port = await refusingServer(429, "quota exceeded");
    const error = await rejection(new WebSocketTransport({ port, env: {}, apiKey: "k" }).connect());
    expect(error).toMatchObject({ code: ErrorCode.ResourceExhausted, details: { httpCode: 429 } });
    expect(error.retryable).toBe(true);
  });

  it("a 401 without a key says none was sent, not that the key was refused", async () => {
    const port = await refusingServer(401);
    const error = await rejection(new WebSocketTransport({ port, env: {} }).connect());
    expect(error.code).toBe(ErrorCode.PermissionDenied);
    expect(error.message).toContain("requires an api key and none was sent");
    expect(error.message).not.toContain("refused the api key");
    expect(error.retryable).toBe(false);
  });

  it("a 401 with a gateway token blames the token, not the key", async () => {
    const port = await refusingServer(401);
    const error = await rejection(
      new WebSocketTransport({ port, env: {}, protocols: ["antigravity.token.wrong"] }).connect(),
    );
    expect(error.message).toContain(`the gateway at ws://127.0.0.1:${port}/ refused the token`);
  });

  it("a browser's bare error event with a token offered points at the token, not only at a stopped server", async () => {
    class BrowserRefused extends EventTarget {
      binaryType = "blob";
      readyState = 0;
      constructor() {
        super();
        queueMicrotask(() => {
          this.dispatchEvent(new Event("error")); // browsers give no status and no message
          this.readyState = 3;
          this.dispatchEvent(Object.assign(new Event("close"), { code: 1006, reason: "" }));
        });
      }
      send(): void {}
      close(): void {}
    }
    const transport = new WebSocketTransport({
      url: "ws://127.0.0.1:9/?token=wrong",
      env: {},
      WebSocket: BrowserRefused as unknown as new (url: string) => WebSocketLike,
    });
    const error = await rejection(transport.connect());
    expect(error.code).toBe(ErrorCode.Unavailable);
    expect(error.message).toContain("check the gateway's token and allowed origins");
    expect(error.message).not.toContain("token=wrong");
  });
});
