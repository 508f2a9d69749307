import type { Server } from "node:http";
import { ErrorCode, SdkError, WebSocketTransport, type Channel, type Transport } from "@antigravity-ts/sdk";
import { definedProperties, LogThrottle } from "@antigravity-ts/sdk/internal";
import { SOCKET_CLOSE_TIMEOUT_MS } from "../socket/connect-harness-socket.js";
import type { OriginPolicy, TokenPolicy } from "./gateway-auth.js";
import { remoteAddress, stderrSink, type GatewayLogSink } from "./gateway-log.js";
import { GatewayRelay, type OpenHarnessChannel } from "./gateway-relay.js";
import type { GatewaySessionOptions } from "./gateway-session.js";
import { openPageEndpoint, type PageEndpoint } from "./page-endpoint.js";
import { SessionOwnership } from "./session-ownership.js";

/** Where the gateway sends each browser: one running harness, or a fresh transport per client. */
export type HarnessGatewayTarget =
  /** A harness WebSocket (`ws://127.0.0.1:8765/`) and its key; the gateway adds `x-goog-api-key`. */
  | { url: string; apiKey: string }
  /** A transport per browser client, e.g. `() => new SubprocessTransport()` for a harness each. */
  | { transport: () => Transport | Promise<Transport> };

/** Options of {@link createHarnessGateway}. */
export interface HarnessGatewayOptions {
  target: HarnessGatewayTarget;
  /** Page origins allowed to connect (`Origin` header). Others get HTTP 403. */
  allowedOrigins: OriginPolicy;
  /** The token a page must present (`?token=` or subprotocol `antigravity.token.<token>`). Others get HTTP 401. */
  token: TokenPolicy;
  /**
   * Attach to this server's `upgrade` events instead of listening on a port. Its own
   * `headersTimeout`, `requestTimeout` and `connectionsCheckingInterval` then bound half-sent
   * requests (Node's defaults: 60 s, checked every 30 s); `headersTimeoutMs` is refused with it.
   */
  server?: Server;
  /** Standalone mode: port to listen on (0 = any free port). Default 0. */
  port?: number;
  /** Standalone mode: address to bind. Default `127.0.0.1`. */
  host?: string;
  /**
   * Standalone mode: a client that has not sent a whole request (an upgrade's headers) within this
   * time gets HTTP 408 and is closed, so half-sent requests cannot hold sockets. Checked every
   * second (more often below 1 s). Default 5 000 ms.
   */
  headersTimeoutMs?: number;
  /** URL path of the endpoint. Default `/`. */
  path?: string;
  /** Most browser connections at once; more get HTTP 503. Default 16. */
  maxConnections?: number;
  /** Bound on connecting to the harness for a new client, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /**
   * What every page's session may do: workspaces (required), containment, tools, policy floor,
   * MCP servers, models… The page's own values for these are overridden or refused (docs/gateway.md).
   */
  session: GatewaySessionOptions;
  /** A page that sends no first frame within this time is closed (1008) and its slot freed. Default 10 000 ms. */
  firstFrameTimeoutMs?: number;
  /** Largest first frame (`InitializeConversationEvent`) accepted, in bytes; larger ones are closed with 1009. Default 1 MiB. */
  maxFirstFrameBytes?: number;
  /** Where log lines go (refusals, overridden page settings), rate-limited per kind. Default: stderr. */
  log?: GatewayLogSink;
}

/** A running gateway: its `url` (standalone mode), `connectionCount`, and `close()`, which refuses new
 * clients, closes every relay (browsers get 1001) and, in standalone mode, the server. */
export type HarnessGateway = PageEndpoint;

/**
 * A WebSocket endpoint for browser pages that relays protocol frames to a harness and adds the
 * `x-goog-api-key` itself, so the page never holds the harness key (ARCHITECTURE.md, "where the
 * harness key lives"). The operator, not the page, decides what a session may do: the page's
 * first frame is rewritten with `session` (workspaces, containment, tools, policy floor…) or
 * refused, and a page may resume only its own sessions. Checks `Origin` and a per-client token
 * before upgrading, caps concurrent connections, closes pages that never speak, never caps later
 * frames (protocol §4), and closes the other side when either goes away (a per-client subprocess
 * harness is shut down with its browser). Throws `InvalidArgument` for a bad `session`.
 *
 * @example
 * const gateway = await createHarnessGateway({
 *   target: { transport: () => new SubprocessTransport() },
 *   allowedOrigins: ["http://localhost:5173"],
 *   token: process.env.GATEWAY_TOKEN ?? "dev-token",
 *   session: { workspaces: ["/srv/agent-workspace"] },
 *   port: 8787,
 * });
 * // page: new WebSocketTransport({ url: `ws://localhost:8787/?token=${token}` })
 */
export async function createHarnessGateway(options: HarnessGatewayOptions): Promise<HarnessGateway> {
  const headersTimeoutMs = options.headersTimeoutMs ?? 5_000;
  if (options.server !== undefined && options.headersTimeoutMs !== undefined) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      "headersTimeoutMs applies to the gateway's own server; with `server`, set headersTimeout and requestTimeout on that server",
    );
  }
  if (!(headersTimeoutMs >= 1 && Number.isSafeInteger(headersTimeoutMs)))
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `headersTimeoutMs must be a whole number of ms >= 1, got ${headersTimeoutMs}`,
    );
  const path = options.path ?? "/";
  const maxConnections = options.maxConnections ?? 16;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const firstFrameTimeoutMs = options.firstFrameTimeoutMs ?? 10_000;
  const maxFirstFrameBytes = options.maxFirstFrameBytes ?? 1024 * 1024;
  // The session rules and the page gate check configs and frames with the generated schema: they
  // load with the first gateway, so that importing @antigravity-ts/node does not build the schema.
  const [{ resolveSessionRules }, { PageGate }] = await Promise.all([
    import("./gateway-session.js"),
    import("./page-gate.js"),
  ]);
  const rules = await resolveSessionRules(options.session);
  const ownership = new SessionOwnership();
  const log = new LogThrottle(options.log ?? stderrSink);
  const open = harnessOpener(options.target, connectTimeoutMs);
  return openPageEndpoint({
    allowedOrigins: options.allowedOrigins,
    token: options.token,
    ...definedProperties({ server: options.server, port: options.port, host: options.host }),
    path,
    headersTimeoutMs,
    maxConnections,
    maxPayload: 0,
    log,
    startRelay(browser, request, presented) {
      const page = { token: presented.token, request };
      const gate = new PageGate({ rules, ownership, page, maxFirstFrameBytes, log });
      const onRefused = (code: number, reason: string): void =>
        log.note(
          `closed ${code}`,
          `closed a page from ${remoteAddress(request)} with ${code}: ${reason}`,
          `pages closed with ${code}`,
        );
      return new GatewayRelay(browser, { open, gate, firstFrameTimeoutMs, onRefused });
    },
  });
}

function harnessOpener(target: HarnessGatewayTarget, timeoutMs: number): OpenHarnessChannel {
  if ("url" in target) {
    // `env: {}`: the target's URL and key, never ANTIGRAVITY_* of the gateway's process.
    const transport = new WebSocketTransport({
      url: target.url,
      apiKey: target.apiKey,
      env: {},
      closeTimeoutMs: SOCKET_CLOSE_TIMEOUT_MS,
    });
    return (signal): Promise<Channel> => transport.connect({ signal, timeoutMs });
  }
  return async (signal): Promise<Channel> => {
    const transport = await target.transport();
    return transport.connect({ signal, timeoutMs });
  };
}
