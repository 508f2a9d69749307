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

/** The test kit's process probe (a zombie counts as gone). */
export { processAlive } from "@antigravity-ts/test-kit";
