import { killCgroup, removeCgroup } from "./command-cgroup.js";
import { canSweep, sweepSync } from "./process-sweep.js";

// The watchdog of a harness (a separate entry point: `node command-watchdog.js <harness pid>
// <harness id> <cgroup|->`). The harness starts it with its first command and keeps a pipe to its
// stdin open for life, writing "+<pid>" / "-<pid>" as command shells start and end. When the
// pipe closes — the harness exited, or was SIGKILLed and cannot clean up itself — the watchdog
// kills every process of every command of that harness, removes the harness's cgroup, and exits.
// It runs in its own session, so signals aimed at the harness's terminal or group spare it.

const [harnessPid = "", harnessId = "", cgroup = "-"] = process.argv.slice(2);
const sessions = new Set<number>();
let pending = "";

process.stdin.on("data", (chunk: Buffer) => {
  pending += chunk.toString("latin1");
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    const pid = Number(line.slice(1));
    if (!Number.isInteger(pid) || pid <= 1) continue;
    if (line.startsWith("+")) sessions.add(pid);
    else if (line.startsWith("-")) sessions.delete(pid);
  }
});
process.stdin.on("error", cleanUpAndExit);
process.stdin.on("close", cleanUpAndExit);
process.stdin.on("end", cleanUpAndExit);
// Only the pipe ends the watchdog.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE"] as const) process.on(signal, () => {});

function cleanUpAndExit(): void {
  if (!/^[0-9a-f]{16,}$/.test(harnessId)) process.exit(2);
  const cgroups = cgroup === "-" ? [] : [cgroup];
  for (const directory of cgroups) killCgroup(directory);
  for (const pid of sessions) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  if (canSweep())
    sweepSync({ tagPrefix: `${harnessId}.`, sessions, cgroups, exclude: new Set([process.pid, Number(harnessPid)]) });
  for (const directory of cgroups) removeCgroup(directory);
  process.exit(0);
}
