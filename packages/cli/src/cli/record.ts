import { parseArgs } from "node:util";
import { WebSocketTransport, type Transport, type TransportFactory } from "@antigravity-ts/sdk";
import {
  recordingFetch,
  recordingTransport,
  streamRecorder,
  type RecordingTransport,
} from "@antigravity-ts/sdk/replay";
import { fileTraceSink } from "@antigravity-ts/node/replay";
import { errorText } from "@antigravity-ts/sdk/internal";
import { CliUsageError, parseCliArgs, type CliOptions } from "./cli-args.js";

/** Text of `antigravity record --help`. */
export const RECORD_USAGE = `Usage: antigravity record --out FILE [--url ws://HOST:PORT] [-- <antigravity arguments>]

Runs antigravity with the arguments after -- (the quick start without any) and writes every
frame of its sessions, both directions, to FILE as a trace (docs/testing.md): one NDJSON line
each, keys, tokens, headers and the values of *_API_KEY, *_TOKEN, *SECRET*, *PASSWORD*
environment variables redacted.

  --out FILE        the trace file (created, or overwritten)
  --url URL         record against a harness already listening at URL (its key from
                    ANTIGRAVITY_API_KEY) instead of the one antigravity starts; --harness
                    <path> after -- records against that binary (a real localharness)

--acp-agent "<cmd>" after -- records the ACP agent's JSON-RPC messages instead (wire acp);
--hosted after -- records the hosted agent's HTTP requests and their responses, each
server-sent event a frame (wire interactions; every header value redacted).

Examples: antigravity record --out hello.ndjson -- -p "hello"
          antigravity record --out acp.ndjson -- --acp-agent "gemini --acp" -p "hello"
          antigravity record --out hosted.ndjson -- --hosted -p "hello"`;

/** What `antigravity record` was asked to do. */
export interface RecordCommand {
  /** The trace file. */
  out: string;
  /** A listening harness to record against (`--url`). */
  url?: string;
  /** The command line to record, parsed as `antigravity` parses it. */
  cli: CliOptions;
}

/** Environment variables whose values a trace never holds. */
const SECRET_ENV = /(?:_API_KEY|_TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i;

/** Parses what follows `antigravity record`; `help` when it asks for the usage. */
export function parseRecordArgs(argv: readonly string[]): RecordCommand | "help" {
  const split = argv.indexOf("--");
  const own = split === -1 ? argv : argv.slice(0, split);
  const rest = split === -1 ? [] : argv.slice(split + 1);
  if (own.includes("-h") || own.includes("--help")) return "help";
  let values: { out?: string | undefined; url?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...own],
      options: { out: { type: "string" }, url: { type: "string" } },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    throw new CliUsageError(
      `record: ${errorText(error)}; the command to record goes after --; run antigravity record --help`,
    );
  }
  if (values.out === undefined || values.out === "")
    throw new CliUsageError("record needs --out FILE; run antigravity record --help");
  if (values.url !== undefined && !/^wss?:\/\//.test(values.url))
    throw new CliUsageError(`record: --url takes a ws:// or wss:// URL, got ${values.url}`);
  const cli = parseCliArgs(rest);
  if (values.url !== undefined && cli.acpAgent !== undefined)
    throw new CliUsageError("record: --url records a listening harness; an --acp-agent is spawned, give one of them");
  if (values.url !== undefined && cli.hosted !== undefined)
    throw new CliUsageError("record: --url records a listening harness; for the hosted agent give --base-url after --");
  if (cli.mode === "help" || cli.mode === "version")
    throw new CliUsageError(`record: there is no session to record in antigravity ${rest.join(" ")}`);
  return { out: values.out, cli, ...(values.url === undefined ? {} : { url: values.url }) };
}

/**
 * Runs `run` on the command's CLI options with every agent's transport — with `--acp-agent`,
 * every ACP session's message stream; with `--hosted`, every HTTP exchange — recorded to the trace file: one trace for the whole run
 * (each session a connection of it), closed when `run` ends.
 */
export async function runRecorded(
  command: RecordCommand,
  run: (cli: CliOptions) => Promise<number>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const secrets = Object.entries(env).flatMap(([name, value]) =>
    SECRET_ENV.test(name) && value !== undefined && value.length >= 6 ? [value] : [],
  );
  const meta = { client: "antigravity record", mode: command.cli.mode };
  if (command.cli.acpAgent !== undefined) {
    const recorder = streamRecorder(fileTraceSink(command.out), { secrets, meta: { ...meta, peer: "acp agent" } });
    try {
      return await run({ ...command.cli, wrapStream: recorder.wrap });
    } finally {
      await recorder.close();
    }
  }
  if (command.cli.hosted !== undefined) {
    const recorder = recordingFetch(globalThis.fetch, fileTraceSink(command.out), {
      secrets,
      meta: { ...meta, peer: "hosted agent" },
    });
    try {
      return await run({ ...command.cli, hostedFetch: recorder.fetch });
    } finally {
      await recorder.close();
    }
  }
  let current: Transport | undefined;
  const recorder: RecordingTransport = recordingTransport(
    { connect: (options) => (current as Transport).connect(options) },
    fileTraceSink(command.out),
    { secrets, meta: { ...meta, peer: command.url === undefined ? "subprocess" : "listening harness" } },
  );
  const { url } = command;
  const wrapTransport = (factory: TransportFactory): TransportFactory => {
    const recorded = (context: Parameters<TransportFactory>[0]): Transport => {
      current =
        url === undefined
          ? factory(context)
          : new WebSocketTransport({ url, ...(env.ANTIGRAVITY_API_KEY ? { apiKey: env.ANTIGRAVITY_API_KEY } : {}) });
      return recorder;
    };
    // The harness antigravity starts gets Node's defaults (app data directory) as without recording.
    return Object.assign(recorded, { startsHarness: url === undefined && factory.startsHarness === true });
  };
  try {
    return await run({ ...command.cli, wrapTransport });
  } finally {
    await recorder.close();
  }
}
