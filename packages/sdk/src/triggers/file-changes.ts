import { ErrorCode, SdkError } from "../errors.js";

/** What happened to a path (upstream `triggers.FileChangeKind`: ADDED, MODIFIED, DELETED). */
export type FileChangeKind = "added" | "modified" | "deleted";

/** One changed path of a batch (upstream `triggers.FileChange`). */
export interface FileChange {
  kind: FileChangeKind;
  /** The path as the watcher reports it: the watched path joined with the changed entry. */
  path: string;
}

/** Options of {@link FileChangeBatcher}. */
export interface FileChangeBatcherOptions {
  /** Quiet time after the last change before a batch is delivered (ms, >= 0). */
  debounceMs: number;
  /** Distinct paths kept per batch; further ones are counted in `dropped`. */
  maxPaths: number;
  /** Receives each batch; batches are delivered one at a time, in order. */
  deliver(changes: FileChange[], dropped: number): Promise<void>;
  /** Receives a failure of `deliver` (the batcher goes on). */
  onError(error: SdkError): void;
}

/**
 * Collects file changes from any watcher into debounced batches (upstream `on_file_change`
 * delivers watchfiles' debounced batches). Within a batch each path appears once: a path added
 * and then modified reads as added, added and then deleted disappears, deleted and then added
 * reads as modified. Universal (timers only); the Node watcher feeds it.
 *
 * @example
 * const batcher = new FileChangeBatcher({ debounceMs: 200, maxPaths: 1000, deliver: async (changes) => console.log(changes), onError: console.warn });
 * batcher.record("modified", "/repo/a.ts");
 */
export class FileChangeBatcher {
  readonly #options: FileChangeBatcherOptions;
  #pending = new Map<string, FileChangeKind>();
  #dropped = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #delivering: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: FileChangeBatcherOptions) {
    if (!Number.isFinite(options.debounceMs) || options.debounceMs < 0)
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `debounceMs must be a number >= 0, got ${String(options.debounceMs)}`,
      );
    if (!Number.isSafeInteger(options.maxPaths) || options.maxPaths < 1)
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `maxPaths must be an integer >= 1, got ${String(options.maxPaths)}`,
      );
    this.#options = options;
  }

  /** Adds one change to the current batch and restarts the quiet period. Ignored once closed. */
  record(kind: FileChangeKind, path: string): void {
    if (this.#closed) return;
    const merged = merge(this.#pending.get(path), kind);
    if (merged === undefined) this.#pending.delete(path);
    else if (this.#pending.has(path) || this.#pending.size < this.#options.maxPaths) this.#pending.set(path, merged);
    else this.#dropped += 1;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.flush(), this.#options.debounceMs);
  }

  /** Delivers the current batch now (after the batches before it). */
  flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const changes = [...this.#pending].map(([path, kind]) => ({ kind, path }));
    const dropped = this.#dropped;
    this.#pending = new Map();
    this.#dropped = 0;
    if (changes.length === 0 && dropped === 0) return this.#delivering;
    this.#delivering = this.#delivering.then(async () => {
      if (this.#closed) return;
      try {
        await this.#options.deliver(changes, dropped);
      } catch (error) {
        this.#options.onError(SdkError.from(error));
      }
    });
    return this.#delivering;
  }

  /** Resolves when every batch handed to `deliver` so far has been delivered. */
  settled(): Promise<void> {
    return this.#delivering;
  }

  /** Drops the pending batch and delivers nothing more; resolves when a delivery in progress ends. */
  close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
    return this.#delivering;
  }
}

/** The net change of `next` after `previous` in one batch; `undefined` when they cancel out. */
function merge(previous: FileChangeKind | undefined, next: FileChangeKind): FileChangeKind | undefined {
  if (previous === undefined) return next;
  if (previous === "added") return next === "deleted" ? undefined : "added";
  if (previous === "deleted") return next === "deleted" ? "deleted" : "modified";
  return next;
}
