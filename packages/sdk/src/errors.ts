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
  /** The call is not valid in the current state (not started, already stopped, turn in progress). */
  FailedPrecondition: "FailedPrecondition",
  /** A bug or an unexpected failure inside the SDK or user code it ran. */
  Internal: "Internal",
} as const;

/** One of the {@link ErrorCode} values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

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
  }

  /**
   * Wraps anything thrown into an `SdkError`. An `SdkError` is returned as is; an `AbortError`
   * or `TimeoutError` from an `AbortSignal` maps to `Canceled` / `DeadlineExceeded`.
   */
  static from(reason: unknown, fallback: ErrorCode = ErrorCode.Internal): SdkError {
    if (reason instanceof SdkError) return reason;
    if (isNamedError(reason, "TimeoutError")) return new SdkError(ErrorCode.DeadlineExceeded, "deadline exceeded: the call's timeout elapsed", { cause: reason });
    if (isNamedError(reason, "AbortError")) return new SdkError(ErrorCode.Canceled, "cancelled by the caller's AbortSignal", { cause: reason });
    const message = reason instanceof Error ? reason.message : String(reason);
    return new SdkError(fallback, message, { cause: reason });
  }
}

function isNamedError(value: unknown, name: string): boolean {
  return typeof value === "object" && value !== null && (value as { name?: unknown }).name === name;
}
