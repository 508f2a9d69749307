import { MID_TURN_SEMANTICS, type MidTurnSemantics } from "@antigravity-ts/sdk";

/** What the `antigravity` command was asked to do. */
export interface CliOptions {
  mode: "demo" | "interactive" | "prompt" | "ndjson" | "help" | "version";
  /** The prompt of `--prompt` / a positional argument. */
  prompt?: string;
  /** Harness binary (`--harness`). */
  harnessPath?: string;
  /** Workspace directory (`--workspace`); default the working directory. */
  workspace?: string;
  /** Forward the harness's stderr (`--verbose`). */
  verbose: boolean;
  /** `--no-color` (also `NO_COLOR`). */
  color?: boolean;
  /** `--mid-turn`: what a message sent while a turn runs does (ndjson mode; default queue). */
  midTurn?: MidTurnSemantics;
}

/** A command line we cannot run; the message says how to fix it. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

/** Text of `antigravity --help`. */
export const CLI_USAGE = `Usage: antigravity [options] [prompt]

  (no arguments)        quick start: a short scripted conversation with the harness
  <prompt>, -p <prompt> one turn with your prompt, then exit
  -i, --interactive     a REPL: type prompts (lines typed during a turn queue up);
                        /help lists its commands (/usage, /history, /clear,
                        /save, /load); /exit or Ctrl-D leaves; Ctrl-C halts a
                        running turn, at the prompt it exits
  --input-format ndjson --output-format ndjson
                        a streaming session driven by JSON lines on stdin, events as
                        JSON lines on stdout (docs/ndjson.md)
  --mid-turn <mode>     ndjson: a message sent while a turn runs is queued (queue,
                        default), halts the turn (interrupt) or is refused
                        (between-turns-only); see docs/streaming-session.md

Options:
  --harness <path>      harness binary (default: ANTIGRAVITY_HARNESS_PATH, localharness on
                        PATH, else the bundled reference harness)
  --workspace <dir>     directory the agent works in (default: current directory)
  --verbose             show the harness's log (stderr)
  --no-color            plain output (also NO_COLOR=1)
  -h, --help, --version

Model: the reference harness runs an offline scripted demo model unless GEMINI_API_KEY
(or ANTIGRAVITY_MODEL_PROVIDER, see docs/model-providers.md) is set.`;

/** Parses argv (without node and the script). */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = { mode: "demo", verbose: false };
  const prompts: string[] = [];
  const formats: { input?: string; output?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined || next === "") throw new CliUsageError(`${arg} needs a value; run antigravity --help`);
      return next;
    };
    switch (arg) {
      case "-h":
      case "--help":
        return { mode: "help", verbose: false };
      case "--version":
        return { mode: "version", verbose: false };
      case "-i":
      case "--interactive":
        options.mode = "interactive";
        break;
      case "-p":
      case "--prompt":
        prompts.push(value());
        break;
      case "--harness":
        options.harnessPath = value();
        break;
      case "--workspace":
        options.workspace = value();
        break;
      case "--input-format":
        formats.input = format(arg, value());
        break;
      case "--output-format":
        formats.output = format(arg, value());
        break;
      case "--mid-turn": {
        const mode = value();
        if (!(MID_TURN_SEMANTICS as readonly string[]).includes(mode)) throw new CliUsageError(`--mid-turn takes ${MID_TURN_SEMANTICS.join(", ")}, got ${mode}`);
        options.midTurn = mode as MidTurnSemantics;
        break;
      }
      case "--verbose":
        options.verbose = true;
        break;
      case "--no-color":
        options.color = false;
        break;
      default:
        if (arg.startsWith("-")) throw new CliUsageError(`unknown option ${arg}; run antigravity --help`);
        prompts.push(arg);
    }
  }
  if ((formats.input ?? "text") !== "text" || (formats.output ?? "text") !== "text") {
    if (formats.input !== "ndjson" || formats.output !== "ndjson") throw new CliUsageError("--input-format ndjson and --output-format ndjson go together (text is the default of both)");
    if (prompts.length > 0 || options.mode === "interactive") throw new CliUsageError("the ndjson mode takes its prompts as user_message lines on stdin, not as arguments or --interactive");
    options.mode = "ndjson";
    return options;
  }
  if (options.midTurn !== undefined) throw new CliUsageError("--mid-turn applies to the ndjson mode (--input-format ndjson --output-format ndjson)");
  if (prompts.length > 0) {
    if (options.mode === "interactive") throw new CliUsageError("--interactive takes no prompt; type it at the prompt instead");
    options.mode = "prompt";
    options.prompt = prompts.join(" ");
  }
  return options;
}

/** A `--input-format`/`--output-format` value: `text` (the default) or `ndjson`. */
function format(flag: string, value: string): string {
  if (value !== "text" && value !== "ndjson") throw new CliUsageError(`${flag} takes text or ndjson, got ${value}`);
  return value;
}
