import { execFileSync } from "node:child_process";

/** `pid` and every process below it, read from `ps` (tests only). */
export function processTree(pid: number): number[] {
  const table = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((row) => row.trim().split(/\s+/).map(Number) as [number, number]);
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of table) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** Whether a process with this id exists, per `ps` (tests only). */
export function processAlive(pid: number): boolean {
  return execFileSync("ps", ["-e", "-o", "pid="], { encoding: "utf8" }).split("\n").some((row) => Number(row.trim()) === pid);
}
