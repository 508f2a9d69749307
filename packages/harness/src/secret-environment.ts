import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { isSecretName } from "./tools/command-env.js";

/** What {@link detachSecrets} returns. */
export interface DetachedEnvironment {
  /** The environment as the process started, secrets included: read it instead of `process.env`. */
  env: Readonly<Record<string, string>>;
  /** Secret-looking variables removed from `process.env`. */
  removed: string[];
  /** Why the kernel's copy could not be wiped, when it could not (Linux only; see below). */
  wipeFailure?: string;
}

/**
 * Takes the harness's secrets out of its own process: snapshots `process.env`, deletes every
 * secret-looking variable ({@link isSecretName}) from it, and on Linux overwrites their values
 * in the process's original environment block, which the kernel shows as `/proc/<pid>/environ`
 * to every process of the same user — including the commands the model runs (issue 8 item 2).
 * The values live on only in the returned snapshot.
 *
 * The block is rewritten through `/proc/self/mem` after `unsetenv` dropped libc's pointers to
 * it, the way `setproctitle` implementations reuse argv/environ memory.
 */
export function detachSecrets(): DetachedEnvironment {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  const removed = Object.keys(env).filter(isSecretName);
  for (const name of removed) delete process.env[name];
  if (removed.length === 0 || process.platform !== "linux") return { env, removed };
  try {
    wipeEnvironmentBlock(new Set(removed));
    return { env, removed };
  } catch (error) {
    return { env, removed, wipeFailure: (error as Error).message };
  }
}

/** Zeroes the values of `names` in `[env_start, env_end)` of this process (proc(5): /proc/pid/stat fields 50-51). */
function wipeEnvironmentBlock(names: ReadonlySet<string>): void {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // Fields after the command name, which sits in parentheses and may contain spaces; field 3 is first.
  const fields = stat
    .slice(stat.lastIndexOf(")") + 2)
    .trim()
    .split(" ");
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && end > start))
    throw new Error("no environment bounds in /proc/self/stat");
  const fd = openSync("/proc/self/mem", "r+");
  try {
    const block = Buffer.alloc(end - start);
    if (readSync(fd, block, 0, block.length, start) !== block.length)
      throw new Error("short read of the environment block");
    for (let entry = 0; entry < block.length; ) {
      const terminator = block.indexOf(0, entry);
      const stop = terminator === -1 ? block.length : terminator;
      const equals = block.indexOf(0x3d, entry);
      if (equals > entry && equals < stop && names.has(block.toString("utf8", entry, equals)) && stop > equals + 1) {
        const zeros = Buffer.alloc(stop - equals - 1);
        if (writeSync(fd, zeros, 0, zeros.length, start + equals + 1) !== zeros.length)
          throw new Error("short write to the environment block");
      }
      entry = stop + 1;
    }
  } finally {
    closeSync(fd);
  }
}
