import { ErrorCode, SdkError, WebSocketTransport, type CallOptions, type Channel } from "@antigravity-ts/sdk";
import { abortError, delay, definedProperties } from "@antigravity-ts/sdk/internal";
import type { LookupFunction } from "node:net";
import { wsWebSocketAdapter, type WsWebSocketAdapterOptions } from "./ws-adapter.js";

const WS_ADAPTER = wsWebSocketAdapter();

/** How long `close()` waits for the harness's close frame before dropping the socket. */
export const SOCKET_CLOSE_TIMEOUT_MS = 500;

/** Options of {@link connectHarnessSocket}. */
export interface ConnectHarnessSocketOptions extends CallOptions {
  /** Port from the harness's `OutputConfig`. */
  port: number;
  /** Per-process key from the harness's `OutputConfig`, sent as `x-goog-api-key`. */
  apiKey: string;
  /** Hosts tried in order on each attempt. Default `["localhost", "127.0.0.1"]` (protocol §4). */
  hosts?: readonly string[];
  /** Number of attempts. Default 5 (protocol §4). */
  attempts?: number;
  /** First back-off in ms, doubled after each failed attempt. Default 100 (0.1·2ⁿ s, protocol §4). */
  backoffMs?: number;
  /** Per-host handshake timeout in ms. Default 10 000. */
  attemptTimeoutMs?: number;
  /** Host-name lookup for the sockets (`net.connect`'s option); default `dns.lookup`. */
  lookup?: LookupFunction;
  /** Decides how the channel's `frames()` ends when the harness drops the socket (see `WsWebSocketAdapterOptions`). */
  onPeerClose?: WsWebSocketAdapterOptions["onPeerClose"];
}

/**
 * Opens the channel to a freshly started harness (protocol §4): a {@link WebSocketTransport} to
 * `ws://<host>:<port>/` with the `x-goog-api-key` header and no frame-size cap, trying each host,
 * up to `attempts` times with exponential back-off. A refused key (`PermissionDenied`) is final
 * and not retried.
 *
 * @example
 * const channel = await connectHarnessSocket({ port: config.port, apiKey: config.apiKey });
 */
export async function connectHarnessSocket(options: ConnectHarnessSocketOptions): Promise<Channel> {
  const hosts = options.hosts ?? ["localhost", "127.0.0.1"];
  const attempts = Math.max(1, options.attempts ?? 5);
  const backoffMs = options.backoffMs ?? 100;
  const { signal, port, apiKey, lookup, onPeerClose } = options;
  const adapter =
    lookup === undefined && onPeerClose === undefined
      ? WS_ADAPTER
      : wsWebSocketAdapter(undefined, { lookup, onPeerClose });
  const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
  let lastError: SdkError | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    for (const host of hosts) {
      const remaining = deadline === undefined ? Infinity : deadline - Date.now();
      if (remaining <= 0) throw deadlineError(port, lastError);
      // `env: {}`: the harness's own port and key, never ANTIGRAVITY_HARNESS_* of this process.
      const transport = new WebSocketTransport({
        host,
        port,
        apiKey,
        env: {},
        adapter,
        closeTimeoutMs: SOCKET_CLOSE_TIMEOUT_MS,
      });
      try {
        return await transport.connect({
          timeoutMs: Math.min(remaining, options.attemptTimeoutMs ?? 10_000),
          ...definedProperties({ signal }),
        });
      } catch (error) {
        const sdkError = SdkError.from(error, ErrorCode.Unavailable);
        if (sdkError.code === ErrorCode.PermissionDenied) throw refusedOwnKey(port, sdkError);
        if (sdkError.code === ErrorCode.Canceled) throw sdkError;
        if (signal?.aborted) throw abortError(signal);
        lastError = sdkError;
      }
    }
    if (attempt < attempts - 1) await delay(backoffMs * 2 ** attempt, signal);
  }
  throw new SdkError(
    ErrorCode.Unavailable,
    `could not open the WebSocket to the harness on port ${port} after ${attempts} attempts: ${lastError?.message ?? "unknown error"}`,
    { cause: lastError },
  );
}

/** The key came from the harness's own handshake, so the usual "pass the right key" advice does not apply. */
function refusedOwnKey(port: number, refused: SdkError): SdkError {
  const why = refused.message.match(/\(HTTP [^)]*\)/)?.[0] ?? "";
  return new SdkError(
    ErrorCode.PermissionDenied,
    `the server on port ${port} refused the api key the harness's handshake gave ${why}; another program may be listening on that port, or the harness is not speaking the localharness protocol`.replace(
      "  ",
      " ",
    ),
    { cause: refused, details: refused.details },
  );
}

function deadlineError(port: number, lastError: SdkError | undefined): SdkError {
  return new SdkError(
    ErrorCode.DeadlineExceeded,
    `deadline exceeded while connecting to the harness on port ${port}${lastError ? `: ${lastError.message}` : ""}`,
    { cause: lastError },
  );
}
