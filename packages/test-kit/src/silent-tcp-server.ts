import { createServer, type AddressInfo, type Socket } from "node:net";

/** A TCP server on 127.0.0.1 that accepts connections and never writes a byte. */
export interface SilentTcpServer {
  readonly port: number;
  /** Resolves once a client has hung up. */
  readonly gone: Promise<void>;
  /** Destroys the accepted sockets and closes the server. */
  close(): Promise<void>;
}

/** Starts a {@link SilentTcpServer}: the peer of "accepts TCP, never answers the upgrade" tests. */
export async function silentTcpServer(): Promise<SilentTcpServer> {
  const sockets: Socket[] = [];
  let clientGone!: () => void;
  const gone = new Promise<void>((resolve) => (clientGone = resolve));
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => undefined);
    socket.resume(); // read (and drop) the upgrade request: a paused socket never reports the client's FIN
    socket.once("end", clientGone);
    socket.once("close", clientGone);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    gone,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
