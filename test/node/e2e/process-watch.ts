import { spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";

// Which processes a test left behind: `ps` (Linux and macOS), so that a process counts as gone
// when it exited even if nobody reaped it (a zombie), and a grandchild re-parented away from the
// test process is still followed.

/** One process of `ps`: its parent, and whether it is a zombie (exited, only waiting to be reaped). */
export interface ProcessInfo {
  ppid: number;
  zombie: boolean;
  command: string;
}

/** Every process on the machine (but the `ps` that lists them), by pid. */
export function processTable(): Map<number, ProcessInfo> {
  const ps = spawnSync("ps", ["-A", "-o", "pid=,ppid=,stat=,comm="], { encoding: "utf8" });
  if (ps.error !== undefined) throw ps.error;
  const table = new Map<number, ProcessInfo>();
  for (const line of ps.stdout.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (match === null || Number(match[1]) === ps.pid) continue;
    table.set(Number(match[1]), {
      ppid: Number(match[2]),
      zombie: match[3]?.startsWith("Z") === true,
      command: match[4] ?? "",
    });
  }
  return table;
}

/** Live descendants of this test process (harnesses and whatever they started). */
export function liveDescendants(table = processTable()): Map<number, ProcessInfo> {
  const found = new Map<number, ProcessInfo>();
  let frontier = [process.pid];
  while (frontier.length > 0) {
    const parents = new Set(frontier);
    frontier = [];
    for (const [pid, info] of table) {
      if (parents.has(info.ppid) && !found.has(pid)) {
        if (!info.zombie) found.set(pid, info);
        frontier.push(pid);
      }
    }
  }
  return found;
}

/**
 * The processes started since it was created. `leftovers()` waits (at most 5 s, polling: a killed
 * child is reaped asynchronously) until all of them are gone, including ones re-parented away
 * from us, and returns those still alive.
 */
export class ProcessWatch {
  readonly #before = new Set(liveDescendants().keys());
  readonly #seen = new Map<number, ProcessInfo>();

  /** Records the live processes started since the watch began and returns them. */
  sample(): Map<number, ProcessInfo> {
    const fresh = new Map([...liveDescendants()].filter(([pid]) => !this.#before.has(pid)));
    for (const [pid, info] of fresh) this.#seen.set(pid, info);
    return fresh;
  }

  /** The one harness this process spawned since the watch began; throws unless there is exactly one. */
  harnessPid(): number {
    const direct = [...this.sample()].filter(([, info]) => info.ppid === process.pid);
    const [only] = direct;
    if (direct.length !== 1 || only === undefined)
      throw new Error(
        `expected one new child process, found ${direct.map(([pid, info]) => `${pid} ${info.command}`).join(", ") || "none"}`,
      );
    return only[0];
  }

  /** `"<pid> <command>"` of each process seen since the watch began that is still alive after at most 5 s. */
  async leftovers(): Promise<string[]> {
    const until = Date.now() + 5_000;
    for (;;) {
      this.sample();
      const table = processTable();
      const alive = [...this.#seen]
        .filter(([pid]) => table.get(pid)?.zombie === false)
        .map(([pid, info]) => `${pid} ${info.command}`);
      if (alive.length === 0 || Date.now() > until) return alive;
      await sleep(50);
    }
  }
}
