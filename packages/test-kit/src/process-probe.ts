import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Bound of {@link waitUntilGone}: a reparented orphan is reaped by init asynchronously. */
export const GONE_WAIT_MS = 20_000;

/**
 * Whether a process with this pid runs. Signal 0 probes without killing: "no such process"
 * (ESRCH) is gone, "not permitted" (EPERM) exists. A zombie counts as gone: it has exited and only
 * waits to be reaped, which some container inits never do. Where `/proc` cannot tell (macOS),
 * an existing pid counts as running.
 */
export function processAlive(pid: number): boolean {
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

/** Waits until `pid` is gone, polling for at most `boundMs`. Returns whether it is gone: tests assert on that, never on the time. */
export async function waitUntilGone(pid: number, boundMs = GONE_WAIT_MS): Promise<boolean> {
  for (const until = Date.now() + boundMs; processAlive(pid); await sleep(20)) {
    if (Date.now() > until) return false;
  }
  return true;
}

/** Pids of the live processes whose argv is exactly `argv` now (Linux `/proc`). */
export function pidsOfArgv(argv: readonly string[]): number[] {
  const wanted = `${argv.join("\0")}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1");
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline === wanted && processAlive(Number(entry))) pids.push(Number(entry));
  }
  return pids;
}

/**
 * The pid of the live process whose argv is exactly `argv`, polling for at most `boundMs`. How a
 * test finds a command's process: a command may run in a PID namespace of its own, where the
 * `$$` or `$!` it could print means nothing outside. Give the argv a marker no other process has
 * (e.g. `sleep 60.<random>`). Throws when none appears in time.
 */
export async function pidOfArgv(argv: readonly string[], boundMs = GONE_WAIT_MS): Promise<number> {
  for (const until = Date.now() + boundMs; Date.now() <= until; await sleep(20)) {
    const [pid] = pidsOfArgv(argv);
    if (pid !== undefined) return pid;
  }
  throw new Error(`no process ran ${JSON.stringify(argv)} within ${boundMs} ms`);
}

/** Waits until no process runs `argv`, polling for at most `boundMs`; returns whether none does. */
export async function argvGone(argv: readonly string[], boundMs = GONE_WAIT_MS): Promise<boolean> {
  for (const until = Date.now() + boundMs; pidsOfArgv(argv).length > 0; await sleep(20)) {
    if (Date.now() > until) return false;
  }
  return true;
}
