#!/usr/bin/env node
/**
 * `antigravity`: the quick start, a one-shot prompt, or a REPL against a harness subprocess
 * (the bundled reference harness unless another is configured); `antigravity record` runs any
 * of them with its sessions written to a trace file. See `antigravity --help`.
 * @module
 */
import { SDK_VERSION, SdkError } from "@antigravity-ts/sdk";
import { CLI_USAGE, CliUsageError, parseCliArgs, type CliOptions } from "./cli/cli-args.js";
import { runNdjson } from "./cli/ndjson-session.js";
import { runOneShot } from "./cli/quickstart.js";
import { runRepl } from "./cli/repl.js";

async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === "record") {
    // Loaded for this subcommand only: the other modes start without the recorder.
    const { RECORD_USAGE, parseRecordArgs, runRecorded } = await import("./cli/record.js");
    const command = parseRecordArgs(argv.slice(1));
    if (command === "help") {
      process.stdout.write(`${RECORD_USAGE}\n`);
      return 0;
    }
    return runRecorded(command, run);
  }
  return run(parseCliArgs(argv));
}

async function run(cli: CliOptions): Promise<number> {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") cli.color = false;
  switch (cli.mode) {
    case "help":
      process.stdout.write(`${CLI_USAGE}\n`);
      return 0;
    case "version":
      process.stdout.write(`${SDK_VERSION}\n`);
      return 0;
    case "interactive":
      return runRepl(cli, process.stdin, process.stdout);
    case "ndjson":
      return runNdjson(cli, process.stdin, process.stdout);
    default:
      return runOneShot(cli, process.stdout);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof CliUsageError) process.stderr.write(`antigravity: ${error.message}\n`);
    else if (error instanceof SdkError) process.stderr.write(`antigravity: ${error.code}: ${error.message}\n`);
    else
      process.stderr.write(`antigravity: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = error instanceof CliUsageError ? 2 : 1;
  },
);
