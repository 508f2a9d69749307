/**
 * Command line of `antigravity-harness`. With no arguments it behaves exactly like `localharness`
 * (protocol §2.3: stdio handshake, no flags). `--listen` switches to a long-running server for
 * remote clients.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { errorText, definedProperties } from "@antigravity-ts/sdk/internal";

/** Launched by an SDK: handshake on stdio (§3). */
export interface StdioModeOptions extends ResourceLimitOptions {
  mode: "stdio";
  workspace?: string;
  script?: string;
}

/** Memory bounds of a harness (issue 8 item 7); absent = the defaults of {@link startHarnessServer}. */
export interface ResourceLimitOptions {
  /** `--keep-ended-sessions N`: ended sessions kept in memory (without storage). */
  keepEndedSessions?: number;
  /** `--ended-session-ttl SECONDS`, in ms: how long an ended session stays resumable in memory. */
  endedSessionTtlMs?: number;
  /** `--max-frame-bytes N`: largest incoming WebSocket message; 0 = unlimited. */
  maxFrameBytes?: number;
  /** `--tool-timeout-ms N`: time limit of one file-tool call on its worker thread (issue 8 item 5). */
  toolTimeoutMs?: number;
  /** `--confirmation-hold-ms N`: how long a session whose client left during a tool confirmation keeps that turn; 0 = not at all. */
  confirmationHoldMs?: number;
}

/** Long-running server: `--listen HOST:PORT`. */
export interface ListenModeOptions extends ResourceLimitOptions {
  mode: "listen";
  host: string;
  port: number;
  /** Key clients must send as `x-goog-api-key` (`--api-key` or `ANTIGRAVITY_API_KEY`); generated when absent. */
  apiKey?: string;
  /** `--api-key-file PATH`: read the key from this file (first line) instead. */
  apiKeyFile?: string;
  storage?: string;
  workspace?: string;
  script?: string;
  /** `--interactions-api`: serve the Gemini Interactions API (the hosted agent's wire) instead of the localharness WebSocket. */
  interactionsApi?: boolean;
}

/** `--acp`: serve the Agent Client Protocol on stdio (NDJSON JSON-RPC; docs/acp.md). */
export interface AcpModeOptions extends ResourceLimitOptions {
  mode: "acp";
  storage?: string;
  workspace?: string;
  script?: string;
}

/** `--help` / `--version`. */
export type InfoModeOptions = { mode: "help" } | { mode: "version" };

/** What `parseCliArgs` returns. */
export type HarnessCliOptions = StdioModeOptions | ListenModeOptions | AcpModeOptions | InfoModeOptions;

/** Thrown for a command line we cannot run; the message says how to fix it. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

/** Usage text printed by `--help`. */
export const USAGE = `Usage:
  antigravity-harness                       stdio mode, launched by an SDK like localharness:
                                            reads a length-prefixed InputConfig on stdin,
                                            answers with OutputConfig{port, apiKey} on stdout
  antigravity-harness --listen [HOST:PORT]  serve remote clients on ws://HOST:PORT/
      --api-key-file FILE read the key clients send as x-goog-api-key from FILE
                          (or set ANTIGRAVITY_API_KEY; generated and printed when absent)
      --api-key KEY       the key on the command line (hidden from ps once started;
                          prefer the file or the environment)
      --storage DIR       persist sessions under DIR (default: in memory)
      --workspace DIR     workspace of sessions whose config names none (default: cwd)
      --script FILE       script of the offline scripted model (env ANTIGRAVITY_SCRIPT)
      --keep-ended-sessions N   ended sessions kept in memory without --storage (default 64)
      --ended-session-ttl SECS  how long they stay resumable (default 3600)
      --max-frame-bytes N       largest incoming message, 0 = unlimited (default 67108864)
      --tool-timeout-ms N       time limit of one file-tool call (search, find, view, list,
                                edit) in ms; also in stdio mode (default 30000)
      --confirmation-hold-ms N  how long a session whose client left while a tool call
                                awaited confirmation keeps that turn for a client that
                                resumes it, in ms; 0 = end the turn at once (default 600000)
      --interactions-api  serve the Gemini Interactions API (POST /v1beta/interactions, SSE,
                          resumable by last_event_id) on http://HOST:PORT/ instead: an
                          emulator of the hosted Antigravity agent (docs/hosted.md)
  antigravity-harness --acp                 serve the Agent Client Protocol on stdio (NDJSON
                                            JSON-RPC) for editors and ACP clients (docs/acp.md);
                                            takes --storage, --workspace, --script
  Without HOST:PORT, --listen uses ANTIGRAVITY_HARNESS_HOST (default 127.0.0.1) and
  ANTIGRAVITY_HARNESS_PORT (default 8000).`;

