import type { ChildProcess } from "node:child_process";

// Every harness child we spawned and have not yet seen exit. The registry makes sure no child
// outlives this process: a synchronous SIGKILL on 'exit' (also reached after an uncaught
// exception), and cleanup on SIGINT/SIGTERM when nobody else handles those signals.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
let signalHooksInstalled = false;

/** Signals after which we clean up and then re-raise the default behaviour. */
const FATAL_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** How long a signal-triggered cleanup waits for SIGTERMed children before SIGKILL. */
const SIGNAL_GRACE_MS = 1_000;

/** Tracks `child` until it exits; installs the process hooks on first use. */
export function registerChild(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  installHooksOnce();
  live.add(child);
  child.once("exit", () => live.delete(child));
}

/** Stops tracking `child` (after an orderly shutdown). */
export function unregisterChild(child: ChildProcess): void {
  live.delete(child);
}

/** Number of tracked children still running (for tests and diagnostics). */
export function liveChildCount(): number {
  return live.size;
}

/** SIGKILLs every tracked child, synchronously. */
export function killAllChildrenSync(): void {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

function installHooksOnce(): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", killAllChildrenSync);
  }
  if (!signalHooksInstalled) {
    signalHooksInstalled = true;
    for (const signal of FATAL_SIGNALS) process.on(signal, onSignal);
  }
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else handles this signal (a REPL halting a turn on Ctrl-C, a server draining on
  // SIGTERM): they decide whether the process ends; our 'exit' hook still covers the children.
  if (process.listenerCount(signal) > 1) return;
  const children = [...live];
  const exited = children.map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once("exit", () => resolve());
      }),
  );
  for (const child of children) {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
  }
  let done = false;
  const reraise = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    killAllChildrenSync();
    for (const s of FATAL_SIGNALS) process.removeListener(s, onSignal);
    signalHooksInstalled = false;
    process.kill(process.pid, signal);
  };
  const timer = setTimeout(reraise, SIGNAL_GRACE_MS);
  void Promise.all(exited).then(reraise);
}
