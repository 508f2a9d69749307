import { stat } from "node:fs/promises";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import {
  commandLineOf,
  type AcpTerminal,
  type AcpTerminalExit,
  type AcpTerminalRequest,
  type AcpTerminals,
} from "@antigravity-ts/sdk/acp";
import { commandEnvironment } from "../tools/command-env.js";
import { commandArgv, sandboxStatus, type SandboxPolicy } from "../tools/command-launch.js";
import { superviseCommand } from "../tools/process-registry.js";
import { createWorkspaceRoots, resolveWorkspacePath, WorkspacePathError } from "../tools/workspace-paths.js";
import { TerminalOutput } from "./terminal-output.js";

/** Options of {@link workspaceTerminals}. */
export interface WorkspaceTerminalsOptions {
  /**
   * Run each command in the reference harness's bubblewrap sandbox (default `{ network: false }`):
   * the file system read only but for the workspace roots, a private /tmp, `hidden` paths emptied,
   * no network unless `network: true`. `false` runs it with containment only (its processes
   * supervised, a PID namespace where the machine allows one): it can then read and write what
   * this user can. When the sandbox is asked for but bubblewrap cannot run here, every
   * `terminal/create` is refused with the reason.
   */
  sandbox?: { network?: boolean; hidden?: readonly string[] } | false;
  /** Most output kept per terminal (the agent's `outputByteLimit` can only lower it). Default 1 MiB. */
  maxOutputBytes?: number;
  /** A command still running after this long is killed (its exit: `SIGKILL`). Default 10 minutes. */
  timeoutMs?: number;
  /** Added to every command's environment (after the allow-list; harness credentials never pass). */
  env?: Readonly<Record<string, string>>;
}

/**
 * An ACP client's `terminal/*` (`acpAgent({ terminals })`), run as the reference harness runs
 * `run_command`: `/bin/sh -c` with the allow-listed environment (tools/command-env.ts: never this
 * process's keys), under the harness's supervision (tools/process-registry.ts: its own session,
 * cgroup and PID namespace where the machine allows; every process it starts is killed when the
 * shell exits, on kill, release, timeout, and when this process dies) and, by default, its
 * bubblewrap sandbox (tools/command-launch.ts). The working directory must resolve inside a root
 * (tools/workspace-paths.ts). Output is bounded; its start is dropped first, at a character
 * boundary, as ACP's `outputByteLimit` says. Linux and macOS (POSIX shell); refused on Windows.
 */
export async function workspaceTerminals(
  directories: readonly string[],
  options: WorkspaceTerminalsOptions = {},
): Promise<AcpTerminals> {
  if (process.platform === "win32") {
    throw new SdkError(
      ErrorCode.Unsupported,
      "workspaceTerminals runs commands with /bin/sh and the harness's POSIX supervision; it is not available on Windows",
      { details: { option: "terminals" } },
    );
  }
  const workspace = await createWorkspaceRoots(directories, true);
  const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const sandbox: SandboxPolicy | undefined =
    options.sandbox === false
      ? undefined
      : {
          writable: workspace.roots,
          hidden: options.sandbox?.hidden ?? [],
          network: options.sandbox?.network ?? false,
        };
  return {
    async create(request) {
      if (sandbox !== undefined) {
        const status = await sandboxStatus();
        if (!status.available)
          throw new Error(`the client's terminal sandbox is unavailable: ${status.unavailableReason}`);
      }
      const cwd = await resolveWorkspacePath(workspace, request.cwd);
      if (!(await stat(cwd)).isDirectory()) throw new WorkspacePathError(`cwd ${request.cwd} is not a directory`);
      const limit = Math.min(request.outputByteLimit ?? maxOutputBytes, maxOutputBytes);
      return startTerminal(request, cwd, {
        limit,
        timeoutMs,
        sandbox,
        env: commandEnvironment(process.env, { ...options.env, ...request.env }),
      });
    },
  };
}

function startTerminal(
  request: AcpTerminalRequest,
  cwd: string,
  settings: {
    limit: number;
    timeoutMs: number;
    sandbox: SandboxPolicy | undefined;
    env: Record<string, string>;
  },
): AcpTerminal {
  const supervision = superviseCommand();
  // `exec 2>&1` first: stdout and stderr share one pipe, so the output keeps its order (as run_command).
  const argv = commandArgv(supervision, `exec 2>&1\n${commandLineOf(request)}`, cwd, settings.sandbox);
  const { spawn } = process.getBuiltinModule("node:child_process");
  const child = spawn(argv.file, argv.args, {
    cwd,
    env: { ...settings.env, PWD: cwd, ...supervision.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  supervision.attach(child);
  const output = new TerminalOutput(settings.limit);
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
  let exit: AcpTerminalExit | undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void supervision.kill();
  }, settings.timeoutMs);
  timer.unref();
  // The shell exiting ends the command: everything it left behind is killed, so the pipes close.
  child.once("exit", () => void supervision.kill());
  const exited = new Promise<AcpTerminalExit>((resolve) => {
    child.once("error", (error) => {
      output.push(Buffer.from(`could not start the command: ${error.message}\n`));
      void supervision.kill();
    });
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
      void supervision.kill().then(() => {
        clearTimeout(timer);
        exit =
          timedOut || signal !== null
            ? { exitCode: null, signal: signal ?? "SIGKILL" }
            : { exitCode: code ?? -1, signal: null };
        resolve(exit);
      });
    });
  });
  const kill = async (): Promise<void> => {
    await supervision.kill();
    await exited;
  };
  return {
    output() {
      return { ...output.text(), exitStatus: exit };
    },
    waitForExit: () => exited,
    kill,
    async release() {
      await kill();
      output.clear();
    },
  };
}
