/**
 * Retries of model API calls with exponential backoff, from `HarnessConfig.retry_config.api_retry`
 * (protocol §19 `ModelAPIRetryConfig`; upstream `types.ModelAPIRetryConfig`: "retries for
 * transient API errors" with an initial sleep, a multiplier and a jitter range).
 */
import type { RetryConfig } from "@antigravity-ts/sdk/wire";
import { ModelError } from "../model/provider.js";

/** How transient failures of a model call are retried. */
export interface ApiRetryPolicy {
  /** Retries after the first attempt; 0 = none. */
  maxRetries: number;
  initialDelayMs: number;
  /** Each retry waits `multiplier` times longer than the one before. */
  multiplier: number;
  /** Each wait is scaled by a random factor in `[1 - jitter, 1 + jitter]`. */
  jitter: number;
}

/** No retries: what a session without `retryConfig.apiRetry` gets. */
export const NO_RETRIES: ApiRetryPolicy = { maxRetries: 0, initialDelayMs: 0, multiplier: 1, jitter: 0 };

/** Defaults of the fields `ModelAPIRetryConfig` leaves unset (our choice; upstream's are not published). */
const DEFAULTS = { initialDelayMs: 1000, multiplier: 2, jitter: 0.1 } as const;
/** No single wait is longer than this, however many retries `RetryConfig.benchmark()` allows. */
export const MAX_RETRY_DELAY_MS = 60_000;

/** HTTP statuses worth another attempt: timeouts, rate limits, overload and gateway failures. */
const TRANSIENT_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** The policy of `retry_config.api_retry`; {@link NO_RETRIES} when absent. */
export function retryPolicyFrom(config: RetryConfig | undefined): ApiRetryPolicy {
  const api = config?.apiRetry;
  if (api === undefined) return NO_RETRIES;
  const finite = (value: number | undefined, fallback: number): number =>
    value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
  return {
    maxRetries: api.maxRetries ?? 0,
    initialDelayMs: api.initialSleepDurationMs ?? DEFAULTS.initialDelayMs,
    multiplier: finite(api.exponentialMultiplier, DEFAULTS.multiplier),
    jitter: Math.min(1, finite(api.jitterRange, DEFAULTS.jitter)),
  };
}

/**
 * True for a failure another attempt may cure: a transient HTTP status, or no response at all
 * (`httpCode` 0; only request failures are retried, never a stream that already started).
 */
export function isTransient(error: unknown): boolean {
  return error instanceof ModelError && (error.httpCode === 0 || TRANSIENT_STATUS.has(error.httpCode));
}

/** The wait before retry number `retry` (0-based). */
export function retryDelayMs(policy: ApiRetryPolicy, retry: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_DELAY_MS, policy.initialDelayMs * policy.multiplier ** retry);
  const scaled = base * (1 + policy.jitter * (2 * random() - 1));
  return Math.max(0, Math.min(MAX_RETRY_DELAY_MS, Math.round(scaled)));
}

/**
 * Runs `attempt` until it succeeds, fails with a non-transient error, or the retries are spent
 * (the last error is thrown). Waits between attempts stop at once when `signal` aborts.
 */
export async function withRetries<T>(
  policy: ApiRetryPolicy,
  signal: AbortSignal,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      signal.throwIfAborted();
      if (retry >= policy.maxRetries || !isTransient(error)) throw error;
    }
    await abortableSleep(retryDelayMs(policy, retry), signal);
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    signal.throwIfAborted();
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
