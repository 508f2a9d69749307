import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

// Finding and killing every process a command started, on Linux, from /proc alone (proc(5)).
// Shared by the harness (at command end, halt, disconnect, shutdown) and by its watchdog (after
// the harness died). Nothing here follows a path a command controls except /proc/<pid> entries.

/** Environment variable that tags every process of a command: `<harness id>.<command number>`. */
export const COMMAND_TAG_VARIABLE = "ANTIGRAVITY_HARNESS_COMMAND";

/** What belongs to a command (or, with a harness-wide tag prefix, to every command of a harness). */
export interface SweepTarget {
  /** `COMMAND_TAG_VARIABLE` values starting with this: `"<id>."` for every command, `"<id>.3\0"` (with the NUL that ends an entry) for one. */
  tagPrefix: string;
  /** Sessions (and process groups) started for commands: their shells' pids (spawned with setsid). */
  sessions: ReadonlySet<number>;
  /** cgroup v2 directories whose members belong to the command (read recursively). */
  cgroups: readonly string[];
  /** Never matched (the harness and its watchdog). */
  exclude: ReadonlySet<number>;
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  zombie: boolean;
}

/** Longest a sweep keeps killing before it gives up (a fork bomb faster than SIGKILL). */
const MAX_ROUNDS = 200;
/** Pause between rounds, so killed processes can exit and their children get reparented. */
const ROUND_PAUSE_MS = 5;

/**
 * One round: finds every live process of `target` — tagged in its environment, in one of its
 * sessions or process groups, a member of one of its cgroups, or a descendant of any of those —
 * and SIGKILLs it and its process group. Returns how many live processes it found.
 */
export function sweepOnce(target: SweepTarget): number {
  const table = readProcessTable();
  const matched = new Set<number>(cgroupMembers(target.cgroups));
  const tag = Buffer.from(`${COMMAND_TAG_VARIABLE}=${target.tagPrefix}`);
  for (const entry of table.values()) {
    if (entry.zombie || target.exclude.has(entry.pid)) continue;
    if (target.sessions.has(entry.sid) || target.sessions.has(entry.pgid) || environmentHasTag(entry.pid, tag))
      matched.add(entry.pid);
  }
  // Descendants of what matched (a child that cleared its environment and called setsid).
  const children = new Map<number, number[]>();
  for (const entry of table.values()) {
    const siblings = children.get(entry.ppid);
    if (siblings === undefined) children.set(entry.ppid, [entry.pid]);
    else siblings.push(entry.pid);
  }
  for (const pid of [...matched]) {
    for (const queue = [pid]; queue.length > 0; ) {
      for (const child of children.get(queue.pop() as number) ?? []) {
        if (matched.has(child)) continue;
        matched.add(child);
        queue.push(child);
      }
    }
  }
  let live = 0;
  for (const pid of matched) {
    const entry = table.get(pid);
    if (target.exclude.has(pid) || entry?.zombie === true) continue;
    if (entry === undefined && !alive(pid)) continue;
    live++;
    // A group led by one of ours (or a command's own group) is ours; other groups are left to the pid kill.
    if (entry !== undefined && entry.pgid > 1 && (matched.has(entry.pgid) || target.sessions.has(entry.pgid)))
      signal(-entry.pgid);
    signal(pid);
  }
  return live;
}

/** Sweeps until a round finds nothing alive (or {@link MAX_ROUNDS}); blocks the thread (exit handlers, the watchdog). */
export function sweepSync(target: SweepTarget): boolean {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (sweepOnce(target) === 0) return true;
    Atomics.wait(pause, 0, 0, ROUND_PAUSE_MS);
  }
  return sweepOnce(target) === 0;
}

/** Like {@link sweepSync}, yielding to the event loop between rounds. */
export async function sweep(target: SweepTarget): Promise<boolean> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (sweepOnce(target) === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, ROUND_PAUSE_MS));
  }
  return sweepOnce(target) === 0;
}

/** Whether /proc can be swept here (Linux with procfs mounted). */
export function canSweep(): boolean {
  try {
    return process.platform === "linux" && readFileSync("/proc/self/stat", "utf8").length > 0;
  } catch {
    return false;
  }
}

function readProcessTable(): Map<number, ProcessEntry> {
  const table = new Map<number, ProcessEntry>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const stat = readProcFile(`/proc/${pid}/stat`);
    if (stat === undefined) continue; // exited meanwhile
    // "pid (comm) state ppid pgrp session …": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    table.set(pid, {
      pid,
      zombie: fields[0] === "Z" || fields[0] === "X",
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      sid: Number(fields[3]),
    });
  }
  return table;
}

/** One buffer for every /proc read: a sweep reads two small files per process, many times over. */
const scratch = Buffer.allocUnsafe(64 * 1024);

/** The start of a /proc file (a stat line fits easily); undefined when it cannot be read. */
function readProcFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    return scratch.toString("latin1", 0, readSync(fd, scratch, 0, scratch.length, null));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether the process started with `needle` (`NAME=prefix`) at the start of one of its environment entries. */
function environmentHasTag(pid: number, needle: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, "r");
  } catch {
    return false; // another user's process, or gone
  }
  try {
    const chunk = scratch;
    let carry = Buffer.alloc(0);
    for (let first = true; ; first = false) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read <= 0) return false;
      const data = Buffer.concat([carry, chunk.subarray(0, read)]);
      if (first && data.subarray(0, needle.length).equals(needle)) return true;
      for (let at = data.indexOf(needle); at !== -1; at = data.indexOf(needle, at + 1))
        if (at > 0 && data[at - 1] === 0) return true;
      carry = data.subarray(Math.max(0, data.length - needle.length));
    }
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

function cgroupMembers(directories: readonly string[]): number[] {
  const pids: number[] = [];
  const visit = (directory: string, depth: number): void => {
    try {
      for (const line of readFileSync(`${directory}/cgroup.procs`, "utf8").split("\n"))
        if (line !== "") pids.push(Number(line));
      if (depth < 16)
        for (const entry of readdirSync(directory, { withFileTypes: true }))
          if (entry.isDirectory()) visit(`${directory}/${entry.name}`, depth + 1);
    } catch {
      // Removed meanwhile, or not a cgroup.
    }
  };
  for (const directory of directories) visit(directory, 0);
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already, or not ours to signal.
  }
}
