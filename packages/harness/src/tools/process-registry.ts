import type { ChildProcess } from "node:child_process";

// Every command the harness starts runs in its own process group (POSIX) so that the whole
// group can be killed on timeout, halt, disconnect or shutdown: no orphan survives the harness.

const running = new Set<ChildProcess>();

/** Remembers a child until it exits. */
export function trackChild(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
}

/** Kills a child and everything in its process group. Safe to call twice. */
export function killProcessTree(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === "win32") child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Kills every tracked process group, synchronously (used on shutdown). */
export function killAllChildren(): void {
  for (const child of running) killProcessTree(child);
  running.clear();
}

/** Number of commands still running. */
export function runningChildCount(): number {
  return running.size;
}
