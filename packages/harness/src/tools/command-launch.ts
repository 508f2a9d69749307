import { lstatSync, realpathSync } from "node:fs";

// How a run_command shell is started (Linux). Two layers, each used when the machine allows it:
//
// - Containment (always): the command runs as PID 1 of a PID namespace of its own
//   (`unshare --pid --fork --kill-child --mount-proc --cgroup`, with `--user --map-current-user`
//   when the harness is not root), under `setpriv --pdeathsig KILL`. When the shell exits, or the
//   harness dies, the kernel kills every process in that namespace: leaving the session, the
//   process group, the environment tag or the cgroup (writing another cgroup's cgroup.procs) is
//   not enough to outlive the command. /proc inside shows only the command's own processes.
// - The sandbox (`RunCommandToolConfig.enable_sandbox`): bubblewrap, with the file system read
//   only, the workspace roots read-write, a private /tmp, the harness's storage and key file
//   hidden, optionally no network, no capabilities, and its own PID namespace
//   (`--die-with-parent`).
//
// Each is probed once, by running `true` under it; what fails is reported, never silently
// dropped (process-registry.ts logs containment, the session reports `sandbox_status`).

/** What a sandboxed command may see (docs/harness.md, "The command sandbox"). */
export interface SandboxPolicy {
  /** Bound read-write at their own path: the session's workspace roots. */
  readonly writable: readonly string[];
  /** Hidden from the command (an empty directory or an empty, unreadable file in their place). */
  readonly hidden: readonly string[];
  /** Whether the command keeps the host's network (false: only a loopback of its own). */
  readonly network: boolean;
}

/** `InitializeConversationResponse.sandbox_status` (upstream localharness.proto `SandboxStatus`). */
export interface SandboxStatus {
  readonly available: boolean;
  readonly unavailableReason: string;
}

/** The program and arguments that run `script` (a `/bin/sh -c` script) under a launcher prefix. */
export interface CommandArgv {
  readonly file: string;
  readonly args: string[];
}

let containment: readonly string[] | null | undefined;
let sandbox: Promise<SandboxStatus> | undefined;

/**
 * The prefix that runs a command in a PID namespace of its own, or undefined where the machine
 * refuses one (no `unshare`, namespaces disabled for this user). Probed on first use.
 */
export function namespacePrefix(): readonly string[] | undefined {
  if (containment === undefined) containment = process.platform === "linux" ? probeNamespaces() : null;
  return containment ?? undefined;
}

/** Whether `enable_sandbox` can be enforced here, and why not (bubblewrap probed once, on first use). */
export function sandboxStatus(): Promise<SandboxStatus> {
  sandbox ??= probeSandbox();
  return sandbox;
}

/**
 * How to start the shell of a command: `/bin/sh -c` runs the supervision's `prologue` (joining the
 * command's cgroup, so everything after starts inside it), then execs the launcher — bubblewrap
 * under `policy`, else the supervision's namespace prefix, else nothing — which runs
 * `/bin/sh -c script`. The script travels as a
 * positional parameter, never spliced into the outer script.
 */
export function commandArgv(
  supervision: { prologue: string; namespaces: readonly string[] | undefined },
  script: string,
  cwd: string,
  policy: SandboxPolicy | undefined,
): CommandArgv {
  const launcher = policy === undefined ? (supervision.namespaces ?? []) : bubblewrapPrefix(policy, cwd);
  const prologue = supervision.prologue;
  const exec =
    launcher.length === 0 ? `exec /bin/sh -c "$1"` : `exec ${launcher.map(shellQuote).join(" ")} /bin/sh -c "$1"`;
  return { file: "/bin/sh", args: ["-c", `${prologue}${exec}`, "sh", script] };
}

function probeNamespaces(): readonly string[] | null {
  const root = process.getuid?.() === 0;
  const unshare = [
    "unshare",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--cgroup",
    ...(root ? [] : ["--user", "--map-current-user"]),
    "--",
  ];
  for (const prefix of [["setpriv", "--pdeathsig", "KILL", "--", ...unshare], unshare]) {
    if (runs([...prefix, "/bin/sh", "-c", "exit 0"])) return prefix;
  }
  return null;
}

async function probeSandbox(): Promise<SandboxStatus> {
  if (process.platform !== "linux")
    return {
      available: false,
      unavailableReason: `no OS sandbox for run_command on ${process.platform} (bubblewrap is Linux only)`,
    };
  const [file, ...args] = [
    ...bubblewrapPrefix({ writable: [], hidden: [], network: false }, "/"),
    "/bin/sh",
    "-c",
    "exit 0",
  ];
  const { execFile } = process.getBuiltinModule("node:child_process");
  return new Promise((resolve) => {
    execFile(
      file ?? "bwrap",
      args,
      { timeout: 10_000, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } },
      (error, _stdout, stderr) => {
        if (error === null) return resolve({ available: true, unavailableReason: "" });
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
          return resolve({
            available: false,
            unavailableReason: "bubblewrap (bwrap) is not installed: apt-get install bubblewrap",
          });
        const said = String(stderr).trim().split("\n").at(-1) || error.message;
        resolve({ available: false, unavailableReason: `bubblewrap cannot create a sandbox here: ${said}` });
      },
    );
  });
}

function bubblewrapPrefix(policy: SandboxPolicy, cwd: string): string[] {
  const args = [
    "bwrap",
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
  ];
  if (!policy.network) args.push("--unshare-net");
  // Root keeps every capability in the sandbox unless they are dropped (and could remount / read-write).
  if (process.getuid?.() === 0) args.push("--cap-drop", "ALL");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  for (const directory of policy.writable) args.push("--bind", directory, directory);
  for (const hidden of policy.hidden) args.push(...hide(hidden));
  args.push("--chdir", cwd, "--");
  return args;
}

/** bubblewrap arguments that hide `target` (resolved: a link's target is what must not be read). */
function hide(target: string): string[] {
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return []; // nothing there to hide
  }
  return lstatSync(real).isDirectory() ? ["--tmpfs", real] : ["--ro-bind", "/dev/null", real];
}

function runs(argv: readonly string[]): boolean {
  const [file = "", ...args] = argv;
  // Loaded on the first command, not imported: node:child_process is not needed to start.
  const result = process
    .getBuiltinModule("node:child_process")
    .spawnSync(file, args, { stdio: "ignore", timeout: 10_000, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } });
  return result.error === undefined && result.status === 0;
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
