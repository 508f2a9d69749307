import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";

/**
 * True while a process with this pid runs (signal 0 probes without killing). A zombie counts as
 * gone: it has exited and only waits to be reaped, which some container inits never do.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; comm may contain spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}

/**
 * Waits until `pid` is gone, polling for at most `boundMs` (a reparented orphan is reaped by
 * init asynchronously). Returns whether it is gone; tests assert on that, not on the time.
 */
export async function waitUntilGone(pid: number, boundMs = 5_000): Promise<boolean> {
  const until = Date.now() + boundMs;
  while (isAlive(pid)) {
    if (Date.now() > until) return false;
    await sleep(20);
  }
  return true;
}

/** Absolute path of a fake harness script in this folder. */
export function fakePath(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}
