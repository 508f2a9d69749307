import { ErrorCode, SdkError, abortError, delay, type CallOptions } from "@antigravity-ts/sdk";
import type { WebSocket } from "ws";
import { API_KEY_HEADER, openWebSocket } from "./open-websocket.js";

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
}

/**
 * Opens the WebSocket to a freshly started harness (protocol §4): `ws://<host>:<port>/` with the
 * `x-goog-api-key` header, trying each host, up to `attempts` times with exponential back-off.
 * A refused key (`PermissionDenied`) is final and not retried.
 *
 * @example
 * const socket = await connectHarnessSocket({ port: config.port, apiKey: config.apiKey });
 */
export async function connectHarnessSocket(options: ConnectHarnessSocketOptions): Promise<WebSocket> {
  const hosts = options.hosts ?? ["localhost", "127.0.0.1"];
  const attempts = Math.max(1, options.attempts ?? 5);
  const backoffMs = options.backoffMs ?? 100;
  const { signal } = options;
  const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
  let lastError: SdkError | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    for (const host of hosts) {
      const remaining = deadline === undefined ? Infinity : deadline - Date.now();
      if (remaining <= 0) throw deadlineError(options.port, lastError);
      const url = `ws://${host.includes(":") ? `[${host}]` : host}:${options.port}/`;
      try {
        return await openWebSocket(url, {
          headers: { [API_KEY_HEADER]: options.apiKey },
          timeoutMs: Math.min(remaining, options.attemptTimeoutMs ?? 10_000),
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error) {
        const sdkError = SdkError.from(error, ErrorCode.Unavailable);
        if (sdkError.code === ErrorCode.PermissionDenied || sdkError.code === ErrorCode.Canceled) throw sdkError;
        if (signal?.aborted) throw abortError(signal);
        lastError = sdkError;
      }
    }
    if (attempt < attempts - 1) await delay(backoffMs * 2 ** attempt, signal);
  }
  throw new SdkError(ErrorCode.Unavailable, `could not open the WebSocket to the harness on port ${options.port} after ${attempts} attempts: ${lastError?.message ?? "unknown error"}`, { cause: lastError });
}

function deadlineError(port: number, lastError: SdkError | undefined): SdkError {
  return new SdkError(ErrorCode.DeadlineExceeded, `deadline exceeded while connecting to the harness on port ${port}${lastError ? `: ${lastError.message}` : ""}`, { cause: lastError });
}
