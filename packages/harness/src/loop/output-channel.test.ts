import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { MAX_BACKLOG, OutputChannel } from "./output-channel.js";
import { wsClientPort } from "../server/ws-client-port.js";

// The harness → client channel over a real loopback WebSocket whose client stops reading: the
// backlog grows until MAX_BACKLOG, then the harness drops that connection instead of buffering
// without bound (issue 8 item 7).

describe("OutputChannel backlog bound", () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const step of cleanup.splice(0)) step();
  });

  it("terminates a connection whose client leaves more than MAX_BACKLOG unread, reporting why", async () => {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    cleanup.push(() => server.close());
    await new Promise((resolve) => server.once("listening", resolve));
    const accepted = new Promise<WebSocket>((resolve) => server.once("connection", resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    cleanup.push(() => client.terminate());
    await new Promise((resolve) => client.once("open", resolve));
    // The client stops reading from its TCP socket: the server's writes back up.
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    const socket = await accepted;
    const errors: string[] = [];
    socket.on("error", (error) => errors.push(error.message));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    const channel = new OutputChannel(wsClientPort(socket, () => {}));
    const text = "x".repeat(1024 * 1024);
    let sent = 0;
    while (channel.send({ case: "stepUpdate", value: { text } })) {
      sent++;
      if (sent > (2 * MAX_BACKLOG) / text.length) throw new Error("the backlog was never bounded");
    }
    expect(sent).toBeGreaterThanOrEqual(MAX_BACKLOG / text.length - 16);
    await closed;
    expect(errors.join("\n")).toMatch(
      /the client left \d+ bytes of output unread \(limit 67108864\); dropping the connection/,
    );
    expect(channel.send({ case: "stepUpdate", value: { text: "after" } })).toBe(false);
  });
});
