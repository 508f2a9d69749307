import { availableParallelism } from "node:os";
import type { Worker, WorkerOptions } from "node:worker_threads";
import { ToolError, type ToolOutcome } from "./tool.js";
import {
  TOOL_WORKER_MARK,
  TOOL_WORKER_READY,
  WORKER_TOOLS,
  type ToolCallReply,
  type ToolCallRequest,
} from "./worker-tools.js";

/** Default time limit of one tool call in a worker (`--tool-timeout-ms`). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** An idle worker is stopped after this long. */
const IDLE_WORKER_MS = 60_000;
/** Heap of one worker: a call that needs more fails alone instead of taking the harness down. */
const WORKER_HEAP_MB = 512;
/**
 * The worker's entry, beside this module. The build rewrites this very expression (the
 * `workerUrls` plugin of rollup.config.mjs) to the URL of `dist/tool-worker.js`.
 */
const TOOL_WORKER_ENTRY = new URL("./tool-worker.ts", import.meta.url);

/** Options of {@link ToolWorkerPool}. */
export interface ToolWorkerPoolOptions {
  /** Longest a call may run in its worker, in ms (default {@link DEFAULT_TOOL_TIMEOUT_MS}); waiting for a free worker does not count. */
  timeoutMs?: number;
  /** Most workers alive at once (default: the number of cores, at least 2, at most 4). */
  size?: number;
}

interface Waiter {
  resolve(worker: Worker): void;
  reject(reason: unknown): void;
  signal: AbortSignal;
  onAbort(): void;
}

/**
 * Runs the file tools of {@link WORKER_TOOLS} on `worker_threads`, so a slow call (a search of a
 * huge tree, a regex over megabytes, an edit of a large file) never holds the event loop that
 * every session's frames go through. Workers start on first use, are reused, and there are at
 * most `size`; further calls wait for one. Each call has a time limit; when it is reached, or
 * the call's signal aborts (haltRequest, client gone), the worker running it is terminated —
 * which stops even a call stuck in a loop — and a fresh one is started by the next call.
 */
export class ToolWorkerPool {
  readonly timeoutMs: number;
  readonly size: number;
  readonly #all = new Set<Worker>();
  readonly #idle: Worker[] = [];
  readonly #idleTimers = new Map<Worker, NodeJS.Timeout>();
  readonly #waiting: Waiter[] = [];
  #closed = false;

  constructor(options: ToolWorkerPoolOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    this.size = options.size ?? Math.min(4, Math.max(2, availableParallelism()));
    if (!(this.timeoutMs > 0) || !Number.isInteger(this.size) || this.size < 1)
      throw new RangeError("ToolWorkerPool needs a positive timeoutMs and size");
  }

  /** Whether calls of the built-in `tool` run in a worker. */
  static runs(tool: string): boolean {
    return WORKER_TOOLS.has(tool);
  }

  /** Workers alive (idle or busy). */
  get workerCount(): number {
    return this.#all.size;
  }

  /**
   * Runs one call in a worker. Resolves with the tool's outcome; rejects with a ToolError for the
   * tool's own failures, the time limit and a failed worker, and with `signal.reason` once
   * `signal` aborts (the worker is terminated at once).
   */
  async run(request: ToolCallRequest, signal: AbortSignal): Promise<ToolOutcome> {
    const worker = await this.#acquire(signal);
    return this.#call(worker, request, signal);
  }

