import { parseArgs, type ParseArgsConfig } from "node:util";
import { MID_TURN_SEMANTICS, type MidTurnSemantics, type TransportFactory } from "@antigravity-ts/sdk";
import { errorText } from "@antigravity-ts/sdk/internal";
import type { Stream } from "@agentclientprotocol/sdk";
import type { HostedCommand } from "./hosted-agent-command.js";

/** What the `antigravity` command was asked to do. */
export interface CliOptions {
  mode: "demo" | "interactive" | "prompt" | "ndjson" | "help" | "version";
  /** The prompt of `--prompt` / a positional argument. */
  prompt?: string;
  /** Harness binary (`--harness`). */
  harnessPath?: string;
  /** `--acp-agent "<command>"`: run against this ACP agent instead of a harness (docs/acp.md). */
  acpAgent?: string;
  /** `--hosted` (with `--agent`, `--base-url`): the hosted agent over the Gemini Interactions API (docs/hosted.md). */
  hosted?: HostedCommand;
  /** Workspace directory (`--workspace`); default the working directory. */
  workspace?: string;
  /** Forward the harness's stderr (`--verbose`). */
  verbose: boolean;
  /** `--no-color` (also `NO_COLOR`). */
  color?: boolean;
  /** `--mid-turn`: what a message sent while a turn runs does (ndjson mode; default queue). */
  midTurn?: MidTurnSemantics;
  /** Set by `antigravity record`: wraps the transport of every agent the command builds (record.ts). */
  wrapTransport?: (factory: TransportFactory) => TransportFactory;
  /** Set by `antigravity record` with `--acp-agent`: wraps each ACP session's message stream (record.ts). */
  wrapStream?: ((stream: Stream) => Stream) | undefined;
  /** Set by `antigravity record` with `--hosted`: the `fetch` the hosted agent's requests go through (record.ts). */
  hostedFetch?: typeof fetch | undefined;
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
  --acp-agent "<cmd>"   run against an Agent Client Protocol agent instead, e.g.
                        "gemini --acp" or "antigravity-harness --acp" (docs/acp.md)
  --hosted              run against the hosted Antigravity agent (Gemini Interactions API,
                        docs/hosted.md); the key from GEMINI_API_KEY, never an argument
    --agent <name>      the hosted agent (default antigravity-preview-09-2026)
    --base-url <url>    the API's address (default Google's): the emulator
                        "antigravity-harness --listen HOST:PORT --interactions-api", or a
                        server route that adds the key (GEMINI_API_KEY optional then)
  --workspace <dir>     directory the agent works in (default: current directory)
  --verbose             show the harness's log (stderr)
  --no-color            plain output (also NO_COLOR=1)
  -h, --help, --version

antigravity record --out FILE [--url URL] -- <arguments above>
                        runs antigravity with those arguments and writes the trace of its
                        sessions to FILE (docs/testing.md; antigravity record --help)

