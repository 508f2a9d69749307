import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
// Through the package root: importing it registers the `ws` adapter, as it does for every Node user.
import { silentTcpServer } from "@antigravity-ts/test-kit";
import { ErrorCode, SdkError, WebSocketTransport, type WebSocketLike } from "../index.js";

// The failure paths of WebSocketTransport on Node (the `ws` adapter) against real HTTP servers: a
// refused upgrade must reject promptly, quote the server's explanation and drop the socket, an
// abort during the handshake must not leave an unhandled 'error' behind (protocol §4).

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Errors no one handled while `run` was going on (the process would have crashed on them). */
async function withUncaughtCapture(run: () => Promise<void>): Promise<unknown[]> {
  const uncaught: unknown[] = [];
  const onError = (error: unknown): void => void uncaught.push(error);
  process.on("uncaughtException", onError);
  process.on("unhandledRejection", onError);
  try {
    await run();
  } finally {
    process.off("uncaughtException", onError);
    process.off("unhandledRejection", onError);
  }
  return uncaught;
}

interface TestServer {
  port: number;
  /** Resolves when the server saw the client's TCP socket close (the SDK dropped it). */
  clientGone: () => Promise<void>;
}

/** An HTTP server whose `upgrade` handler is `onUpgrade`; it tracks the raw sockets. */
async function startServer(
  onUpgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => void,
): Promise<TestServer> {
  const http: Server = createServer();
  const sockets: Socket[] = [];
  let gone: Promise<void> | undefined;
  http.on("connection", (socket: Socket) => {
    sockets.push(socket);
    // 'end' (the client's FIN): the server keeps its half open (allowHalfOpen), so 'close' may never come.
    gone ??= new Promise((resolve) => {
      socket.once("end", () => resolve());
      socket.once("close", () => resolve());
      socket.once("error", () => resolve());
    });
  });
  http.on("upgrade", onUpgrade);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return {
    port: (http.address() as AddressInfo).port,
    clientGone: async () => {
      while (gone === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      await gone;
    },
  };
}

/** Answers the upgrade with `status` and keeps the connection open: only the client can end it. */
function refuseAndHold(status: number, text: string) {
  return (_request: IncomingMessage, socket: Duplex): void => {
    socket.write(`HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\npartial body`);
  };
}

describe("WebSocketTransport refusals and aborts (ws)", () => {
  it("rejects a wrong key (HTTP 401) with PermissionDenied at once and drops the socket, even when the server holds the connection open", async () => {
    const server = await startServer(refuseAndHold(401, "Unauthorized"));
    const transport = new WebSocketTransport({ port: server.port, apiKey: "wrong", env: {} });
    // No timeout: a transport waiting for the server to hang up would never settle.
    await expect(transport.connect()).rejects.toMatchObject({
      code: ErrorCode.PermissionDenied,
      details: { httpCode: 401 },
    });
    await server.clientGone();
  });

  it("maps 403 to PermissionDenied and other statuses to Unavailable with the status", async () => {
    const forbidden = await startServer(refuseAndHold(403, "Forbidden"));
    await expect(new WebSocketTransport({ port: forbidden.port, env: {} }).connect()).rejects.toMatchObject({
      code: ErrorCode.PermissionDenied,
      details: { httpCode: 403 },
    });
    await forbidden.clientGone();
    const broken = await startServer(refuseAndHold(500, "Internal Server Error"));
    const error = await new WebSocketTransport({ port: broken.port, env: {} }).connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.Unavailable, details: { httpCode: 500 } });
    expect((error as Error).message).toContain("HTTP 500");
    // The body is still arriving (the server holds the connection): what came so far is quoted.
    expect((error as Error).message).toContain("HTTP 500: partial body");
    await broken.clientGone();
  });

  it("quotes the refusal's body in the message", async () => {
    const server = await startServer((_request, socket) => {
      socket.end(
        "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: 26\r\n\r\nkey expired at 12:00 UTC\r\n",
      );
    });
    const error = await new WebSocketTransport({ port: server.port, apiKey: "old", env: {} })
      .connect()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.PermissionDenied, details: { httpCode: 401 } });
    expect((error as Error).message).toContain("(HTTP 401: key expired at 12:00 UTC)");
  });

  it("keeps the URL's query (a gateway token) out of error messages", async () => {
    const server = await startServer(refuseAndHold(401, "Unauthorized"));
    const url = `ws://127.0.0.1:${server.port}/chat?token=s3cret-token`;
    const error = await new WebSocketTransport({ url, env: {} }).connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.PermissionDenied });
    expect((error as Error).message).toContain(`ws://127.0.0.1:${server.port}/chat`);
    expect((error as Error).message).not.toContain("s3cret-token");
    await server.clientGone();
  });

  it('reads the refused status from Deno\'s wording too ("Invalid status code: 401")', async () => {
    // Deno's WebSocket reports a refused upgrade only as an error event with this message.
    class DenoLikeSocket extends EventTarget {
      binaryType = "blob";
      readyState = 0;
      constructor(_url: string) {
        super();
        queueMicrotask(() => {
          const event = Object.assign(new Event("error"), {
            message: "NetworkError: failed to connect to WebSocket: Invalid status code: 401",
          });
          this.dispatchEvent(event);
          this.readyState = 3;
          this.dispatchEvent(Object.assign(new Event("close"), { code: 1006, reason: "" }));
        });
      }
      send(): void {}
      close(): void {}
    }
    const transport = new WebSocketTransport({
      url: "ws://127.0.0.1:9/",
      env: {},
      WebSocket: DenoLikeSocket as unknown as new (url: string) => WebSocketLike,
    });
    await expect(transport.connect({ timeoutMs: 5_000 })).rejects.toMatchObject({
      code: ErrorCode.PermissionDenied,
      details: { httpCode: 401 },
    });
  });

  it("refuses through a ws server's verifyClient (401) as the harness and gateway do", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, verifyClient: (_info, done) => done(false, 401) });
    await new Promise((resolve) => wss.once("listening", resolve));
    cleanups.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
    const port = (wss.address() as AddressInfo).port;
    await expect(new WebSocketTransport({ port, apiKey: "wrong", env: {} }).connect()).rejects.toMatchObject({
      code: ErrorCode.PermissionDenied,
    });
  });

  it("cancels a connect during a slow upgrade without an unhandled error, and drops the socket", async () => {
    const wss = new WebSocketServer({ noServer: true });
    let upgradeSeen!: () => void;
    const seen = new Promise<void>((resolve) => (upgradeSeen = resolve));
    let finishUpgrade: (() => void) | undefined;
    const server = await startServer((request, socket, head) => {
      // The upgrade is answered only when the test says so (after the abort).
      finishUpgrade = () => {
        if (!socket.destroyed) wss.handleUpgrade(request, socket, head, (ws) => ws.terminate());
      };
      upgradeSeen();
    });
    cleanups.push(() => wss.close());
    const uncaught = await withUncaughtCapture(async () => {
      const controller = new AbortController();
      const pending = new WebSocketTransport({ port: server.port, env: {} }).connect({ signal: controller.signal });
      await seen;
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: ErrorCode.Canceled });
      await server.clientGone();
      finishUpgrade?.();
      // Let any late 'error'/'close' event of the aborted socket fire.
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(uncaught).toEqual([]);
  });

  it("gives up a slow upgrade at timeoutMs with DeadlineExceeded, without an unhandled error", async () => {
    let upgradeSeen!: () => void;
    const seen = new Promise<void>((resolve) => (upgradeSeen = resolve));
    const server = await startServer(() => upgradeSeen());
    const uncaught = await withUncaughtCapture(async () => {
      const pending = new WebSocketTransport({ port: server.port, env: {} }).connect({ timeoutMs: 100 });
      await seen;
      await expect(pending).rejects.toMatchObject({ code: ErrorCode.DeadlineExceeded });
      await server.clientGone();
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(uncaught).toEqual([]);
  });

  it("closes the socket a connect factory hands over after the connect was aborted", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise((resolve) => wss.once("listening", resolve));
    cleanups.push(() => {
      for (const client of wss.clients) client.terminate();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    });
    const serverSawClose = new Promise<void>((resolve) =>
      wss.on("connection", (ws) => ws.once("close", () => resolve())),
    );
    const port = (wss.address() as AddressInfo).port;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const controller = new AbortController();
    const transport = new WebSocketTransport({
      port,
      env: {},
      // A factory that ignores the signal and opens the socket anyway.
      connect: async (url) => {
        await released;
        const socket = new WebSocket(url);
        await new Promise((resolve) => socket.once("open", resolve));
        return socket as unknown as WebSocketLike;
      },
    });
    const pending = transport.connect({ signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.Canceled });
    release();
    await serverSawClose;
    for (const client of wss.clients) expect(client.readyState).not.toBe(WebSocket.OPEN);
  });
});

