import type { CommandSandboxDefaults } from "../loop/settings.js";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { LogThrottle, type LocalharnessEra } from "@antigravity-ts/sdk/internal";
import { WebSocketServer } from "ws";
import { apiKeyMatches } from "./auth.js";
import { compileIpv6Check } from "./compile-ipv6-check.js";
import type { Logger } from "../log.js";
import type { ScriptFile } from "../providers/script-format.js";
import { SessionHost } from "../session/session-host.js";
import type { SessionStore } from "../loop/stored-sessions.js";
import { killAllChildren } from "../tools/process-registry.js";
import { wsClientPort } from "./ws-client-port.js";

/** Options of {@link startHarnessServer}. */
export interface HarnessServerOptions {
  /** Key clients must present as `x-goog-api-key` (§4). */
  apiKey: string;
  /** Listen address; "localhost" binds both 127.0.0.1 and ::1 (clients try both, §4). */
  host: string;
  /** 0 = ephemeral. */
  port: number;
  store: SessionStore;
  /** Workspace of sessions whose config names none. */
  workspace: string;
  /** Environment of tool subprocesses, used as given: build it with `commandEnvironment` (never the harness's own environment). */
  toolEnv: Readonly<Record<string, string>>;
  /** Environment for model selection. */
  env: Readonly<Record<string, string | undefined>>;
  /** What run_command's sandbox hides (the storage directory, the key file) and whether it keeps the network. */
  sandbox?: CommandSandboxDefaults;
  script?: ScriptFile;
  log: Logger;
  /** Injected into HTTP model providers (tests). */
  fetch?: typeof fetch;
  /** Largest incoming WebSocket message in bytes; larger ones close that connection with 1009. 0 = unlimited. Default {@link DEFAULT_MAX_FRAME_BYTES}. */
  maxFrameBytes?: number;
  /** Time limit of one file-tool call on its worker thread, in ms (`--tool-timeout-ms`; default 30 s). */
  toolTimeoutMs?: number;
  /** How long a session whose client left during a tool confirmation keeps that turn for a resuming client, in ms (`--confirmation-hold-ms`; default 10 min; 0 = not at all). */
  confirmationHoldMs?: number;
  /**
   * The wire era of the clients, when the harness knows it (stdio mode: from the handshake's
   * `ClientInfo`, `eraOfClientInfo`). A session whose first frame shows its era's spelling uses
   * that; otherwise this; otherwise the newest. Fields a 0.1.14 client does not know are not written to it.
   */
  clientEra?: LocalharnessEra;
}

/** A running harness server. */
export interface HarnessServer {
  readonly host: string;
  readonly port: number;
  /** `ws://host:port/`. */
  readonly url: string;
  /** Sessions currently connected. */
  readonly sessionCount: number;
  /** Closes every session (code 1001), kills running commands, persists sessions and stops listening. */
  close(): Promise<void>;
}

/**
 * Default bound on one incoming message: 64 MiB. Upstream lifted its limits so that large tool
 * results pass (§4: a 5 MiB result is tested); an unbounded one would let any key holder make the
 * harness buffer as much as it sends (issue 8 item 7).
 */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * Starts the WebSocket server of the harness on path `/` (§4). Upgrades without the right
 * `x-goog-api-key` get HTTP 401 "unauthorized" and nothing else; each accepted connection is an
 * independent session of a {@link SessionHost}, over the socket adapted to its port (ws-client-port.ts). A message over `maxFrameBytes` closes its connection with
 * 1009 (RFC 6455 "message too big"); the other connections go on.
 */
export async function startHarnessServer(options: HarnessServerOptions): Promise<HarnessServer> {
  const host = new SessionHost(options);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    perMessageDeflate: false,
  });
  wss.on("connection", (socket) => host.accept(wsClientPort(socket, (message) => options.log.warn(message))));
  // One line per refused key at most per window: a key-guessing client cannot flood stderr (issue 8 item 13).
  const refusals = new LogThrottle((line) => options.log.warn(line));
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", () => socket.destroy());
    if (!apiKeyMatches(request.headers["x-goog-api-key"], options.apiKey)) {
      refusals.note(
        "401",
        `refused a connection from ${request.socket.remoteAddress ?? "?"}: missing or wrong x-goog-api-key`,
        "refused connections (missing or wrong x-goog-api-key)",
      );
      return refuse(socket, 401, "Unauthorized", "unauthorized");
    }
    const pathname = requestPath(request.url);
    if (pathname === undefined) return refuse(socket, 400, "Bad Request", "bad request target");
    if (pathname !== "/") return refuse(socket, 404, "Not Found", "not found");
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
  };
  const servers = await listen(options.host, options.port, (server) => {
    server.on("upgrade", onUpgrade);
    server.on("request", (_request, response) => {
      response.writeHead(426, { "content-type": "text/plain", connection: "close" }).end("websocket upgrade required");
    });
  });
  const address = servers[0]?.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  let closing: Promise<void> | undefined;
  return {
    host: options.host,
    port,
    url: `ws://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}/`,
    get sessionCount() {
      return host.sessionCount;
    },
    close() {
      closing ??= (async () => {
        killAllChildren();
        for (const server of servers) server.close();
        await host.close();
        for (const server of servers) server.closeAllConnections();
        wss.close();
        refusals.close();
      })();
      return closing;
    },
  };
}

/** Path of a request target (`/`, `/?x`, or absolute form); undefined when it does not parse. */
function requestPath(target = "/"): string | undefined {
  try {
    return new URL(target, "http://harness").pathname;
  } catch {
    return undefined;
  }
}

function refuse(socket: Duplex, status: number, statusText: string, body: string): void {
  socket.once("finish", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Listens on `host:port`; "localhost" gets 127.0.0.1 and, where available, ::1 on the same port. */
async function listen(host: string, port: number, setup: (server: Server) => void): Promise<Server[]> {
  if (host !== "localhost") return [await listenOne(host, port, setup)];
  for (let attempt = 0; ; attempt++) {
    const v4 = await listenOne("127.0.0.1", port, setup);
    const address = v4.address();
    const actual = typeof address === "object" && address !== null ? address.port : port;
    try {
      compileIpv6Check();
      return [v4, await listenOne("::1", actual, setup)];
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EADDRNOTAVAIL" || code === "EAFNOSUPPORT") return [v4];
      v4.close();
      if (code !== "EADDRINUSE" || port !== 0 || attempt >= 5) throw error;
    }
  }
}

function listenOne(host: string, port: number, setup: (server: Server) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    setup(server);
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