Model: the reference harness runs an offline scripted demo model unless GEMINI_API_KEY
(or ANTIGRAVITY_MODEL_PROVIDER, see docs/model-providers.md) is set.`;

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  interactive: { type: "boolean", short: "i" },
  prompt: { type: "string", short: "p", multiple: true },
  harness: { type: "string" },
  "acp-agent": { type: "string" },
  hosted: { type: "boolean" },
  agent: { type: "string" },
  "base-url": { type: "string" },
  workspace: { type: "string" },
  "input-format": { type: "string" },
  "output-format": { type: "string" },
  "mid-turn": { type: "string" },
  verbose: { type: "boolean" },
  "no-color": { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

/** Parses argv (without node and the script) with `node:util`'s `parseArgs`; `--flag=value` works too. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  // --help and --version win over anything else on the line, mistakes included.
  const flags = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (flags.includes("-h") || flags.includes("--help")) return { mode: "help", verbose: false };
  if (flags.includes("--version")) return { mode: "version", verbose: false };
  const { values, positionals } = parse(argv);
  const options: CliOptions = {
    mode: values.interactive === true ? "interactive" : "demo",
    verbose: values.verbose === true,
  };
  for (const flag of [
    "prompt",
    "harness",
    "acp-agent",
    "agent",
    "base-url",
    "workspace",
    "input-format",
    "output-format",
    "mid-turn",
  ] as const) {
    const given = values[flag];
    if (given === "" || (Array.isArray(given) && given.includes("")))
      throw new CliUsageError(`--${flag} needs a value; run antigravity --help`);
  }
  if (values.harness !== undefined) options.harnessPath = values.harness;
  if (values["acp-agent"] !== undefined) {
    if (values.harness !== undefined) throw new CliUsageError("give either --harness or --acp-agent, not both");
    options.acpAgent = values["acp-agent"];
  }
  if (values.hosted === true) options.hosted = hostedCommand(values);
  else if (values.agent !== undefined || values["base-url"] !== undefined)
    throw new CliUsageError(`${values.agent === undefined ? "--base-url" : "--agent"} applies to --hosted`);
  if (values.workspace !== undefined) options.workspace = values.workspace;
  if (values["no-color"] === true) options.color = false;
  const mode = values["mid-turn"];
  if (mode !== undefined) {
    if (!(MID_TURN_SEMANTICS as readonly string[]).includes(mode))
      throw new CliUsageError(`--mid-turn takes ${MID_TURN_SEMANTICS.join(", ")}, got ${mode}`);
    options.midTurn = mode as MidTurnSemantics;
  }
  const prompts = [...(values.prompt ?? []), ...positionals];
  const input = format("--input-format", values["input-format"]);
  const output = format("--output-format", values["output-format"]);
  if (input !== "text" || output !== "text") {
    if (input !== "ndjson" || output !== "ndjson")
      throw new CliUsageError(
        "--input-format ndjson and --output-format ndjson go together (text is the default of both)",
      );
    if (prompts.length > 0 || options.mode === "interactive")
      throw new CliUsageError(
        "the ndjson mode takes its prompts as user_message lines on stdin, not as arguments or --interactive",
      );
    options.mode = "ndjson";
    return options;
  }
  if (options.midTurn !== undefined)
    throw new CliUsageError("--mid-turn applies to the ndjson mode (--input-format ndjson --output-format ndjson)");
  if (prompts.length > 0) {
    if (options.mode === "interactive")
      throw new CliUsageError("--interactive takes no prompt; type it at the prompt instead");
    options.mode = "prompt";
    options.prompt = prompts.join(" ");
  }
  return options;
}

/** `--hosted`'s settings; refused with the options of the other wires and `--workspace` (the hosted agent has its own sandbox). */
function hostedCommand(values: ReturnType<typeof parse>["values"]): HostedCommand {
  for (const other of ["harness", "acp-agent", "workspace"] as const)
    if (values[other] !== undefined)
      throw new CliUsageError(
        other === "workspace"
          ? "--workspace does not apply to --hosted: the hosted agent works in its own sandbox"
          : `give either --${other} or --hosted, not both`,
      );
  const hosted: HostedCommand = {};
  if (values.agent !== undefined) hosted.agent = values.agent;
  const baseUrl = values["base-url"];
  if (baseUrl !== undefined) {
    if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
      throw new CliUsageError(`--base-url takes an http:// or https:// URL, got ${baseUrl}`);
    hosted.baseUrl = baseUrl;
  }
  return hosted;
}

/** `parseArgs` over argv; its errors (unknown option, missing value) become {@link CliUsageError}s. */
function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) throw error;
    const message = errorText(error);
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION")
      throw new CliUsageError(`unknown option ${/'(-[^']*)'/.exec(message)?.[1] ?? ""}; run antigravity --help`);
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE")
      throw new CliUsageError(`${/--[\w-]+/.exec(message)?.[0] ?? "an option"} needs a value; run antigravity --help`);
    throw new CliUsageError(`${errorText(error)}; run antigravity --help`);
  }
}

/** A `--input-format`/`--output-format` value: `text` (the default) or `ndjson`. */
function format(flag: string, value: string | undefined): string {
  if (value === undefined) return "text";
  if (value !== "text" && value !== "ndjson") throw new CliUsageError(`${flag} takes text or ndjson, got ${value}`);
  return value;
}
