import type { AddressInfo } from "node:net";
import type * as acp from "@agentclientprotocol/sdk";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { acpWebSocketStream } from "@antigravity-ts/sdk/acp";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer, type WebSocket as ServerSocket } from "ws";

// The core's acpWebSocketStream against a real `ws` server playing a bridge that misbehaves.

type Socket = Parameters<typeof acpWebSocketStream>[0];
const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A server whose every connection runs `onConnection`; returns a stream on a client socket to it. */
async function streamTo(onConnection: (socket: ServerSocket) => void): Promise<acp.Stream> {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  servers.push(server);
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  server.on("connection", onConnection);
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return acpWebSocketStream(new WebSocket(url) as unknown as Socket);
}

async function readAll(stream: acp.Stream): Promise<{ messages: acp.AnyMessage[]; error: unknown }> {
  const messages: acp.AnyMessage[] = [];
  try {
    for await (const message of stream.readable) messages.push(message);
    return { messages, error: undefined };
  } catch (error) {
    return { messages, error };
  }
}

describe("acpWebSocketStream", () => {
  it("carries one JSON-RPC message per text frame both ways and ends cleanly on 1000", async () => {
    const stream = await streamTo((socket) =>
      socket.on("message", (data) => {
        const request = JSON.parse(String(data)) as { id: number };
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { echoed: true } }));
        socket.close(1000);
      }),
    );
    const writer = stream.writable.getWriter();
    await writer.write({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} } as acp.AnyMessage);
    const { messages, error } = await readAll(stream);
    expect(error).toBeUndefined();
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 1, result: { echoed: true } }]);
    await expect(writer.write({ jsonrpc: "2.0", method: "x" } as acp.AnyMessage)).rejects.toMatchObject({
      code: ErrorCode.ConnectionClosed,
    });
  });

  it("ends with the bridge's close code and reason as a typed error", async () => {
    const stream = await streamTo((socket) => socket.close(1008, "the bridge refused it"));
    const { error } = await readAll(stream);
    expect(error).toBeInstanceOf(SdkError);
    expect(error).toMatchObject({
      code: ErrorCode.ConnectionClosed,
      details: { closeCode: 1008, closeReason: "the bridge refused it" },
    });
  });

  it.each([
    ["a frame that is not JSON", (socket: ServerSocket) => socket.send("hello")],
    ["a JSON array (a batch)", (socket: ServerSocket) => socket.send("[]")],
    ["a binary frame", (socket: ServerSocket) => socket.send(Buffer.from("{}"), { binary: true })],
  ])("%s is a ProtocolError after the messages before it", async (_what, misbehave) => {
    const stream = await streamTo((socket) => {
      socket.send(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: {} }));
      misbehave(socket);
    });
    const { messages, error } = await readAll(stream);
    expect(messages).toHaveLength(1);
    expect(error).toMatchObject({ code: ErrorCode.ProtocolError });
  });

  it("a refused upgrade is Unavailable, for the reader and the writer", async () => {
    const server = new WebSocketServer({
      port: 0,
      host: "127.0.0.1",
      verifyClient: (_info, done) => done(false, 401, "Unauthorized"),
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const stream = acpWebSocketStream(new WebSocket(url) as unknown as Socket);
    const writing = stream.writable
      .getWriter()
      .write({ jsonrpc: "2.0", id: 1, method: "initialize" } as acp.AnyMessage);
    await expect(writing).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    expect((await readAll(stream)).error).toMatchObject({ code: ErrorCode.Unavailable });
  });
});