  /** Terminates every worker; calls still running or waiting fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiting.splice(0)) {
      waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.reject(shuttingDown());
    }
    for (const timer of this.#idleTimers.values()) clearTimeout(timer);
    this.#idleTimers.clear();
    this.#idle.length = 0;
    await Promise.all([...this.#all].map((worker) => worker.terminate()));
  }

  #acquire(signal: AbortSignal): Promise<Worker> {
    signal.throwIfAborted();
    if (this.#closed) return Promise.reject(shuttingDown());
    const idle = this.#idle.pop();
    if (idle !== undefined) {
      clearTimeout(this.#idleTimers.get(idle));
      this.#idleTimers.delete(idle);
      idle.ref();
      return Promise.resolve(idle);
    }
    if (this.#all.size < this.size) return this.#whenReady(this.#spawn(), signal);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener("abort", waiter.onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #call(worker: Worker, request: ToolCallRequest, signal: AbortSignal): Promise<ToolOutcome> {
    const entry = WORKER_TOOLS.get(request.tool);
    const narrow = entry?.narrow ?? "make the call smaller";
    return new Promise((resolve, reject) => {
      const finish = (keep: boolean, settle: () => void): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (keep) this.#release(worker);
        else this.#discard(worker);
        settle();
      };
      const onMessage = (reply: ToolCallReply): void =>
        finish(true, () => (reply.ok ? resolve(reply.outcome) : reject(fromReply(reply.error))));
      const onError = (error: Error & { code?: string }): void =>
        finish(false, () =>
          reject(
            error.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? new ToolError(
                  `${request.tool} ran out of memory (${WORKER_HEAP_MB} MiB) and was stopped. Narrow the call: ${narrow}.`,
                )
              : new ToolError(`the tool worker running ${request.tool} failed: ${error.message}`),
          ),
        );
      const onExit = (code: number): void =>
        finish(false, () =>
          reject(
            this.#closed
              ? shuttingDown()
              : new ToolError(`the tool worker running ${request.tool} stopped unexpectedly (exit code ${code})`),
          ),
        );
      const onAbort = (): void => finish(false, () => reject(signal.reason));
      const timer = setTimeout(() => {
        finish(false, () =>
          reject(
            new ToolError(
              `${request.tool} did not finish within ${formatMs(this.timeoutMs)} and was stopped (the harness's tool time limit). Narrow the call: ${narrow}.`,
            ),
          ),
        );
      }, this.timeoutMs);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      worker.on("message", onMessage).once("error", onError).once("exit", onExit);
      try {
        worker.postMessage(request);
      } catch (error) {
        finish(true, () =>
          reject(
            new ToolError(
              `the arguments of ${request.tool} cannot be sent to a tool worker: ${(error as Error).message}`,
            ),
          ),
        );
      }
    });
  }

  /** Starts a worker; resolves once it has loaded and serves (it says so), rejects if it dies first. */
  #spawn(): Promise<Worker> {
    const worker = startWorker();
    this.#all.add(worker);
    // A worker that dies while idle (or after its call settled) frees its place.
    worker.once("exit", () => this.#discard(worker));
    worker.on("error", () => {});
    return new Promise((resolve, reject) => {
      const settle = (): void => void worker.off("message", onReady).off("error", onError).off("exit", onExit);
      const onReady = (message: unknown): void => {
        if (message !== TOOL_WORKER_READY) return;
        settle();
        resolve(worker);
      };
      const onError = (error: Error): void => {
        settle();
        reject(new ToolError(`a tool worker could not start: ${error.message}`));
      };
      const onExit = (code: number): void => {
        settle();
        reject(this.#closed ? shuttingDown() : new ToolError(`a tool worker could not start (exit code ${code})`));
      };
      worker.on("message", onReady).once("error", onError).once("exit", onExit);
    });
  }

  /** A starting worker for a caller who may give up first: then the worker, once ready, serves the next call instead. */
  #whenReady(starting: Promise<Worker>, signal: AbortSignal): Promise<Worker> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      starting.then(
        (worker) => {
          signal.removeEventListener("abort", onAbort);
          if (signal.aborted) this.#release(worker);
          else resolve(worker);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  /** A worker whose call ended normally: to the next waiter, or idle (not keeping the process alive). */
  #release(worker: Worker): void {
    if (!this.#all.has(worker)) return;
    const waiter = this.#waiting.shift();
    if (waiter !== undefined) {
      waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(worker);
      return;
    }
    worker.unref();
    this.#idle.push(worker);
    const timer = setTimeout(() => this.#discard(worker), IDLE_WORKER_MS);
    timer.unref();
    this.#idleTimers.set(worker, timer);
  }

  /** Terminates a worker (timed out, aborted, failed, idle too long) and gives its place to a waiter. */
  #discard(worker: Worker): void {
    if (!this.#all.delete(worker)) return;
    clearTimeout(this.#idleTimers.get(worker));
    this.#idleTimers.delete(worker);
    const idleAt = this.#idle.indexOf(worker);
    if (idleAt !== -1) this.#idle.splice(idleAt, 1);
    void worker.terminate();
    const waiter = this.#closed ? undefined : this.#waiting.shift();
    if (waiter !== undefined) {
      waiter.signal.removeEventListener("abort", waiter.onAbort);
      this.#whenReady(this.#spawn(), waiter.signal).then(waiter.resolve, waiter.reject);
    }
  }
}

/**
 * Starts a tool worker. From the build, `dist/tool-worker.js` runs as is. From the TypeScript
 * sources (tests, development) the worker loads its entry through tsx, with the "antigravity-source" export
 * condition so the sibling packages resolve to their sources as in the parent.
 */
function startWorker(): Worker {
  // Loaded here, not imported: node:worker_threads costs the harness's start-up a few ms, and
  // most sessions never run a file tool.
  const { Worker } = process.getBuiltinModule("node:worker_threads");
  const options: WorkerOptions = {
    workerData: { [TOOL_WORKER_MARK]: true },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  };
  if (!TOOL_WORKER_ENTRY.pathname.endsWith(".ts")) return new Worker(TOOL_WORKER_ENTRY, options);
  const tsx = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  const execArgv = process.execArgv.includes("--conditions=antigravity-source")
    ? process.execArgv
    : [...process.execArgv, "--conditions=antigravity-source"];
  const bootstrap = `import(${tsx}).then(({ register }) => { register(); return import(${JSON.stringify(TOOL_WORKER_ENTRY.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true, execArgv });
}

/** A failure inside the worker reaches the model as its message, as it would from the main thread. */
function fromReply(error: { name: string; message: string }): ToolError {
  return new ToolError(error.message);
}

function shuttingDown(): ToolError {
  return new ToolError("the harness is shutting down; the tool call was not completed");
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