describe("WebSocketTransport on Node: what only `ws` tells", () => {
  it("gives up on a server that accepts TCP and never answers the upgrade: DeadlineExceeded, stage upgrade, URL without its query", async () => {
    const server = await silentTcpServer();
    cleanups.push(server.close);
    const url = `ws://127.0.0.1:${server.port}/chat?token=s3cret-token`;
    const error = await new WebSocketTransport({ url, env: {}, connectTimeoutMs: 200 })
      .connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect(error).toMatchObject({
      code: ErrorCode.DeadlineExceeded,
      details: { stage: "upgrade", url: `ws://127.0.0.1:${server.port}/chat`, timeoutMs: 200 },
    });
    const message = (error as SdkError).message;
    expect(message).toContain(
      `the harness at ws://127.0.0.1:${server.port}/chat accepted the TCP connection but did not answer the WebSocket upgrade within 200 ms (stage: upgrade)`,
    );
    expect(message).toContain("connectTimeoutMs");
    expect(message).not.toContain("s3cret-token");
    expect((error as SdkError).retryable).toBe(true);
    await server.gone; // the SDK dropped its socket
  });

  it("HTTP 429 is ResourceExhausted, retryable, with the server's explanation", async () => {
    const server = await startServer((_request, socket) => {
      socket.end(
        "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nContent-Length: 14\r\n\r\nquota exceeded",
      );
    });
    const error = await new WebSocketTransport({ port: server.port, env: {}, apiKey: "k" })
      .connect()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.ResourceExhausted, details: { httpCode: 429 } });
    expect((error as SdkError).message).toContain("quota exceeded");
    expect((error as SdkError).retryable).toBe(true);
  });
});
