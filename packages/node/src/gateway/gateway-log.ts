import type { IncomingMessage } from "node:http";

/** Where the gateway writes its log lines (one line per call, no trailing newline). */
export type GatewayLogSink = (line: string) => void;

/** The default sink: standard error, prefixed so the lines can be told apart from the app's. */
export const stderrSink: GatewayLogSink = (line) => void process.stderr.write(`antigravity gateway: ${line}\n`);

interface Window {
  suppressed: number;
  what: string;
}

/**
 * A log that cannot be flooded: per kind of event (e.g. `refused 401`), the first event of a
 * window is written at once and the rest are only counted; when the window ends one summary line
 * says how many more there were. So a client hammering the gateway produces at most two lines
 * per kind per window, however many requests it sends (issue 8 item 13).
 */
export class GatewayLog {
  readonly #sink: GatewayLogSink;
  readonly #windowMs: number;
  readonly #windows = new Map<string, Window>();
  #timer: NodeJS.Timeout | undefined;

  constructor(sink: GatewayLogSink = stderrSink, windowMs = 10_000) {
    this.#sink = sink;
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
    this.#write(line);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, this.#windowMs).unref();
  }

  /** Writes a line that is never rate-limited (one-off events such as start-up). */
  info(line: string): void {
    this.#write(line);
  }

  /** Ends the current window: one summary line per kind that had suppressed events. */
  flush(): void {
    const seconds = Math.round(this.#windowMs / 1000);
    for (const window of this.#windows.values()) {
      if (window.suppressed > 0) this.#write(`${window.suppressed} more ${window.what} in the last ${seconds} s (not logged one by one)`);
    }
    this.#windows.clear();
  }

  /** Flushes and stops the window timer (gateway shutdown). */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.flush();
  }

  #write(line: string): void {
    try {
      this.#sink(line);
    } catch {
      // A failing sink must not take a connection down with it.
    }
  }
}

/** The peer address of a request, for log lines. */
export function remoteAddress(request: IncomingMessage): string {
  return request.socket.remoteAddress ?? "?";
}
