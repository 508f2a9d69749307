import { watch, type FSWatcher } from "node:fs";
import { lstat, stat } from "node:fs/promises";
import path from "node:path";
import {
  ErrorCode,
  FileChangeBatcher,
  SdkError,
  type FileChange,
  type Trigger,
  type TriggerContext,
  type TriggerDelivery,
} from "@antigravity-ts/sdk";

/**
 * Called with each debounced batch of changes (upstream `on_file_change` callback, `(ctx, changes)`).
 * Return a message to send it to the agent as a trigger, or `undefined` to send nothing (the
 * callback may also call `context.sendTrigger` itself).
 */
export type FileChangeCallback = (
  context: TriggerContext,
  changes: readonly FileChange[],
  info: { dropped: number },
) => string | undefined | void | Promise<string | undefined | void>;

/** Options of {@link onFileChange}. */
export interface OnFileChangeOptions {
  /** Quiet time after the last change before the batch is delivered. Default 500 ms. */
  debounceMs?: number;
  /** Watch a directory's subdirectories too. Default `true`. */
  recursive?: boolean;
  /** Distinct paths per batch; more are counted in `info.dropped`. Default 1,000. */
  maxPaths?: number;
  /** How a returned message is delivered. Default `"whenIdle"`: a change never interrupts a turn. */
  delivery?: TriggerDelivery;
  /** Receives failures of the callback and of the watcher (default `console.warn`). */
  onError?: (error: SdkError) => void;
}

const DEFAULT_DEBOUNCE_MS = 500;
const DEFAULT_MAX_PATHS = 1_000;

/**
 * A trigger that watches a file or directory and calls `callback` with each debounced batch of
 * changes (upstream `triggers.on_file_change`, built here on `node:fs.watch`). The watcher opens
 * when the agent starts — a missing path fails `start()` with `InvalidArgument` — and closes when it
 * stops. It reports changes only; it never reads, follows or writes what changed. A watched path
 * that is a symbolic link is resolved once, at start.
 *
 * @example
 * Agent.builder().allowAll().trigger(onFileChange("src", (_ctx, changes) => `Files changed: ${changes.map((c) => c.path).join(", ")}`));
 */
export function onFileChange(target: string, callback: FileChangeCallback, options: OnFileChangeOptions = {}): Trigger {
  if (typeof target !== "string" || target === "")
    throw new SdkError(ErrorCode.InvalidArgument, "onFileChange(): the path to watch must be a non-empty string");
  if (typeof callback !== "function")
    throw new SdkError(ErrorCode.InvalidArgument, "onFileChange(): callback must be a function");
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const maxPaths = options.maxPaths ?? DEFAULT_MAX_PATHS;
  const delivery = options.delivery ?? "whenIdle";
  const onError =
    options.onError ??
    ((error: SdkError) => globalThis.console?.warn(`antigravity: onFileChange(${target}): ${error.message}`));
  // Checked now so that a bad option fails where it is written, not at start().
  void new FileChangeBatcher({ debounceMs, maxPaths, deliver: async () => undefined, onError });
  const sessions = new Set<{ watcher: FSWatcher; batcher: FileChangeBatcher }>();

  return {
    async start(context) {
      const root = path.resolve(target);
      const info = await stat(root).catch((error: NodeJS.ErrnoException) => {
        throw new SdkError(
          ErrorCode.InvalidArgument,
          `onFileChange(): cannot watch ${root}: ${error.code ?? error.message}${error.code === "ENOENT" ? " (it does not exist, or is a dangling link)" : ""}`,
          { cause: error },
        );
      });
      const directory = info.isDirectory();
      const batcher = new FileChangeBatcher({
        debounceMs,
        maxPaths,
        onError,
        deliver: async (changes, dropped) => {
          if (context.signal.aborted) return;
          const message = await callback(context, changes, { dropped });
          if (typeof message === "string" && message.trim() !== "" && !context.signal.aborted)
            await context.sendTrigger(message, { delivery, signal: context.signal });
        },
      });
      let watcher: FSWatcher;
      try {
        // persistent: false — a watcher never keeps the process alive on its own.
        watcher = watch(root, { recursive: directory && options.recursive !== false, persistent: false });
      } catch (error) {
        throw new SdkError(ErrorCode.Unavailable, `onFileChange(): cannot watch ${root}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      const session = { watcher, batcher };
      sessions.add(session);
      watcher.on("error", (error) => {
        onError(
          new SdkError(
            ErrorCode.Unavailable,
            `onFileChange(): the watcher of ${root} failed: ${error.message}; no further changes are reported`,
            { cause: error },
          ),
        );
        close(session);
      });
      watcher.on("change", (event, name) => {
        const changed =
          name === null || name === undefined ? root : directory ? path.join(root, name.toString()) : root;
        if (event === "change") return batcher.record("modified", changed);
        // "rename": the entry appeared or went away; look once, without following links.
        void lstat(changed).then(
          () => batcher.record(changed === root ? "modified" : "added", changed),
          () => batcher.record("deleted", changed),
        );
      });
    },
    async stop() {
      await Promise.all([...sessions].map(close));
    },
  };

  function close(session: { watcher: FSWatcher; batcher: FileChangeBatcher }): Promise<void> {
    sessions.delete(session);
    session.watcher.close();
    return session.batcher.close();
  }
}