const VALUE_FLAGS = [
  "api-key",
  "api-key-file",
  "storage",
  "workspace",
  "script",
  "keep-ended-sessions",
  "ended-session-ttl",
  "max-frame-bytes",
  "tool-timeout-ms",
  "confirmation-hold-ms",
] as const;
const OPTIONS: NonNullable<ParseArgsConfig["options"]> = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  listen: { type: "string" },
  "interactions-api": { type: "boolean" },
  acp: { type: "boolean" },
  ...Object.fromEntries(VALUE_FLAGS.map((flag) => [flag, { type: "string" }])),
};
/**
 * Flags whose value is a secret, or says where one is: never shown in the process title. A key
 * file stays readable by the harness's OS user, so its path is as good as the key to a command
 * that runs as that user.
 */
const SECRET_FLAGS = new Set(["--api-key", "--api-key-file"]);

/**
 * Parses argv (without node and script) with `node:util`'s `parseArgs`. Environment variables
 * only fill in what `--listen` leaves open, so an SDK launching the binary with no arguments
 * always gets stdio mode even when `ANTIGRAVITY_HARNESS_PORT` happens to be set for a remote client.
 */
export function parseCliArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): HarnessCliOptions {
  if (argv.includes("--help") || argv.includes("-h")) return { mode: "help" };
  if (argv.includes("--version")) return { mode: "version" };
  const parsed = parse(normalisedArgv(argv));
  const values = new Map<string, string>();
  for (const flag of VALUE_FLAGS) {
    const value = parsed[flag];
    if (value === "") throw new CliUsageError(`--${flag} needs a value`);
    if (typeof value === "string") values.set(`--${flag}`, value);
  }
  const listenGiven = typeof parsed["listen"] === "string";
  const listen = nonEmpty(parsed["listen"] as string | undefined);
  const script = values.get("--script") ?? nonEmpty(env["ANTIGRAVITY_SCRIPT"]);
  const workspace = values.get("--workspace");
  const limits = parseLimits(values);
  const interactionsApi = parsed["interactions-api"] === true;
  if (parsed["acp"] === true) {
    if (listenGiven || interactionsApi)
      throw new CliUsageError("--acp serves ACP on stdio: it takes no --listen or --interactions-api");
    for (const flag of ["--api-key", "--api-key-file"])
      if (values.has(flag)) throw new CliUsageError(`${flag} is not valid with --acp (ACP on stdio has no key)`);
    return { mode: "acp", ...definedProperties({ workspace, script, storage: values.get("--storage") }), ...limits };
  }
  if (!listenGiven) {
    if (interactionsApi) throw new CliUsageError("--interactions-api is only valid with --listen HOST:PORT");
    for (const flag of ["--api-key", "--api-key-file", "--storage"]) {
      if (values.has(flag))
        throw new CliUsageError(
          `${flag} is only valid with --listen (stdio mode takes its storage from InputConfig and generates its key)`,
        );
    }
    return { mode: "stdio", ...definedProperties({ workspace, script }), ...limits };
  }
  const { host, port } = parseHostPort(listen, env);
  const apiKeyFile = values.get("--api-key-file");
  if (apiKeyFile !== undefined && values.has("--api-key"))
    throw new CliUsageError("give either --api-key or --api-key-file, not both");
  const apiKey =
    apiKeyFile === undefined ? (values.get("--api-key") ?? nonEmpty(env["ANTIGRAVITY_API_KEY"])) : undefined;
  const storage = values.get("--storage");
  return {
    mode: "listen",
    host,
    port,
    ...definedProperties({ apiKey, apiKeyFile, storage, workspace, script }),
    ...(interactionsApi ? { interactionsApi: true } : {}),
    ...limits,
  };
}

