/**
 * A log that cannot be flooded: per kind of event (e.g. `refused 401`), the first event of a
 * window is written at once and the rest are only counted; when the window ends, one summary
 * line says how many more there were. A client hammering a server therefore produces at most two
 * lines per kind per window, however many requests it sends. Used by the harness's and the
 * gateway's refusal logs (issue 8 item 13).
 *
 * @example
 * const log = new LogThrottle((line) => console.warn(line));
 * log.note("refused 401", `refused ${address}: wrong key`, "refused connections (wrong key)");
 */
export class LogThrottle {
  readonly #write: (line: string) => void;
  readonly #windowMs: number;
  readonly #windows = new Map<string, { suppressed: number; what: string }>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `write` gets one line per call (no trailing newline); a throwing `write` is ignored. */
  constructor(write: (line: string) => void, windowMs = 10_000) {
    this.#write = write;
    this.#windowMs = windowMs;
  }

  /** Records one event of `kind`; `line` is written only if it is the first of its window. `what` names the events in the summary. */
  note(kind: string, line: string, what = kind): void {
    const window = this.#windows.get(kind);
    if (window !== undefined) {
      window.suppressed++;
      return;
    }
    this.#windows.set(kind, { suppressed: 0, what });
    this.#emit(line);
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush();
      }, this.#windowMs);
      // Node: the window must not keep the process alive.
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** Ends the current window: one summary line per kind that had suppressed events. */
  flush(): void {
    const seconds = Math.round(this.#windowMs / 1000);
    for (const window of this.#windows.values()) {
      if (window.suppressed > 0)
        this.#emit(`${window.suppressed} more ${window.what} in the last ${seconds} s (not logged one by one)`);
    }
    this.#windows.clear();
  }

  /** Flushes and stops the window timer (shutdown). */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.flush();
  }

  #emit(line: string): void {
    try {
      this.#write(line);
    } catch {
      // A failing sink must not take a connection down with it.
    }
  }
}
