import { errorText } from "./error-text.js";
/**
 * Error codes of {@link SdkError}. One code per way a call can fail, so callers can branch on
 * `err.code` instead of parsing messages.
 */
export const ErrorCode = {
  /** The harness could not be reached (binary missing, connection refused, handshake failed). */
  Unavailable: "Unavailable",
  /** The caller aborted (AbortSignal) or the turn was halted. */
  Canceled: "Canceled",
  /** A `timeoutMs` elapsed. */
  DeadlineExceeded: "DeadlineExceeded",
  /** The connection closed while the call needed it. */
  ConnectionClosed: "ConnectionClosed",
  /** A frame did not match the wire protocol. */
  ProtocolError: "ProtocolError",
  /** The harness refused our credentials (wrong api key, HTTP 401/403). */
  PermissionDenied: "PermissionDenied",
  /** The caller passed something unusable (empty prompt, conflicting options). */
  InvalidArgument: "InvalidArgument",
  /** The harness process exited or crashed. */
  HarnessCrashed: "HarnessCrashed",
  /** The agent's turn ended with an error reported by the harness. */
  ExecutionError: "ExecutionError",
  /**
   * The call is not valid in the current state (not started, already stopped, turn in progress),
   * or the setup cannot serve it (no harness binary, no transport): fix the state or the setup first.
   */
  FailedPrecondition: "FailedPrecondition",
  /** A bug or an unexpected failure inside the SDK or user code it ran. */
  Internal: "Internal",
  /** What the call names does not exist (e.g. a resume of a session id the harness has no record of). Not retryable. */
  NotFound: "NotFound",
  /** A quota or rate limit refused the call (HTTP 429). Retryable after a pause. */
  ResourceExhausted: "ResourceExhausted",
  /**
   * What an option asks for, the wire the agent uses cannot do (`details.option`, `details.wire`):
   * refused at `build()`/`start()`, never dropped silently. Not retryable: change the option or the wire.
   */
  Unsupported: "Unsupported",
} as const;

/** One of the {@link ErrorCode} values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * The codes for which the same call may succeed if made again (after a pause): the harness was
 * unreachable or slow, the connection dropped, a quota refused it. Every other code needs a change
 * first (a key, an argument, a session id, the state) or reports a final outcome.
 */
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.Unavailable,
  ErrorCode.DeadlineExceeded,
  ErrorCode.ConnectionClosed,
  ErrorCode.ResourceExhausted,
]);

/**
 * The brand every `SdkError` carries, under a global symbol: two installed copies of the SDK
 * (a bundled one and the app's) then still recognise each other's errors with `instanceof`.
 */
const SDK_ERROR_BRAND = Symbol.for("@antigravity-ts/sdk.SdkError");

/**
 * The single error type of the SDK. Every failure that crosses the public API is an `SdkError`
 * with a {@link ErrorCode}, a message that says what to do, and the original error as `cause`.
 *
 * @example
 * try { await conversation.chatToCompletion("hi"); }
 * catch (e) { if (SdkError.from(e).code === ErrorCode.Canceled) console.log("stopped"); }
 */
export class SdkError extends Error {
  override readonly name = "SdkError";
  readonly code: ErrorCode;
  /** Extra facts for diagnostics (e.g. `httpCode`, `stderrTail`). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details ?? {};
    Object.defineProperty(this, SDK_ERROR_BRAND, { value: true });
  }

  /**
   * Whether making the same call again may succeed: `Unavailable`, `DeadlineExceeded`,
   * `ConnectionClosed` and `ResourceExhausted` are retryable (back off first); every other code
   * is not (fix the cause: the key, the arguments, the session id, the state).
   */
  get retryable(): boolean {
    return RETRYABLE_CODES.has(this.code);
  }

  /**
   * `instanceof SdkError` holds for an `SdkError` of any installed copy of this package (checked by
   * a brand under `Symbol.for`), as connect-es does for `ConnectError`. Subclasses keep the
   * ordinary prototype check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== SdkError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SDK_ERROR_BRAND] === true;
  }

  /**
   * Wraps anything thrown into an `SdkError`. An `SdkError` is returned as is; an `AbortError`
   * or `TimeoutError` from an `AbortSignal` maps to `Canceled` / `DeadlineExceeded`.
   */
  static from(reason: unknown, fallback: ErrorCode = ErrorCode.Internal): SdkError {
    if (reason instanceof SdkError) return reason;
    if (isNamedError(reason, "TimeoutError"))
      return new SdkError(ErrorCode.DeadlineExceeded, "deadline exceeded: the call's timeout elapsed", {
        cause: reason,
      });
    if (isNamedError(reason, "AbortError"))
      return new SdkError(ErrorCode.Canceled, "cancelled by the caller's AbortSignal", { cause: reason });
    const message = errorText(reason);
    return new SdkError(fallback, message, { cause: reason });
  }
}

function isNamedError(value: unknown, name: string): boolean {
  return typeof value === "object" && value !== null && (value as { name?: unknown }).name === name;
}
