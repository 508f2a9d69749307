import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { abortError, delay, linkSignal, raceSignal, throwIfAborted } from "./abort.js";

/** Counts listeners on a signal by wrapping add/removeEventListener. */
function countingSignal(): { signal: AbortSignal; controller: AbortController; listeners: () => number } {
  const controller = new AbortController();
  const signal = controller.signal;
  let count = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: EventListener, opts?: AddEventListenerOptions) => {
    count++;
    add(type, listener, opts);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, listener: EventListener) => {
    count--;
    remove(type, listener);
  }) as typeof signal.removeEventListener;
  return { signal, controller, listeners: () => count };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("linkSignal", () => {
  it("follows the caller signal and keeps its reason", () => {
    const controller = new AbortController();
    const link = linkSignal({ signal: controller.signal });
    expect(link.signal.aborted).toBe(false);
    const reason = new SdkError(ErrorCode.Canceled, "user stop");
    controller.abort(reason);
    expect(link.signal.aborted).toBe(true);
    expect(abortError(link.signal)).toBe(reason);
    link.dispose();
  });

  it("is aborted at once when a source already is", () => {
    const link = linkSignal({ signal: AbortSignal.abort() });
    expect(link.signal.aborted).toBe(true);
    expect(abortError(link.signal).code).toBe(ErrorCode.Canceled);
  });

  it("aborts with DeadlineExceeded when timeoutMs elapses", () => {
    vi.useFakeTimers();
    const link = linkSignal({ timeoutMs: 50 });
    vi.advanceTimersByTime(49);
    expect(link.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(link.signal.aborted).toBe(true);
    expect(abortError(link.signal).code).toBe(ErrorCode.DeadlineExceeded);
  });

  it("links extra signals, and undefined ones are ignored", () => {
    const extra = new AbortController();
    const link = linkSignal(undefined, undefined, extra.signal);
    extra.abort();
    expect(link.signal.aborted).toBe(true);
  });

  it("dispose detaches every listener and clears the timer", () => {
    vi.useFakeTimers();
    const source = countingSignal();
    for (let i = 0; i < 100; i++) linkSignal({ signal: source.signal, timeoutMs: 1000 }).dispose();
    expect(source.listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("detaches its listeners once it aborted", () => {
    const a = countingSignal();
    const b = countingSignal();
    const link = linkSignal({ signal: a.signal }, b.signal);
    a.controller.abort();
    expect(link.signal.aborted).toBe(true);
    expect(a.listeners()).toBe(0);
    expect(b.listeners()).toBe(0);
  });

  it("rejects a negative or NaN timeout with InvalidArgument", () => {
    expect(() => linkSignal({ timeoutMs: -1 })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
    expect(() => linkSignal({ timeoutMs: Number.NaN })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
  });
});

describe("abortError / throwIfAborted", () => {
  it("maps reasons to SdkError codes", () => {
    expect(abortError(AbortSignal.abort()).code).toBe(ErrorCode.Canceled);
    expect(abortError(AbortSignal.abort(new DOMException("t", "TimeoutError"))).code).toBe(ErrorCode.DeadlineExceeded);
    expect(abortError(AbortSignal.abort("just because")).code).toBe(ErrorCode.Canceled);
    expect(abortError(AbortSignal.abort(new Error("boom"))).message).toBe("boom");
  });

  it("throws only for an aborted signal", () => {
    expect(() => throwIfAborted(undefined)).not.toThrow();
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow();
    expect(() => throwIfAborted(AbortSignal.abort())).toThrow(SdkError);
  });
});

describe("raceSignal", () => {
  it("resolves with the promise when the signal stays quiet, and detaches", async () => {
    const source = countingSignal();
    await expect(raceSignal(Promise.resolve(7), source.signal)).resolves.toBe(7);
    expect(source.listeners()).toBe(0);
  });

  it("passes the promise's rejection through", async () => {
    await expect(raceSignal(Promise.reject(new Error("x")), new AbortController().signal)).rejects.toThrow("x");
  });

  it("rejects with the abort error while the promise is pending", async () => {
    const controller = new AbortController();
    const pending = new Promise<number>(() => {});
    const raced = raceSignal(pending, controller.signal);
    controller.abort();
    await expect(raced).rejects.toMatchObject({ code: ErrorCode.Canceled });
  });

  it("rejects at once for an already aborted signal", async () => {
    await expect(raceSignal(Promise.resolve(1), AbortSignal.abort())).rejects.toMatchObject({
      code: ErrorCode.Canceled,
    });
  });
});

describe("delay", () => {
  it("resolves after the time", async () => {
    vi.useFakeTimers();
    let done = false;
    const p = delay(100).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });

  it("rejects on abort and clears its timer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const p = delay(1000, controller.signal);
    controller.abort();
    await expect(p).rejects.toMatchObject({ code: ErrorCode.Canceled });
    expect(vi.getTimerCount()).toBe(0);
  });
});
