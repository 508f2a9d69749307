import { displayArg, pathArg, stringArg } from "./args.js";
import { commandArgv } from "./command-launch.js";
import { superviseCommand } from "./process-registry.js";
import { ToolError, defineBuiltinTool, objectSchema, param, type ToolContext } from "./tool.js";

/** Combined stdout+stderr kept per command; the rest is dropped with a note. */
export const MAX_COMMAND_OUTPUT = 64 * 1024;
/** Least time between two progress updates of a running command. */
const PROGRESS_INTERVAL_MS = 100;

/**
 * `run_command` (§11.1, switch `runCommand`). Args: `{CommandLine, Cwd?}` (`CommandLine` is the
 * argument name §11.1 reports; `Cwd` is ours). Runs `/bin/sh -c` in its own session, limited by
 * `maxTimeoutMs` (0 → 10 minutes), with the allow-listed environment (command-env.ts). Every
 * process it starts — background jobs, `setsid`, double forks — is killed on timeout, halt, or
 * when the shell exits, before the result is returned (process-registry.ts; daemon commands are
 * not supported).
 */
export const runCommandTool = defineBuiltinTool({
  name: "run_command",
  toolSwitch: "runCommand",
  description: "Run a shell command (/bin/sh -c) in the workspace and return its exit code and combined stdout/stderr.",
  parameters: objectSchema(
    {
      CommandLine: param("string", "The command line to run."),
      Cwd: param("string", "Working directory (default: the workspace root)."),
    },
    ["CommandLine"],
  ),
  describe: (args) => ({
    runCommand: { commandLine: displayArg(args, "CommandLine"), workingDir: displayArg(args, "Cwd") },
  }),
  async run(args, context) {
    const commandLine = stringArg(args, "CommandLine");
    if (commandLine.trim() === "") throw new ToolError("CommandLine must not be empty");
    const cwd = await pathArg(args, "Cwd", context.workspace, { fallback: "." });
    const result = await execute(commandLine, cwd.absolute, context);
    return {
      action: {
        runCommand: { commandLine, workingDir: cwd.absolute, exitCode: result.exitCode, combinedOutput: result.output },
      },
      response: {
        output: result.output,
        exit_code: result.exitCode,
        cwd: cwd.shown,
        ...(result.truncated ? { truncated: true } : {}),
      },
    };
  },
});

interface CommandResult {
  exitCode: number;
  output: string;
  truncated: boolean;
}

function execute(commandLine: string, cwd: string, context: ToolContext): Promise<CommandResult> {
  context.signal.throwIfAborted();
  const windows = process.platform === "win32";
  const supervision = superviseCommand();
  // `exec 2>&1` first: stdout and stderr share one pipe, so the combined output keeps its order.
  const argv = windows
    ? { file: "cmd.exe", args: ["/d", "/s", "/c", commandLine] }
    : commandArgv(supervision, `exec 2>&1\n${commandLine}`, cwd, context.sandbox);
  // Loaded on the first command, not imported: node:child_process is not needed to start.
  const { spawn } = process.getBuiltinModule("node:child_process");
  const child = spawn(argv.file, argv.args, {
    cwd,
    env: { ...context.env, PWD: cwd, ...supervision.env },
    detached: !windows,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
  });
  supervision.attach(child);
  let output = "";
  let dropped = 0;
  let lastProgress = 0;
  let progressTimer: NodeJS.Timeout | undefined;
  const sendProgress = (): void => {
    progressTimer = undefined;
    lastProgress = Date.now();
    context.progress({ runCommand: { commandLine, workingDir: cwd, combinedOutput: output } });
  };
  const onData = (chunk: Buffer): void => {
    const text = chunk.toString("utf8");
    const room = MAX_COMMAND_OUTPUT - output.length;
    if (room > 0) output += text.slice(0, room);
    dropped += Math.max(0, text.length - Math.max(room, 0));
    if (progressTimer === undefined)
      progressTimer = setTimeout(sendProgress, Math.max(0, lastProgress + PROGRESS_INTERVAL_MS - Date.now()));
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);

  return new Promise<CommandResult>((resolve, reject) => {
    let failure: Error | undefined;
    const stop = (error: Error): void => {
      failure ??= error;
      void supervision.kill();
    };
    const timer = setTimeout(
      () => stop(new ToolError(`command timed out after ${context.runCommandTimeoutMs} ms and was killed`)),
      context.runCommandTimeoutMs,
    );
    const onAbort = (): void =>
      stop(context.signal.reason instanceof Error ? context.signal.reason : new Error("aborted"));
    context.signal.addEventListener("abort", onAbort, { once: true });
    // The shell exiting ends the command: kill everything it left behind, so the pipes close
    // and no background job outlives the result.
    child.once("exit", () => void supervision.kill());
    child.once("error", (error) => stop(new ToolError(`could not start the command: ${error.message}`)));
    child.once("close", (code, signal) => {
      void supervision.kill().then(() => {
        clearTimeout(timer);
        if (progressTimer !== undefined) clearTimeout(progressTimer);
        context.signal.removeEventListener("abort", onAbort);
        if (failure !== undefined) return reject(failure);
        const note = dropped > 0 ? `\n… [output truncated: ${dropped} more characters]` : "";
        resolve({ exitCode: code ?? (signal === null ? -1 : 128), output: output + note, truncated: dropped > 0 });
      });
    });
  });
}
