import { boolArg, displayArg, pathArg, stringArg } from "./args.js";
import { startCommand } from "./command-process.js";
import { ToolError, defineBuiltinTool, objectSchema, param, type BuiltinTool, type ToolContext } from "./tool.js";

export { MAX_COMMAND_OUTPUT } from "./command-process.js";
/** Least time between two progress updates of a running command. */
const PROGRESS_INTERVAL_MS = 100;

/**
 * `run_command` (§11.1, switch `runCommand`). Args: `{CommandLine, Cwd?}` (`CommandLine` is the
 * argument name §11.1 reports; `Cwd` is ours). Runs `/bin/sh -c` in its own session, limited by
 * `maxTimeoutMs` (0 → 10 minutes), with the allow-listed environment (command-env.ts). Every
 * process it starts — background jobs, `setsid`, double forks — is killed on timeout, halt, or
 * when the shell exits, before the result is returned (process-registry.ts). With
 * `enableDaemonCommands`, `IsDaemon: true` (upstream RunCommandConfig.enable_daemons, types.py
 * @4bfe2531: "run_command(IsDaemon=True) without blocking session completion") starts the command
 * as a background task of the session instead (tasks/task-board.ts): contained the same way, its
 * latest 64 KiB of output kept, stopped with manage_task, when the session ends or with the harness.
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
    if (boolArg(args, "IsDaemon")) {
      if (!context.daemonCommands)
        throw new ToolError("IsDaemon needs daemon commands, which this session did not enable (enableDaemonCommands)");
      context.signal.throwIfAborted();
      const command = startCommand(commandLine, cwd.absolute, {
        env: context.env,
        sandbox: context.sandbox,
        keep: "tail",
      });
      const task = context.tasks.command(commandLine, cwd.absolute, command, "run_command IsDaemon");
      return {
        action: { runCommand: { commandLine, workingDir: cwd.absolute } },
        response: { ...task, cwd: cwd.shown },
      };
    }
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
  let lastProgress = 0;
  let progressTimer: NodeJS.Timeout | undefined;
  const sendProgress = (): void => {
    progressTimer = undefined;
    lastProgress = Date.now();
    context.progress({ runCommand: { commandLine, workingDir: cwd, combinedOutput: command.output() } });
  };
  const command = startCommand(commandLine, cwd, {
    env: context.env,
    sandbox: context.sandbox,
    keep: "head",
    onOutput: () => {
      if (progressTimer === undefined)
        progressTimer = setTimeout(sendProgress, Math.max(0, lastProgress + PROGRESS_INTERVAL_MS - Date.now()));
    },
  });
  let failure: Error | undefined;
  const stop = (error: Error): void => {
    failure ??= error;
    void command.kill();
  };
  const timer = setTimeout(
    () => stop(new ToolError(`command timed out after ${context.runCommandTimeoutMs} ms and was killed`)),
    context.runCommandTimeoutMs,
  );
  const onAbort = (): void =>
    stop(context.signal.reason instanceof Error ? context.signal.reason : new Error("aborted"));
  context.signal.addEventListener("abort", onAbort, { once: true });
  return command.exited.then((exitCode) => {
    clearTimeout(timer);
    if (progressTimer !== undefined) clearTimeout(progressTimer);
    context.signal.removeEventListener("abort", onAbort);
    const startError = command.startError;
    if (failure === undefined && startError !== undefined)
      failure = new ToolError(`could not start the command: ${startError.message}`);
    if (failure !== undefined) throw failure;
    return { exitCode, output: command.output(), truncated: command.dropped > 0 };
  });
}

/** run_command as offered with `enableDaemonCommands`: the same tool with the `IsDaemon` argument. */
export const runCommandWithDaemons: BuiltinTool = {
  ...runCommandTool,
  parameters: {
    ...runCommandTool.parameters,
    properties: {
      ...(runCommandTool.parameters["properties"] as Record<string, unknown>),
      IsDaemon: param(
        "boolean",
        "Start a long-running command (a server, a watcher) in the background and return at once; manage_task shows its output and stops it.",
      ),
    },
  },
};
