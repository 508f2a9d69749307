import { createLogger } from "./log.js";

// How the harness process ends. `process.exit` runs libuv's exit hook, which joins every
// threadpool thread: one still blocked in a file-system call (open() of a FIFO, a read on a hung
// network mount) keeps the process alive forever after shutdown, deaf to stdin EOF and SIGTERM
// (issue 8 item 3). The file tools never block in open() (workspace-fs.ts); this is the backstop
// for whatever else might.

/** Pending main-thread file-system requests, as Node names them in `getActiveResourcesInfo`. */
function pendingFsRequests(): number {
  return process.getActiveResourcesInfo().filter((name) => name.startsWith("FSReq")).length;
}

/** How long {@link exitProcess} lets in-flight file-system calls finish (they take microseconds unless blocked). */
const FS_DRAIN_MS = 1000;

/**
 * Exits with `code` once no file-system call is in flight on the main thread. One still pending
 * after {@link FS_DRAIN_MS} is taken to be blocked: the process then ends by its own SIGTERM
 * (default action, no exit hooks) after saying so on stderr, so shutdown never waits on it.
 */
export function exitProcess(code: number): void {
  const deadline = Date.now() + FS_DRAIN_MS;
  const attempt = (): void => {
    const pending = pendingFsRequests();
    if (pending === 0) process.exit(code);
    if (Date.now() >= deadline)
      exitWithoutWaiting(`${pending} file-system call${pending === 1 ? " is" : "s are"} still blocked`);
    setTimeout(attempt, 10);
  };
  attempt();
}

/**
 * Ends the process at once without running exit hooks (which would wait for blocked threadpool
 * threads): SIGTERM with its default action, SIGKILL should that not end it. Use only when a
 * graceful shutdown cannot finish.
 */
export function exitWithoutWaiting(reason: string): never {
  createLogger().warn(`${reason}; exiting without waiting for it`);
  process.removeAllListeners("SIGTERM");
  // A signal sent to oneself is delivered before kill() returns: neither call comes back.
  process.kill(process.pid, "SIGTERM");
  process.kill(process.pid, "SIGKILL");
  process.abort();
}
