#!/usr/bin/env node
import { processTitle } from "./cli-args.js";
import { runHarnessCli } from "./main.js";
import { exitProcess } from "./process-exit.js";

// `antigravity-harness`: see main.ts and docs/harness.md. The title makes its processes easy to
// find (`ps aux | grep antigravity-harness`) whichever way node was launched, and overwrites the
// kernel's copy of argv so that an `--api-key` value no longer shows in `ps`.
process.title = processTitle(process.argv.slice(2));
runHarnessCli(process.argv.slice(2)).then(
  // Not process.exit: that would wait forever for a file-system call blocked in a pool thread.
  (code) => exitProcess(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