/**
 * Argv in the form `parseArgs` reads as this command always has: `--listen` takes an optional
 * HOST:PORT (alone, or before another flag, it is given as empty), and a value flag takes the next
 * argument even when it starts with "-" (so `--max-frame-bytes -1` is refused as a number, not as
 * a missing value).
 */
function normalisedArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg === "--listen" && (next === undefined || next.startsWith("--"))) out.push("--listen=");
    else if ((VALUE_FLAGS as readonly string[]).includes(arg.slice(2)) && arg.startsWith("--") && next !== undefined) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** `parseArgs` over argv; its errors (unknown argument, missing value) become {@link CliUsageError}s. */
function parse(argv: readonly string[]): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) throw error;
    const message = errorText(error);
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE")
      throw new CliUsageError(`${/--[\w-]+/.exec(message)?.[0] ?? "an option"} needs a value`);
    const argument = /'([^']*)'/.exec(message)?.[1] ?? message;
    throw new CliUsageError(`unknown argument ${JSON.stringify(argument)}; run antigravity-harness --help`);
  }
}

/**
 * The process title for `argv`: `antigravity-harness <args>` with the values of secret flags
 * replaced by `***`. Setting it overwrites the kernel's copy of argv (`/proc/<pid>/cmdline`, what
 * `ps` shows), so a key given with `--api-key`, or the path of `--api-key-file`, is visible only
 * until the harness has started.
 */
export function processTitle(argv: readonly string[]): string {
  const shown: string[] = ["antigravity-harness"];
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    const eq = raw.indexOf("=");
    if (raw.startsWith("--") && eq > 0 && SECRET_FLAGS.has(raw.slice(0, eq))) shown.push(`${raw.slice(0, eq)}=***`);
    else if (SECRET_FLAGS.has(raw) && i + 1 < argv.length) {
      shown.push(raw, "***");
      i++;
    } else shown.push(raw);
  }
  return shown.join(" ");
}

function parseLimits(values: ReadonlyMap<string, string>): ResourceLimitOptions {
  const count = (flag: string): number | undefined => {
    const text = values.get(flag);
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value))
      throw new CliUsageError(`${flag} expects a whole number >= 0, got ${JSON.stringify(text)}`);
    return value;
  };
  const keep = count("--keep-ended-sessions");
  const ttl = count("--ended-session-ttl");
  const frame = count("--max-frame-bytes");
  const toolTimeout = count("--tool-timeout-ms");
  const hold = count("--confirmation-hold-ms");
  if (toolTimeout === 0) throw new CliUsageError("--tool-timeout-ms expects a time limit of at least 1 ms");
  return {
    ...definedProperties({ keepEndedSessions: keep }),
    ...(ttl === undefined ? {} : { endedSessionTtlMs: ttl * 1000 }),
    ...definedProperties({ maxFrameBytes: frame, toolTimeoutMs: toolTimeout, confirmationHoldMs: hold }),
  };
}

function parseHostPort(
  value: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { host: string; port: number } {
  let host = nonEmpty(env["ANTIGRAVITY_HARNESS_HOST"]) ?? "127.0.0.1";
  let portText = nonEmpty(env["ANTIGRAVITY_HARNESS_PORT"]) ?? "8000";
  if (value !== undefined) {
    const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
    if (match === null)
      throw new CliUsageError(
        `--listen expects HOST:PORT (e.g. 127.0.0.1:8000 or [::1]:0), got ${JSON.stringify(value)}`,
      );
    const parsedHost = match[1] ?? match[2];
    if (parsedHost !== undefined && parsedHost !== "") host = parsedHost;
    portText = match[3] as string;
  }
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliUsageError(`port must be 0-65535, got ${JSON.stringify(portText)}`);
  return { host, port };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
