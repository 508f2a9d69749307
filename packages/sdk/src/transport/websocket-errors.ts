import { ErrorCode, SdkError } from "../errors.js";
import type { WebSocketEventLike } from "./websocket-like.js";

/**
 * Where a connection to a harness stopped making progress: `connect` (no TCP connection, or the
 * runtime cannot tell TCP from the upgrade, as in browsers), `upgrade` (TCP accepted, no answer
 * to the WebSocket upgrade), `init` (the WebSocket is open, no answer to the first frame sent).
 */
export type ConnectStage = "connect" | "upgrade" | "init";

const STAGE_TEXT: Record<ConnectStage, string> = {
  connect: "did not accept the connection",
  upgrade: "accepted the TCP connection but did not answer the WebSocket upgrade",
  init: "opened the WebSocket but did not answer the session configuration",
};

/** `DeadlineExceeded` for a stage that took longer than its limit; names the URL (without its query) and the stage. */
export function stageDeadlineError(target: string, stage: ConnectStage, timeoutMs: number, option: string): SdkError {
  const url = redactUrl(target);
  return new SdkError(
    ErrorCode.DeadlineExceeded,
    `the harness at ${url} ${STAGE_TEXT[stage]} within ${timeoutMs} ms (stage: ${stage}); check that a harness (not another server) listens there, or raise ${option}`,
    { details: { url, stage, timeoutMs } },
  );
}

/**
 * The caller's own deadline (`timeoutMs`/`signal` of `connect()` or `start()`) that ran out while
 * the harness at `target` was at `stage`: `DeadlineExceeded` keeping the URL and the stage (and
 * the caller's `timeoutMs`), not a bare "deadline exceeded". Any other error is returned as is.
 */
export function withStage(error: SdkError, target: string, stage: ConnectStage): SdkError {
  if (error.code !== ErrorCode.DeadlineExceeded || error.details["stage"] !== undefined) return error;
  const url = redactUrl(target);
  const timeoutMs = error.details["timeoutMs"];
  const within =
    typeof timeoutMs === "number" ? `within the call's timeoutMs (${timeoutMs} ms)` : "before the call's deadline";
  return new SdkError(
    ErrorCode.DeadlineExceeded,
    `the harness at ${url} ${STAGE_TEXT[stage]} ${within} (stage: ${stage}); check that a harness (not another server) listens there, or raise the call's timeoutMs`,
    {
      cause: error,
      details: { ...error.details, url, stage },
    },
  );
}

/** A refused upgrade as `ws` reports it: the response's status and the start of its body. */
export interface Refusal {
  status: number | undefined;
  body: string;
}

/** What the client offered on the upgrade, to say what a refusal most likely means. */
export interface Offered {
  /** An `x-goog-api-key` header was sent. */
  readonly apiKey: boolean;
  /** A gateway token was offered (subprotocol `antigravity.token.*` or `token` in the query). */
  readonly token: boolean;
}

/** The typed error of a connect that failed before the socket opened (protocol §4). */
export function connectError(
  target: string,
  event: WebSocketEventLike,
  refusal: Refusal | undefined,
  offered: Offered,
): SdkError {
  const url = redactUrl(target);
  const text = event.message ?? (event.error instanceof Error ? event.error.message : "") ?? "";
  // `ws` says "Unexpected server response: 401"; Deno's WebSocket "Invalid status code: 401".
  const httpCode =
    refusal?.status ??
    Number(/(?:Unexpected server response|Invalid status code):? (\d{3})/.exec(text)?.[1] ?? Number.NaN);
  const details = Number.isNaN(httpCode) ? {} : { httpCode };
  const body = refusal?.body.trim().slice(0, 200) ?? "";
  const http = `HTTP ${httpCode}${body === "" ? "" : `: ${body}`}`;
  const options = { cause: event.error, details };
  if (httpCode === 401 || httpCode === 403)
    return new SdkError(ErrorCode.PermissionDenied, credentialRefusal(url, http, offered), options);
  if (httpCode === 429)
    return new SdkError(
      ErrorCode.ResourceExhausted,
      `${url} refused the connection for now (${http}); too many connections or a quota: retry later`,
      options,
    );
  if (!Number.isNaN(httpCode))
    return new SdkError(ErrorCode.Unavailable, `could not connect to the harness at ${url}: ${http}`, options);
  if (text !== "")
    return new SdkError(
      ErrorCode.Unavailable,
      `could not connect to the harness at ${url}: ${text}; is it running and listening there?`,
      options,
    );
  // Browsers report a refused upgrade and a closed port alike: an error event without detail.
  const closed = `connection closed${event.code === undefined ? "" : ` (code ${event.code})`}`;
  const hint = offered.token
    ? "the runtime does not say why (browsers hide a refused upgrade's HTTP status): check the gateway's token and allowed origins, and that it is running and listening there"
    : "the runtime does not say why (browsers hide a refused upgrade's HTTP status): check that it is running and listening there and accepts this page's origin";
  return new SdkError(ErrorCode.Unavailable, `could not connect to the harness at ${url}: ${closed}; ${hint}`, options);
}

function credentialRefusal(url: string, http: string, offered: Offered): string {
  if (offered.token)
    return `the gateway at ${url} refused the token or this page's origin (${http}); pass the token it issued and serve the page from an allowed origin`;
  if (offered.apiKey)
    return `the harness at ${url} refused the api key (${http}); pass the key it expects (apiKey / ANTIGRAVITY_API_KEY)`;
  return `the harness at ${url} requires an api key and none was sent (${http}); pass apiKey or set ANTIGRAVITY_API_KEY (browsers connect through the gateway of @antigravity-ts/node instead)`;
}

/**
 * The reason the reference harness gives when it refuses a RESUME of a session it has no record
 * of (close code 1008, reason `no stored session <id> to resume in <where>`).
 */
const UNKNOWN_SESSION = /^no stored session \S+ to resume/;

/**
 * The error `frames()` ends with when the peer closed the socket: none for 1000 (a normal end),
 * `NotFound` for a refused resume of an unknown session (1008, see {@link UNKNOWN_SESSION}),
 * else `ConnectionClosed`.
 */
export function peerCloseError(url: string, code: number, reason: string): SdkError | undefined {
  if (code === 1000) return undefined;
  const details = { closeCode: code, closeReason: reason };
  if (code === 1008 && UNKNOWN_SESSION.test(reason)) {
    return new SdkError(
      ErrorCode.NotFound,
      `the harness at ${url} has no session to resume (${reason}); check the conversationId and the save directory, or start a new session`,
      { details },
    );
  }
  // 1006: no close frame (RFC 6455 §7.1.5), so the reason is ours to tell.
  const why = reason || (code === 1006 ? "no close frame; the harness stopped or the network dropped" : "");
  return new SdkError(
    ErrorCode.ConnectionClosed,
    `the WebSocket to ${url} closed unexpectedly (code ${code}${why ? `: ${why}` : ""}); start the agent again to reconnect (a saved session resumes with its conversationId)`,
    { details },
  );
}

/** The URL without its query, fragment and credentials, for error messages: a gateway token travels in the query. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return url.replace(/[?#].*$/, "");
  }
}
