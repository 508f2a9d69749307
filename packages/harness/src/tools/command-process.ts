import { commandArgv, type SandboxPolicy } from "./command-launch.js";
import { superviseCommand } from "./process-registry.js";

/** Combined stdout+stderr kept per command; the rest is dropped with a note. */
export const MAX_COMMAND_OUTPUT = 64 * 1024;

/** How {@link startCommand} runs a command. */
export interface StartCommandOptions {
  readonly env: Readonly<Record<string, string>>;
  readonly sandbox: SandboxPolicy | undefined;
  /** Which output to keep past {@link MAX_COMMAND_OUTPUT}: the first (run_command) or the latest (a background task). */
  readonly keep: "head" | "tail";
  /** Called after output arrives (the text so far). */
  onOutput?(): void;
}

/** A started command and everything it starts. */
export interface CommandProcess {
  readonly pid: number | undefined;
  /** The output kept so far (combined, in order), with a note when some was dropped. */
  output(): string;
  /** Characters dropped past {@link MAX_COMMAND_OUTPUT}. */
  readonly dropped: number;
  /** Settles when the shell closed and every process it started is gone: its exit code (128 when killed by a signal). */
  readonly exited: Promise<number>;
  /** A spawn failure, once known. */
  readonly startError: Error | undefined;
  /** Kills every process of the command; resolves when none is alive. */
  kill(): Promise<void>;
}

/**
 * Starts `/bin/sh -c commandLine` in `cwd` the way run_command does (tools/command-launch.ts,
 * tools/process-registry.ts): its own session, supervised (cgroup, PID namespace, /proc sweep,
 * watchdog), the sandbox when given, stdout and stderr on one pipe so their order is kept. When the
 * shell exits, everything it left behind is killed, so nothing outlives the command.
 */
export function startCommand(commandLine: string, cwd: string, options: StartCommandOptions): CommandProcess {
  const windows = process.platform === "win32";
  const supervision = superviseCommand();
  // `exec 2>&1` first: stdout and stderr share one pipe, so the combined output keeps its order.
  const argv = windows
    ? { file: "cmd.exe", args: ["/d", "/s", "/c", commandLine] }
    : commandArgv(supervision, `exec 2>&1\n${commandLine}`, cwd, options.sandbox);
  // Loaded on the first command, not imported: node:child_process is not needed to start.
  const { spawn } = process.getBuiltinModule("node:child_process");
  const child = spawn(argv.file, argv.args, {
    cwd,
    env: { ...options.env, PWD: cwd, ...supervision.env },
    detached: !windows,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
  });
  supervision.attach(child);
  let output = "";
  let dropped = 0;
  let startError: Error | undefined;
  const onData = (chunk: Buffer): void => {
    const text = chunk.toString("utf8");
    if (options.keep === "head") {
      const room = MAX_COMMAND_OUTPUT - output.length;
      if (room > 0) output += text.slice(0, room);
      dropped += Math.max(0, text.length - Math.max(room, 0));
    } else {
      output += text;
      if (output.length > MAX_COMMAND_OUTPUT) {
        dropped += output.length - MAX_COMMAND_OUTPUT;
        output = output.slice(-MAX_COMMAND_OUTPUT);
      }
    }
    options.onOutput?.();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  // The shell exiting ends the command: kill everything it left behind, so the pipes close.
  child.once("exit", () => void supervision.kill());
  const exited = new Promise<number>((resolve) => {
    child.once("error", (error) => {
      startError = error;
      void supervision.kill();
    });
    child.once("close", (code, signal) => {
      void supervision.kill().then(() => resolve(code ?? (signal === null ? -1 : 128)));
    });
  });
  return {
    pid: child.pid,
    output: () =>
      dropped === 0
        ? output
        : options.keep === "head"
          ? `${output}\n… [output truncated: ${dropped} more characters]`
          : `[… ${dropped} earlier characters dropped]\n${output}`,
    get dropped() {
      return dropped;
    },
    exited,
    get startError() {
      return startError;
    },
    kill: () => supervision.kill(),
  };
}
