import type { IncomingMessage } from "node:http";
import { ErrorCode, SdkError, abortError, type CallOptions } from "@antigravity-ts/sdk";
import { WebSocket } from "ws";

/** Header carrying the per-process harness secret on the WebSocket upgrade (protocol §4). */
export const API_KEY_HEADER = "x-goog-api-key";

/** Options of {@link openWebSocket}. */
export interface OpenWebSocketOptions extends CallOptions {
  /** Headers of the upgrade request (e.g. `x-goog-api-key`). */
  headers?: Readonly<Record<string, string>>;
  /** Subprotocols to offer. */
  protocols?: readonly string[];
}

/**
 * Opens one client WebSocket with `ws`: no frame-size cap (`maxPayload: 0`, protocol §4: large
 * tool results must pass) and no compression (loopback). Resolves once open.
 *
 * Rejects with `PermissionDenied` when the server answers 401/403 (wrong api key), `Unavailable`
 * when it cannot be reached or refuses the upgrade, `Canceled`/`DeadlineExceeded` from the options.
 */
export function openWebSocket(url: string, options: OpenWebSocketOptions = {}): Promise<WebSocket> {
  const { signal, timeoutMs } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise<WebSocket>((resolve, reject) => {
    const socket = new WebSocket(url, options.protocols === undefined ? [] : [...options.protocols], {
      headers: { ...options.headers },
      maxPayload: 0,
      perMessageDeflate: false,
      ...(timeoutMs === undefined ? {} : { handshakeTimeout: timeoutMs }),
    });
    let refusedStatus: number | undefined;
    let refusedBody = "";
    const cleanup = (): void => {
      signal?.removeEventListener("abort", onAbort);
      socket.off("open", onOpen);
      socket.off("error", onError);
      socket.off("unexpected-response", onRefused);
    };
    const onOpen = (): void => {
      cleanup();
      resolve(socket);
    };
    const onError = (cause: Error): void => {
      cleanup();
      // A late 'error' after we settled must not crash the process.
      socket.on("error", () => {});
      reject(describeFailure(url, cause, refusedStatus, refusedBody, signal));
    };
    const onRefused = (_request: unknown, response: IncomingMessage): void => {
      refusedStatus = response.statusCode;
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        if (refusedBody.length < 400) refusedBody += chunk;
      });
      response.on("end", () => socket.terminate());
      response.on("error", () => socket.terminate());
    };
    const onAbort = (): void => socket.terminate();
    socket.once("open", onOpen);
    socket.once("error", onError);
    socket.on("unexpected-response", onRefused);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function describeFailure(url: string, cause: Error, status: number | undefined, body: string, signal: AbortSignal | undefined): SdkError {
  if (signal?.aborted) return abortError(signal);
  const detail = body.trim().slice(0, 200);
  if (status === 401 || status === 403) {
    return new SdkError(ErrorCode.PermissionDenied, `harness at ${url} refused the api key (HTTP ${status}${detail ? `: ${detail}` : ""}); the key must be the one from this harness's handshake`, { cause, details: { httpCode: status } });
  }
  if (status !== undefined) {
    return new SdkError(ErrorCode.Unavailable, `harness at ${url} did not accept the WebSocket upgrade (HTTP ${status}${detail ? `: ${detail}` : ""})`, { cause, details: { httpCode: status } });
  }
  if (/handshake has timed out/i.test(cause.message)) {
    return new SdkError(ErrorCode.DeadlineExceeded, `WebSocket handshake with ${url} timed out`, { cause });
  }
  return new SdkError(ErrorCode.Unavailable, `could not connect to the harness at ${url}: ${cause.message}`, { cause });
}
