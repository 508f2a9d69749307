/**
 * Command line of `antigravity-harness`. With no arguments it behaves exactly like `localharness`
 * (protocol §2.3: stdio handshake, no flags). `--listen` switches to a long-running server for
 * remote clients.
 */

/** Launched by an SDK: handshake on stdio (§3). */
export interface StdioModeOptions {
  mode: "stdio";
  workspace?: string;
  script?: string;
}

/** Long-running server: `--listen HOST:PORT`. */
export interface ListenModeOptions {
  mode: "listen";
  host: string;
  port: number;
  /** Key clients must send as `x-goog-api-key`; generated when absent. */
  apiKey?: string;
  storage?: string;
  workspace?: string;
  script?: string;
}

/** `--help` / `--version`. */
export type InfoModeOptions = { mode: "help" } | { mode: "version" };

/** What `parseCliArgs` returns. */
export type HarnessCliOptions = StdioModeOptions | ListenModeOptions | InfoModeOptions;

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
      --api-key KEY       key clients send as x-goog-api-key (env ANTIGRAVITY_API_KEY;
                          generated and printed when absent)
      --storage DIR       persist sessions under DIR (default: in memory)
      --workspace DIR     workspace of sessions whose config names none (default: cwd)
      --script FILE       script of the offline scripted model (env ANTIGRAVITY_SCRIPT)
  Without HOST:PORT, --listen uses ANTIGRAVITY_HARNESS_HOST (default 127.0.0.1) and
  ANTIGRAVITY_HARNESS_PORT (default 8000).`;

const VALUE_FLAGS = new Set(["--api-key", "--storage", "--workspace", "--script"]);

/**
 * Parses argv (without node and script). Environment variables only fill in what `--listen`
 * leaves open, so an SDK launching the binary with no arguments always gets stdio mode even when
 * `ANTIGRAVITY_HARNESS_PORT` happens to be set for a remote client.
 */
export function parseCliArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): HarnessCliOptions {
  const values = new Map<string, string>();
  let listen: string | undefined;
  let listenGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    const eq = raw.indexOf("=");
    const flag = raw.startsWith("--") && eq > 0 ? raw.slice(0, eq) : raw;
    const inline = raw.startsWith("--") && eq > 0 ? raw.slice(eq + 1) : undefined;
    if (flag === "--help" || flag === "-h") return { mode: "help" };
    if (flag === "--version") return { mode: "version" };
    if (flag === "--listen") {
      listenGiven = true;
      const next = argv[i + 1];
      if (inline !== undefined) listen = inline;
      else if (next !== undefined && !next.startsWith("--")) { listen = next; i++; }
      continue;
    }
    if (VALUE_FLAGS.has(flag)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new CliUsageError(`${flag} needs a value`);
      values.set(flag, value);
      continue;
    }
    throw new CliUsageError(`unknown argument ${JSON.stringify(raw)}; run antigravity-harness --help`);
  }
  const script = values.get("--script") ?? nonEmpty(env["ANTIGRAVITY_SCRIPT"]);
  const workspace = values.get("--workspace");
  if (!listenGiven) {
    for (const flag of ["--api-key", "--storage"]) {
      if (values.has(flag)) throw new CliUsageError(`${flag} is only valid with --listen (stdio mode takes its storage from InputConfig and generates its key)`);
    }
    return { mode: "stdio", ...(workspace === undefined ? {} : { workspace }), ...(script === undefined ? {} : { script }) };
  }
  const { host, port } = parseHostPort(listen, env);
  const apiKey = values.get("--api-key") ?? nonEmpty(env["ANTIGRAVITY_API_KEY"]);
  const storage = values.get("--storage");
  return {
    mode: "listen",
    host,
    port,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(storage === undefined ? {} : { storage }),
    ...(workspace === undefined ? {} : { workspace }),
    ...(script === undefined ? {} : { script }),
  };
}

function parseHostPort(value: string | undefined, env: Readonly<Record<string, string | undefined>>): { host: string; port: number } {
  let host = nonEmpty(env["ANTIGRAVITY_HARNESS_HOST"]) ?? "127.0.0.1";
  let portText = nonEmpty(env["ANTIGRAVITY_HARNESS_PORT"]) ?? "8000";
  if (value !== undefined) {
    const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
    if (match === null) throw new CliUsageError(`--listen expects HOST:PORT (e.g. 127.0.0.1:8000 or [::1]:0), got ${JSON.stringify(value)}`);
    const parsedHost = match[1] ?? match[2];
    if (parsedHost !== undefined && parsedHost !== "") host = parsedHost;
    portText = match[3] as string;
  }
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliUsageError(`port must be 0-65535, got ${JSON.stringify(portText)}`);
  return { host, port };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
