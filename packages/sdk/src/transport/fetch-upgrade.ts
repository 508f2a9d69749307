import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import { errorText } from "../error-text.js";

/** The WebSocket workerd hands out on a `101` response: a standard socket that must be accepted. */
interface UpgradedWebSocket extends WebSocket {
  accept(): void;
}

/** `Response` as workerd extends it: `webSocket` is set when the server switched protocols. */
interface UpgradeResponse extends Response {
  readonly webSocket?: UpgradedWebSocket | null;
}

/** Options of {@link fetchUpgradeWebSocket}. */
export interface FetchUpgradeOptions extends CallOptions {
  /** Subprotocols to offer (`Sec-WebSocket-Protocol`). */
  protocols?: readonly string[];
  /** The `fetch` to use; defaults to `globalThis.fetch`. Tests and service bindings inject their own. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/**
 * Opens an outbound WebSocket the way Cloudflare Workers (workerd) allow it: a `fetch` with an
 * `Upgrade: websocket` header, then `response.webSocket.accept()`. Unlike `new WebSocket(url)`,
 * this can set request headers, so the harness key (`x-goog-api-key`, protocol §4) travels in
 * a header as it does from Node and Deno. `ws://`/`wss://` URLs are rewritten to `http://`/`https://`
 * because workerd's `fetch` only takes HTTP schemes. The returned socket is already open.
 *
 * Rejects with `SdkError` `PermissionDenied` on 401/403, `Unavailable` when the server does not
 * switch protocols or cannot be reached, `Canceled`/`DeadlineExceeded` from `signal`/`timeoutMs`.
 *
 * @example
 * const socket = await fetchUpgradeWebSocket("ws://127.0.0.1:8765/", { "x-goog-api-key": env.HARNESS_KEY });
 * socket.send("{}");
 */
export async function fetchUpgradeWebSocket(
  url: string | URL,
  headers: Readonly<Record<string, string>> = {},
  options: FetchUpgradeOptions = {},
): Promise<WebSocket> {
  const target = toHttpUrl(url);
  const doFetch = options.fetch ?? (globalThis.fetch as FetchUpgradeOptions["fetch"]);
  if (doFetch === undefined) {
    throw new SdkError(
      ErrorCode.FailedPrecondition,
      "fetchUpgradeWebSocket needs a global fetch (Cloudflare Workers) or options.fetch",
    );
  }
  const requestHeaders: Record<string, string> = { ...headers, Upgrade: "websocket" };
  if (options.protocols !== undefined && options.protocols.length > 0) {
    requestHeaders["Sec-WebSocket-Protocol"] = options.protocols.join(", ");
  }
  const signal = linkSignal(options);
  if (signal?.aborted) throw SdkError.from(signal.reason, ErrorCode.Canceled);

  let response: UpgradeResponse;
  try {
    const init: RequestInit = signal === undefined ? { headers: requestHeaders } : { headers: requestHeaders, signal };
    response = (await doFetch(target, init)) as UpgradeResponse;
  } catch (cause) {
    if (signal?.aborted) throw SdkError.from(signal.reason, ErrorCode.Canceled);
    throw new SdkError(
      ErrorCode.Unavailable,
      `could not reach the harness at ${target}: ${errorText(cause)}; is it listening?`,
      { cause },
    );
  }

  const socket = response.webSocket;
  if (response.status === 101 && socket) {
    socket.accept();
    return socket;
  }
  // The body of a refused upgrade is the server's explanation; keep a short tail for the message.
  const body = await response.text().catch(() => "");
  const detail = body.trim().slice(0, 200);
  const details = { httpCode: response.status };
  if (response.status === 401 || response.status === 403) {
    throw new SdkError(
      ErrorCode.PermissionDenied,
      `harness at ${target} refused the api key (HTTP ${response.status}); check the key you pass in the headers${detail ? `: ${detail}` : ""}`,
      {
        details,
      },
    );
  }
  throw new SdkError(
    ErrorCode.Unavailable,
    response.status === 101
      ? `fetch to ${target} switched protocols but returned no webSocket; fetchUpgradeWebSocket only works where fetch supports upgrades (Cloudflare Workers)`
      : `harness at ${target} did not accept the WebSocket upgrade (HTTP ${response.status})${detail ? `: ${detail}` : ""}`,
    { details },
  );
}

/** `ws:` → `http:`, `wss:` → `https:`; HTTP URLs pass through; anything else is an argument error. */
function toHttpUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch (cause) {
    throw new SdkError(ErrorCode.InvalidArgument, `not a URL: ${String(url)}`, { cause });
  }
  if (parsed.protocol === "ws:") parsed.protocol = "http:";
  else if (parsed.protocol === "wss:") parsed.protocol = "https:";
  else if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `unsupported URL scheme ${parsed.protocol} (use ws:, wss:, http: or https:)`,
    );
  }
  return parsed.href;
}

function linkSignal(options: CallOptions): AbortSignal | undefined {
  const signals: AbortSignal[] = [];
  if (options.signal !== undefined) signals.push(options.signal);
  if (options.timeoutMs !== undefined) signals.push(AbortSignal.timeout(options.timeoutMs));
  if (signals.length === 0) return undefined;
  return signals.length === 1 ? signals[0] : AbortSignal.any(signals);
}
