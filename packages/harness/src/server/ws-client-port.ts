import { AsyncQueue } from "@antigravity-ts/sdk/internal";
import type { RawData, WebSocket } from "ws";
import type { ClientFrame, ClientPort } from "../loop/client-port.js";

/**
 * Adapts a `ws` server-side socket to the session's {@link ClientPort}: messages become frames
 * (binary ones flagged), `send`'s callback reports the write, `terminate` reports its error like
 * the socket's own failures, which go to `warn` as `socket error: …`.
 */
export function wsClientPort(socket: WebSocket, warn: (message: string) => void): ClientPort {
  const incoming = new AsyncQueue<ClientFrame>();
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("message", (data: RawData, isBinary: boolean) => {
    incoming.push(isBinary ? { binary: true } : { text: rawText(data) });
  });
  socket.on("error", (error: Error) => warn(`socket error: ${error.message}`));
  void closed.then(() => incoming.end());
  const frames: AsyncIterable<ClientFrame> = { [Symbol.asyncIterator]: () => incoming.readerIterator() };
  return {
    frames: () => frames,
    get open() {
      return socket.readyState === socket.OPEN;
    },
    send(frame, written) {
      socket.send(frame, () => written());
    },
    close(code, reason) {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
    },
    terminate(error) {
      socket.emit("error", error);
      socket.terminate();
    },
    closed,
  };
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}
