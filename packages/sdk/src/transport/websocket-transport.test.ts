import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { ErrorCode, SdkError } from "../errors.js";
import type { Channel } from "./transport.js";
import { whatwgWebSocketAdapter } from "./websocket-adapter.js";
import type { WebSocketConstructor } from "./websocket-like.js";
import { WebSocketTransport } from "./websocket-transport.js";

const KEY = "k3y";
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real ws server on 127.0.0.1 that checks the key like the harness (§4) and runs `onSocket`. */
async function startServer(
  onSocket: (socket: WebSocket) => void,
): Promise<{ port: number; headers: Record<string, string | string[] | undefined>[] }> {
  const headers: Record<string, string | string[] | undefined>[] = [];
  const http: Server = createServer();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 0 });
  http.on("upgrade", (request, socket, head) => {
    headers.push(request.headers);
    if (request.headers["x-goog-api-key"] !== KEY) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => onSocket(ws));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return { port: (http.address() as AddressInfo).port, headers };
}

async function read(channel: Channel, count: number): Promise<string[]> {
  const out: string[] = [];
  for await (const frame of channel.frames()) {
    out.push(frame);
    if (out.length === count) break;
  }
  return out;
}

describe("WebSocketTransport", () => {
  it("sends the key header, keeps frames that arrive before anyone reads, and passes 5 MiB frames", async () => {
    const big = "x".repeat(5 * 1024 * 1024);
    const server = await startServer((ws) => {
      ws.send("one");
      ws.send("two");
      ws.on("message", (data) => ws.send(`echo:${String(data).length}`));
    });
    const transport = new WebSocketTransport({ port: server.port, apiKey: KEY, headers: { "x-extra": "1" }, env: {} });
    expect(transport.url).toBe(`ws://127.0.0.1:${server.port}/`);
    const channel = await transport.connect();
    cleanups.push(() => channel.close());
    await new Promise((resolve) => setTimeout(resolve, 50)); // let the frames arrive unread
    channel.send(big);
    const frames = await read(channel, 3);
    expect(frames).toEqual(["one", "two", `echo:${big.length}`]);
    expect(server.headers[0]?.["x-goog-api-key"]).toBe(KEY);
    expect(server.headers[0]?.["x-extra"]).toBe("1");
  });

  it("reads host, port and key from the environment", async () => {
    const server = await startServer((ws) => ws.send("hello"));
    const transport = new WebSocketTransport({
      env: {
        ANTIGRAVITY_HARNESS_HOST: "127.0.0.1",
        ANTIGRAVITY_HARNESS_PORT: String(server.port),
        ANTIGRAVITY_API_KEY: KEY,
      },
    });
    const channel = await transport.connect();
    cleanups.push(() => channel.close());
    expect(await read(channel, 1)).toEqual(["hello"]);
    expect(() => new WebSocketTransport({ env: { ANTIGRAVITY_HARNESS_PORT: "eighty" } })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
    // A url of its own: the host and port variables are not read at all (Deno without --allow-env).
    expect(new WebSocketTransport({ url: "ws://127.0.0.1:1/", env: { ANTIGRAVITY_HARNESS_PORT: "eighty" } }).url).toBe(
      "ws://127.0.0.1:1/",
    );
  });

  it("hands Deno's own WebSocket the key as { protocols, headers }, its constructor's form", async () => {
    const server = await startServer((ws) => ws.send("hello Deno"));
    const seen: unknown[] = [];
    // Deno's constructor: (url, { protocols, headers }); played by ws underneath.
    const DenoLike = class extends WebSocket {
      constructor(url: string, options: { protocols: string[]; headers: Record<string, string> }) {
        super(url, options.protocols, { headers: options.headers });
        seen.push(options);
      }
    } as unknown as WebSocketConstructor;
    vi.stubGlobal("Deno", { version: { deno: "2" } });
    vi.stubGlobal("WebSocket", DenoLike);
    cleanups.push(() => void vi.unstubAllGlobals());
    const channel = await new WebSocketTransport({
      port: server.port,
      apiKey: KEY,
      WebSocket: DenoLike,
      env: {},
    }).connect();
    cleanups.push(() => channel.close());
    expect(await read(channel, 1)).toEqual(["hello Deno"]);
    expect(seen).toEqual([{ protocols: [], headers: { "x-goog-api-key": KEY } }]);
  });

  it("maps a wrong key to PermissionDenied and a refused port to Unavailable", async () => {
    const server = await startServer(() => undefined);
    await expect(
      new WebSocketTransport({ port: server.port, apiKey: "wrong", env: {} }).connect(),
    ).rejects.toMatchObject({ code: ErrorCode.PermissionDenied, details: { httpCode: 401 } });
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(new WebSocketTransport({ port, env: {} }).connect()).rejects.toMatchObject({
      code: ErrorCode.Unavailable,
    });
  });

  it("gives up on a server that never answers the upgrade (timeoutMs) and on abort", async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanups.push(async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const transport = new WebSocketTransport({ port: (silent.address() as AddressInfo).port, env: {} });
    await expect(transport.connect({ timeoutMs: 50 })).rejects.toMatchObject({ code: ErrorCode.DeadlineExceeded });
    const controller = new AbortController();
    const pending = transport.connect({ signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.Canceled });
  });

  it("ends frames() on a normal close and throws ConnectionClosed on an abnormal one", async () => {
    let mode: "normal" | "crash" = "normal";
    const server = await startServer((ws) => {
      ws.send("last words");
      if (mode === "normal") ws.close(1000, "bye");
      else ws.terminate();
    });
    const normal = await new WebSocketTransport({ port: server.port, apiKey: KEY, env: {} }).connect();
    const frames: string[] = [];
    for await (const frame of normal.frames()) frames.push(frame);
    expect(frames).toEqual(["last words"]);
    expect(() => normal.send("x")).toThrow(expect.objectContaining({ code: ErrorCode.ConnectionClosed }));
    mode = "crash";
    const crashed = await new WebSocketTransport({ port: server.port, apiKey: KEY, env: {} }).connect();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const frame of crashed.frames()) seen.push(frame);
      })(),
    ).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed, details: { closeCode: 1006 } });
    expect(seen).toEqual(["last words"]);
  });

  it("lets the adapter's onPeerClose decide how frames() ends when the peer closes, but not after close()", async () => {
    let mode: "normal" | "crash" | "hold" = "normal";
    const server = await startServer((ws) => {
      if (mode === "normal") ws.close(1000, "bye");
      else if (mode === "crash") ws.terminate();
    });
    const seen: { code: number; reason: string; error: string | undefined }[] = [];
    const transport = new WebSocketTransport({
      port: server.port,
      apiKey: KEY,
      env: {},
      adapter: {
        ...whatwgWebSocketAdapter(WebSocket as unknown as WebSocketConstructor),
        onPeerClose: async (close) => {
          seen.push({ code: close.code, reason: close.reason, error: close.error?.code });
          return new SdkError(ErrorCode.HarnessCrashed, `decided for code ${close.code}`);
        },
      },
    });
    const normal = await transport.connect();
    await expect(read(normal, 1)).rejects.toMatchObject({
      code: ErrorCode.HarnessCrashed,
      message: "decided for code 1000",
    });
    mode = "crash";
    const crashed = await transport.connect();
    await expect(read(crashed, 1)).rejects.toMatchObject({
      code: ErrorCode.HarnessCrashed,
      message: "decided for code 1006",
    });
    expect(seen).toEqual([
      { code: 1000, reason: "bye", error: undefined },
      { code: 1006, reason: "", error: ErrorCode.ConnectionClosed },
    ]);
    mode = "hold";
    const held = await transport.connect();
    const ended = read(held, 1);
    await held.close();
    expect(await ended).toEqual([]);
    expect(seen).toHaveLength(2);

    mode = "crash";
    const adapter = {
      ...whatwgWebSocketAdapter(WebSocket as unknown as WebSocketConstructor),
      onPeerClose: () => Promise.reject(new Error("owner failed")),
    };
    const failing = await new WebSocketTransport({ port: server.port, apiKey: KEY, env: {}, adapter }).connect();
    await expect(read(failing, 1)).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed, message: "owner failed" });
  });

  it("offers the subprotocols it is given", async () => {
    const server = await startServer((ws) => ws.send(ws.protocol));
    const channel = await new WebSocketTransport({
      port: server.port,
      apiKey: KEY,
      env: {},
      protocols: ["antigravity.token.t0k3n"],
    }).connect();
    cleanups.push(() => channel.close());
    expect(await read(channel, 1)).toEqual(["antigravity.token.t0k3n"]);
    expect(server.headers[0]?.["sec-websocket-protocol"]).toBe("antigravity.token.t0k3n");
  });

  it("closes from the client side: the server sees code 1000, frames() ends, close() is idempotent", async () => {
    const serverClosed = new Promise<number>((resolve) => {
      void startServer((ws) => ws.on("close", (code) => resolve(code))).then(async (server) => {
        const channel = await new WebSocketTransport({ port: server.port, apiKey: KEY, env: {} }).connect();
        const ended = read(channel, 10);
        await channel.close();
        await channel.close();
        expect(await ended).toEqual([]);
      });
    });
    expect(await serverClosed).toBe(1000);
  });

  it("accepts an injected WebSocket constructor or connect factory", async () => {
    // The server speaks first only when asked: a connect factory hands over an open socket.
    const server = await startServer((ws) => ws.on("message", () => ws.send("via injection")));
    let constructed = 0;
    const Counting = class extends WebSocket {
      constructor(url: string, protocols?: string | string[], options?: Record<string, unknown>) {
        super(url, protocols, options);
        constructed++;
      }
    } as unknown as WebSocketConstructor;
    const viaCtor = await new WebSocketTransport({
      port: server.port,
      apiKey: KEY,
      WebSocket: Counting,
      env: {},
    }).connect();
    cleanups.push(() => viaCtor.close());
    viaCtor.send("hi");
    expect(await read(viaCtor, 1)).toEqual(["via injection"]);
    expect(constructed).toBe(1);
    const calls: string[] = [];
    const viaFactory = await new WebSocketTransport({
      port: server.port,
      apiKey: KEY,
      env: {},
      connect: async (url, headers) => {
        calls.push(`${url} ${headers["x-goog-api-key"] ?? ""}`);
        const socket = new WebSocket(url, { headers: { ...headers } });
        await new Promise((resolve, reject) => {
          socket.once("open", resolve);
          socket.once("error", reject);
        });
        return socket as unknown as InstanceType<WebSocketConstructor>;
      },
    }).connect();
    cleanups.push(() => viaFactory.close());
    viaFactory.send("hi");
    expect(await read(viaFactory, 1)).toEqual(["via injection"]);
    expect(calls).toEqual([`ws://127.0.0.1:${server.port}/ ${KEY}`]);
  });

  it("takes the DOM WebSocket type as a constructor", () => {
    const ctor: WebSocketConstructor | undefined = (globalThis as { WebSocket?: typeof globalThis.WebSocket })
      .WebSocket;
    expect(ctor === undefined || typeof ctor === "function").toBe(true);
  });
});
