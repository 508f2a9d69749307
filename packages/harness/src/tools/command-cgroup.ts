import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

// cgroup v2 containment of commands (Linux): one cgroup per harness, one child per command. A
// process cannot leave its cgroup without write access to another one, so setsid, double forks
// and a cleared environment do not hide it; `cgroup.kill` ends the whole tree at once.

/** Name prefix of a harness's cgroup, beside the harness's own cgroup. */
export const HARNESS_CGROUP_PREFIX = "antigravity-harness-";

/**
 * Creates `<own cgroup>/antigravity-harness-<pid>-<random>` when this process may (cgroup v2
 * mounted, the directory writable — root, or a delegated subtree). Undefined otherwise: the
 * caller falls back to the /proc sweep. Never throws. First clears what harnesses that died
 * with their watchdogs left beside it: their cgroups are killed and removed.
 */
export function createHarnessCgroup(): string | undefined {
  try {
    const own = ownCgroupDirectory();
    if (own === undefined) return undefined;
    removeAbandonedCgroups(own);
    const directory = path.join(own, `${HARNESS_CGROUP_PREFIX}${process.pid}-${randomBytes(4).toString("hex")}`);
    mkdirSync(directory, { mode: 0o755 });
    if (!existsSync(path.join(directory, "cgroup.procs"))) {
      removeCgroup(directory);
      return undefined;
    }
    return directory;
  } catch {
    return undefined;
  }
}

/** Creates the cgroup of one command under the harness's; undefined when that fails. */
export function createCommandCgroup(harnessCgroup: string, name: string): string | undefined {
  try {
    const directory = path.join(harnessCgroup, name);
    mkdirSync(directory);
    return directory;
  } catch {
    return undefined;
  }
}

/**
 * Shell lines that move the shell into `cgroup` before the command runs (so nothing it forks
 * starts outside). Quiet when the write is refused: the /proc sweep still covers the command.
 */
export function joinCgroupScript(cgroup: string): string {
  const procs = path.join(cgroup, "cgroup.procs").replaceAll("'", "'\\''");
  return `{ echo $$ > '${procs}'; } 2>/dev/null\n`;
}

/** SIGKILLs every process in `cgroup` and its children (`cgroup.kill`, Linux 5.14+). Never throws. */
export function killCgroup(cgroup: string): void {
  try {
    writeFileSync(path.join(cgroup, "cgroup.kill"), "1");
  } catch {
    // Older kernels: the sweep kills the members listed in cgroup.procs.
  }
}

/** Removes `cgroup` and the cgroups a command may have made inside it, once they are empty. Never throws. */
export function removeCgroup(cgroup: string): boolean {
  try {
    for (const entry of readdirSync(cgroup, { withFileTypes: true }))
      if (entry.isDirectory()) removeCgroup(path.join(cgroup, entry.name));
    rmdirSync(cgroup);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** Kills and removes `antigravity-harness-<pid>-<hex>` cgroups in `parent` whose harness process is gone. */
function removeAbandonedCgroups(parent: string): void {
  for (const entry of readdirSync(parent, { withFileTypes: true })) {
    const owner = new RegExp(`^${HARNESS_CGROUP_PREFIX}(\\d+)-[0-9a-f]{8}$`).exec(entry.name)?.[1];
    if (!entry.isDirectory() || owner === undefined || processExists(Number(owner))) continue;
    const directory = path.join(parent, entry.name);
    killCgroup(directory);
    removeCgroup(directory);
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** This process's cgroup v2 directory: `0::<path>` of /proc/self/cgroup under the cgroup2 mount. */
function ownCgroupDirectory(): string | undefined {
  const line = readFileSync("/proc/self/cgroup", "utf8")
    .split("\n")
    .find((l) => l.startsWith("0::"));
  if (line === undefined) return undefined;
  const relative = line.slice(3);
  // mountinfo(5): "id parent major:minor root mountpoint options … - fstype source superoptions".
  for (const mount of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const [before, after] = mount.split(" - ");
    if (after?.split(" ")[0] !== "cgroup2") continue;
    const fields = (before ?? "").split(" ");
    const root = unescapeMountPath(fields[3] ?? "/");
    const point = unescapeMountPath(fields[4] ?? "");
    if (point === "" || (relative !== root && !relative.startsWith(root === "/" ? "/" : `${root}/`))) continue;
    return path.join(point, root === "/" ? relative : relative.slice(root.length));
  }
  return undefined;
}

function unescapeMountPath(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
