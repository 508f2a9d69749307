import { constants, readFileSync } from "node:fs";
import { lstat, mkdtemp, open, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The SDK's temporary `storage_directory`s (protocol §3: upstream sends a fresh
// `mkdtemp(prefix="antigravity_")` when the user gave none). A channel removes its own on close;
// one whose process was SIGKILLed cannot, so the next start removes directories left by dead
// owners (issue 8 item 15) — only ones it can prove are ours, never following a symlink.

/** The prefix upstream uses too; directories without our owner file are never touched. */
const PREFIX = "antigravity_";
/** Inside each directory: who made it. A dot name cannot collide with a session file (`<cascadeId>.json`). */
export const OWNER_FILE = ".antigravity-ts-owner";
const MAX_OWNER_BYTES = 4096;

/** Who created a directory: enough to tell, after a reboot or pid reuse, that it is gone. */
interface Owner {
  pid: number;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat field 22), Linux only. */
  startTicks?: string;
  /** /proc/sys/kernel/random/boot_id, Linux only. */
  bootId?: string;
}

/** Creates `<tmpdir>/antigravity_XXXXXX` (mode 0700) with an owner file naming this process. */
export async function createTemporaryStorage(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), PREFIX));
  const owner: Owner = { pid: process.pid, ...identity(process.pid) };
  await writeFile(join(directory, OWNER_FILE), JSON.stringify(owner), { flag: "wx", mode: 0o600 });
  return directory;
}

const swept = new Map<string, Promise<string[]>>();

/**
 * Removes, once per process and temp directory, the `antigravity_*` directories of `parent`
 * (default `os.tmpdir()`) that this SDK created in a process that is now gone. A directory
 * qualifies only if it is a real directory (not a symlink) owned by this user with mode 0700,
 * holding a regular owner file (opened with O_NOFOLLOW) whose process is dead: no such pid, a
 * different start time (pid reuse) or an earlier boot. Resolves with what it removed; never rejects.
 */
export function removeStaleTemporaryStorage(parent = tmpdir()): Promise<string[]> {
  let sweep = swept.get(parent);
  if (sweep === undefined) {
    sweep = sweepStale(parent).catch(() => []);
    swept.set(parent, sweep);
  }
  return sweep;
}

async function sweepStale(parent: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(parent)) {
    if (!/^antigravity_[A-Za-z0-9]{6}$/.test(name)) continue;
    const directory = join(parent, name);
    try {
      const owner = await readOwner(directory);
      if (owner === undefined || ownerAlive(owner)) continue;
      // rm never follows symlinks inside; the entry itself was checked to be a directory of ours.
      await rm(directory, { recursive: true, force: true });
      removed.push(directory);
    } catch {
      // Raced with its owner or another sweep: leave it.
    }
  }
  return removed;
}

async function readOwner(directory: string): Promise<Owner | undefined> {
  const uid = process.getuid?.();
  const info = await lstat(directory);
  if (
    !info.isDirectory() ||
    (uid !== undefined && info.uid !== uid) ||
    (process.platform !== "win32" && (info.mode & 0o777) !== 0o700)
  )
    return undefined;
  const handle = await open(
    join(directory, OWNER_FILE),
    constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
  );
  try {
    const file = await handle.stat();
    if (!file.isFile() || (uid !== undefined && file.uid !== uid) || file.size > MAX_OWNER_BYTES) return undefined;
    const parsed = JSON.parse(await handle.readFile("utf8")) as Partial<Owner>;
    if (typeof parsed.pid !== "number" || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return {
      pid: parsed.pid,
      ...(typeof parsed.startTicks === "string" ? { startTicks: parsed.startTicks } : {}),
      ...(typeof parsed.bootId === "string" ? { bootId: parsed.bootId } : {}),
    };
  } finally {
    await handle.close();
  }
}

function ownerAlive(owner: Owner): boolean {
  const now = identity(owner.pid);
  if (owner.bootId !== undefined && now.bootId !== undefined && owner.bootId !== now.bootId) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  // Alive, unless the pid now names another process.
  return owner.startTicks === undefined || now.startTicks === undefined || owner.startTicks === now.startTicks;
}

/** Boot id and start time of `pid` where /proc has them. */
function identity(pid: number): { startTicks?: string; bootId?: string } {
  const result: { startTicks?: string; bootId?: string } = {};
  try {
    result.bootId = readFileSync("/proc/sys/kernel/random/boot_id", "latin1").trim();
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // Field 22 (starttime); fields after the parenthesised command name start at field 3.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[22 - 3];
    if (start !== undefined && /^\d+$/.test(start)) result.startTicks = start;
  } catch {
    // Not Linux, or the process is gone.
  }
  return result;
}
