import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { namespacePrefix } from "./command-launch.js";
import {
  createCommandCgroup,
  createHarnessCgroup,
  joinCgroupScript,
  killCgroup,
  removeCgroup,
} from "./command-cgroup.js";
import { COMMAND_TAG_VARIABLE, canSweep, sweep, sweepSync, type SweepTarget } from "./process-sweep.js";
import { startWatchdog, type Watchdog } from "./watchdog-process.js";

// Supervision of run_command (issue 8 item 6): every process a command starts dies when the
// command ends, on halt, disconnect, timeout and shutdown, and when the harness itself is killed.
// On Linux each command gets its own cgroup when the harness can create one (cgroup v2), and
// always a tag in its environment plus its own session; the /proc sweep kills what carries the
// tag, lives in the session or cgroup, or descends from any of those, until nothing is left.
// Elsewhere the command's process group is killed. A watchdog process does the same for every
// running command when the harness dies without cleaning up.

/** Options of {@link configureCommandSupervision}. */
export interface SupervisionOptions {
  /** Use a cgroup v2 per command when possible (default true; `ANTIGRAVITY_HARNESS_CGROUPS=0` turns it off). */
  cgroups?: boolean;
  /** Run each command in a PID namespace of its own when possible (default true; `ANTIGRAVITY_HARNESS_NAMESPACES=0` turns it off). */
  namespaces?: boolean;
  /** Receives one line when supervision starts, saying how commands are contained. */
  log?: (line: string) => void;
}

interface Supervisor {
  /** Random per harness process; commands are tagged `<id>.<n>`. */
  readonly id: string;
  readonly cgroup: string | undefined;
  /** The launcher prefix of command-launch.ts `namespacePrefix`, when namespaces are used. */
  readonly namespaces: readonly string[] | undefined;
  readonly sweepable: boolean;
  watchdog: Watchdog | undefined;
}

let options: SupervisionOptions = {};
let supervisor: Supervisor | undefined;
let sequence = 0;
const running = new Set<SupervisedCommand>();

/** Sets how commands are supervised; call before the first command (later calls only change the log). */
export function configureCommandSupervision(next: SupervisionOptions): void {
  options = next;
}

/** One command's containment: what its shell needs, and how to end everything it started. */
export class SupervisedCommand {
  /** Environment additions of the command: its tag. */
  readonly env: Readonly<Record<string, string>>;
  /** Shell lines to run first (joining the cgroup). */
  readonly prologue: string;
  /** The PID-namespace launcher of the command, when the machine allows one. */
  readonly namespaces: readonly string[] | undefined;
  readonly #supervisor: Supervisor;
  readonly #target: SweepTarget;
  readonly #cgroup: string | undefined;
  #child: ChildProcess | undefined;
  #killed: Promise<void> | undefined;

  constructor(current: Supervisor) {
    const tag = `${current.id}.${++sequence}`;
    this.#supervisor = current;
    this.#cgroup =
      current.cgroup === undefined ? undefined : createCommandCgroup(current.cgroup, `command-${sequence}`);
    this.env = { [COMMAND_TAG_VARIABLE]: tag };
    this.prologue = this.#cgroup === undefined ? "" : joinCgroupScript(this.#cgroup);
    this.namespaces = current.namespaces;
    this.#target = {
      tagPrefix: `${tag}\0`,
      sessions: new Set(),
      cgroups: this.#cgroup === undefined ? [] : [this.#cgroup],
      exclude: new Set([process.pid]),
    };
    running.add(this);
  }

  /** Pid of the command's shell, once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Records the spawned shell (its own session and process group: spawn with `detached`). */
  attach(child: ChildProcess): void {
    this.#child = child;
    if (child.pid === undefined) return;
    (this.#target.sessions as Set<number>).add(child.pid);
    this.#supervisor.watchdog?.started(child.pid);
  }

  /** Kills every process of the command; resolves once none is alive. Idempotent. */
  kill(): Promise<void> {
    this.#killed ??= (async () => {
      this.#signalGroups();
      if (this.#supervisor.sweepable) await sweep(this.#targetNow());
      this.#finish();
    })();
    return this.#killed;
  }

  /** {@link kill}, blocking (shutdown, `exit` handlers). */
  killSync(): void {
    this.#signalGroups();
    if (this.#supervisor.sweepable) sweepSync(this.#targetNow());
    this.#finish();
  }

  #targetNow(): SweepTarget {
    const watchdog = this.#supervisor.watchdog?.pid;
    return watchdog === undefined ? this.#target : { ...this.#target, exclude: new Set([process.pid, watchdog]) };
  }

  #signalGroups(): void {
    if (this.#cgroup !== undefined) killCgroup(this.#cgroup);
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === "win32") this.#child?.kill("SIGKILL");
      else process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  #finish(): void {
    if (!running.delete(this)) return;
    if (this.#cgroup !== undefined) removeCgroup(this.#cgroup);
    const pid = this.#child?.pid;
    if (pid !== undefined) this.#supervisor.watchdog?.ended(pid);
  }
}

/**
 * Starts supervising a new command: on first use creates the harness's cgroup (when possible),
 * probes PID namespaces and starts its watchdog. Spawn the shell with `env` added, from
 * command-launch.ts `commandArgv` (prologue first, then the namespace launcher), `detached: true`,
 * then call `attach`, and `kill()` when the shell exits or the command must stop.
 */
export function superviseCommand(): SupervisedCommand {
  return new SupervisedCommand(currentSupervisor());
}

/** Kills every running command synchronously (shutdown). */
export function killAllChildren(): void {
  for (const command of [...running]) command.killSync();
}

/** {@link killAllChildren}, then removes the harness's cgroup: for the process's `exit`. */
export function stopCommandSupervision(): void {
  killAllChildren();
  if (supervisor?.cgroup !== undefined) removeCgroup(supervisor.cgroup);
}

/** Number of commands still running. */
export function runningChildCount(): number {
  return running.size;
}

function currentSupervisor(): Supervisor {
  if (supervisor === undefined) {
    const linux = process.platform === "linux";
    const cgroup = linux && options.cgroups !== false ? createHarnessCgroup() : undefined;
    const namespaces = linux && options.namespaces !== false ? namespacePrefix() : undefined;
    supervisor = {
      id: randomBytes(12).toString("hex"),
      cgroup,
      namespaces,
      sweepable: linux && canSweep(),
      watchdog: undefined,
    };
    const how =
      cgroup !== undefined
        ? `in cgroup ${cgroup} and by /proc sweep`
        : supervisor.sweepable
          ? "by /proc sweep (no writable cgroup v2)"
          : "by process group";
    const pid =
      namespaces !== undefined
        ? `each in a PID namespace of its own (${namespaces.includes("--user") ? "user namespace" : "root"}), `
        : linux
          ? "without PID namespaces (unshare refused: a command that leaves its session and cgroup can outlive it), "
          : "";
    options.log?.(`commands are contained ${pid}${how}`);
  }
  if (supervisor.watchdog === undefined || supervisor.watchdog.exited) {
    supervisor.watchdog =
      process.platform === "win32"
        ? undefined
        : startWatchdog(
            supervisor.id,
            supervisor.cgroup,
            [...running].flatMap((command) => (command.pid === undefined ? [] : [command.pid])),
          );
  }
  return supervisor;
}
