import { ErrorCode, SdkError } from "../errors.js";
import type { HarnessConfig } from "../wire/index.js";
import { HarnessConfig_SessionContinuationMode } from "../wire/wire-enums.gen.js";
import { createMessage } from "../wire/plain-message.js";

/**
 * How a connection re-opens its transport after an unexpected close (docs/runtimes.md
 * "Reconnect"). Only a transport to a harness that outlives the socket can offer it: the
 * `WebSocketTransport` to a listening harness does; a subprocess transport cannot (its harness
 * dies with the pipe) and never reconnects.
 */
export interface ReconnectOptions {
  /** Attempts per disconnect before the connection closes with the last error. Default 5; at least 1. */
  maxAttempts?: number;
  /** Wait before the first attempt, doubled after each failed one. Default 100 ms. */
  initialDelayMs?: number;
  /** Upper bound of the wait between attempts. Default 5 000 ms. */
  maxDelayMs?: number;
  /** Called after each successful resume (for logs and tests); must not throw. */
  onReconnected?: (event: ReconnectedEvent) => void;
}

/** What {@link ReconnectOptions.onReconnected} receives. */
export interface ReconnectedEvent {
  /** The resumed conversation id. */
  readonly conversationId: string;
  /** 1-based attempt of this disconnect that succeeded. */
  readonly attempt: number;
  /** True when a turn was running at the drop and ended as interrupted (see {@link interruptedByDisconnect}). */
  readonly interruptedTurn: boolean;
  /** Number of steps the harness replayed (protocol §5 `history`). */
  readonly replayedSteps: number;
}

/** Validated {@link ReconnectOptions}. */
export interface ReconnectPolicy {
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly onReconnected: ((event: ReconnectedEvent) => void) | undefined;
}

/** Validates `options` (`InvalidArgument` saying which field is wrong). */
export function reconnectPolicy(options: ReconnectOptions): ReconnectPolicy {
  const maxAttempts = options.maxAttempts ?? 5;
  const initialDelayMs = options.initialDelayMs ?? 100;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1)
    throw invalid("maxAttempts", "an integer >= 1", maxAttempts);
  if (!Number.isFinite(initialDelayMs) || initialDelayMs < 0)
    throw invalid("initialDelayMs", "a finite number >= 0", initialDelayMs);
  if (!Number.isFinite(maxDelayMs) || maxDelayMs < initialDelayMs)
    throw invalid("maxDelayMs", "a finite number >= initialDelayMs", maxDelayMs);
  return { maxAttempts, initialDelayMs, maxDelayMs, onReconnected: options.onReconnected };
}

function invalid(field: string, expected: string, got: unknown): SdkError {
  return new SdkError(ErrorCode.InvalidArgument, `reconnect.${field} must be ${expected}, got ${String(got)}`);
}

/** The wait before attempt `attempt` (0-based): exponential, never above `maxDelayMs`. */
export function backoffDelay(policy: ReconnectPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt, 30));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as unknown);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as unknown);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The configuration that resumes `cascadeId` (protocol §5.1: `cascade_id` and
 * `session_continuation_mode = RESUME`); everything else as first sent, so the harness rebuilds
 * the same session. A harness that no longer has the session refuses it (`NotFound`).
 */
export function resumeConfig(config: HarnessConfig, cascadeId: string): HarnessConfig {
  return createMessage<HarnessConfig>("antigravity.localharness.HarnessConfig", {
    ...config,
    cascadeId,
    sessionContinuationMode: HarnessConfig_SessionContinuationMode.RESUME,
  });
}

/**
 * The error a turn ends with when the socket dropped while it ran and the harness did not hold
 * it: the reference harness stops a turn whose client left (except one waiting for a tool
 * confirmation) and records its unfinished steps as failed. The connection itself went on:
 * the steps so far are in the replayed history; send the prompt again to retry.
 */
export function interruptedByDisconnect(cause: SdkError): SdkError {
  return new SdkError(
    ErrorCode.ConnectionClosed,
    `the turn was interrupted by a disconnect (${cause.message}); the connection reconnected and resumed the session, whose history holds the turn's steps so far — send the prompt again to retry`,
    { cause, details: { interruptedByDisconnect: true } },
  );
}
