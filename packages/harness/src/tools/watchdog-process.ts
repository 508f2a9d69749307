import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The watchdog's entry. In the bundle this URL names the emitted `dist/command-watchdog.js`
 * (rollup.config.mjs rewrites `new URL("./x.ts", import.meta.url)` to the chunk it emits).
 */
const WATCHDOG_ENTRY = new URL("./command-watchdog.ts", import.meta.url);

/** The harness's handle on its watchdog (see command-watchdog.ts). */
export interface Watchdog {
  readonly pid: number | undefined;
  /** True once the watchdog process is gone (a new one is started with the next command). */
  readonly exited: boolean;
  /** A command's shell started: its session is to be killed if the harness dies. */
  started(pid: number): void;
  /** That command ended and was cleaned up. */
  ended(pid: number): void;
}

/**
 * Starts the watchdog of this harness: `node command-watchdog.js <pid> <id> <cgroup|->` in its
 * own session, with an empty environment (it must hold no secret) and a pipe on stdin that only
 * this process writes to. Neither the child nor the pipe keeps the event loop alive. Undefined
 * when the entry point cannot be found or started (commands are then still killed by the
 * harness, just not after a SIGKILL of the harness).
 */
export function startWatchdog(
  harnessId: string,
  cgroup: string | undefined,
  sessions: readonly number[],
): Watchdog | undefined {
  const entry = watchdogEntry();
  if (entry === undefined) return undefined;
  let child;
  try {
    // Loaded with the first command, not imported: node:child_process is not needed to start.
    child = process
      .getBuiltinModule("node:child_process")
      .spawn(process.execPath, [...entry.nodeArgs, entry.file, String(process.pid), harnessId, cgroup ?? "-"], {
        stdio: ["pipe", "ignore", "ignore"],
        detached: true,
        env: {},
        windowsHide: true,
      });
  } catch {
    return undefined;
  }
  let exited = false;
  child.once("exit", () => (exited = true));
  child.once("error", () => (exited = true));
  child.stdin.on("error", () => {});
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  const write = (line: string): void => {
    if (!exited && child.stdin.writable) child.stdin.write(`${line}\n`);
  };
  for (const pid of sessions) write(`+${pid}`);
  return {
    get pid() {
      return child.pid;
    },
    get exited() {
      return exited;
    },
    started: (pid) => write(`+${pid}`),
    ended: (pid) => write(`-${pid}`),
  };
}

/** The watchdog's file and the Node options it needs: tsx when running from the sources. */
function watchdogEntry(): { file: string; nodeArgs: string[] } | undefined {
  const file = fileURLToPath(WATCHDOG_ENTRY);
  if (!existsSync(file)) return undefined;
  if (!file.endsWith(".ts")) return { file, nodeArgs: [] };
  try {
    return { file, nodeArgs: ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href] };
  } catch {
    return undefined;
  }
}
