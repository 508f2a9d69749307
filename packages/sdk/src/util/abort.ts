import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";

/** A signal that aborts when any of its sources does, and the function that detaches it. */
export interface LinkedSignal {
  /** Aborts with the first source's reason, or an `SdkError` `DeadlineExceeded` when `timeoutMs` elapses. */
  readonly signal: AbortSignal;
  /** Clears the timer and removes every listener added to the sources. Idempotent; always call it. */
  dispose(): void;
}

/**
 * Links `options.signal`, `options.timeoutMs` and any extra signals into one signal.
 *
 * Listeners are attached by hand rather than with `AbortSignal.any` so that `dispose()` detaches
 * them for sure: a long-lived caller signal must not collect one listener per call.
 *
 * @example
 * const link = linkSignal(options);
 * try { await work(link.signal); } finally { link.dispose(); }
 */
export function linkSignal(options?: CallOptions, ...extra: readonly (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController();
  const sources = [options?.signal, ...extra].filter((s): s is AbortSignal => s !== undefined);
  const detachers: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const dispose = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    for (const detach of detachers.splice(0)) detach();
  };
  const abort = (reason: unknown): void => {
    dispose();
    controller.abort(reason);
  };
  for (const source of sources) {
    if (source.aborted) {
      abort(source.reason);
      return { signal: controller.signal, dispose };
    }
    const onAbort = (): void => abort(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    detachers.push(() => source.removeEventListener("abort", onAbort));
  }
  const timeoutMs = options?.timeoutMs;
  if (timeoutMs !== undefined) {
    if (!(timeoutMs >= 0))
      throw new SdkError(ErrorCode.InvalidArgument, `timeoutMs must be a number >= 0, got ${String(timeoutMs)}`);
    const error = new SdkError(
      ErrorCode.DeadlineExceeded,
      `deadline exceeded: the call did not finish within ${timeoutMs} ms`,
      { details: { timeoutMs } },
    );
    timer = setTimeout(() => abort(error), timeoutMs);
  }
  return { signal: controller.signal, dispose };
}

/**
 * The `SdkError` an aborted signal stands for: its reason if that is an `SdkError`,
 * `DeadlineExceeded` for a `TimeoutError` (e.g. `AbortSignal.timeout`), else `Canceled`.
 */
export function abortError(signal: AbortSignal): SdkError {
  const reason: unknown = signal.reason;
  if (reason === undefined) return new SdkError(ErrorCode.Canceled, "cancelled by the caller's AbortSignal");
  return SdkError.from(reason, ErrorCode.Canceled);
}

/** Throws {@link abortError} if `signal` is aborted; does nothing for `undefined`. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/**
 * Waits for `promise`, or rejects with {@link abortError} as soon as `signal` aborts. The promise
 * itself is not cancelled (it keeps running; a later rejection of it is not reported as unhandled).
 */
export function raceSignal<T>(promise: PromiseLike<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return Promise.resolve(promise);
  if (signal.aborted) {
    Promise.resolve(promise).catch(noop);
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Resolves after `ms` milliseconds; rejects with {@link abortError} (and clears the timer) if `signal` aborts first. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function noop(): void {}
