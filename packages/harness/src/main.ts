import { readFile, stat } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { serveAcp } from "./acp/acp-server.js";
import { createRequire } from "node:module";
import path from "node:path";
import { generateApiKey } from "./server/auth.js";
import {
  CliUsageError,
  USAGE,
  parseCliArgs,
  type AcpModeOptions,
  type HarnessCliOptions,
  type ListenModeOptions,
  type ResourceLimitOptions,
  type StdioModeOptions,
} from "./cli-args.js";
import { installCrashGuard } from "./crash-guard.js";
import { createLogger, type Logger } from "./log.js";
import { detachSecrets } from "./secret-environment.js";
import { ScriptError, loadScriptFile, type ScriptFile } from "./providers/script-format.js";
import { exitWithoutWaiting } from "./process-exit.js";
import { startHarnessServer, type HarnessServer } from "./server/server.js";
import { startInteractionsEmulator } from "./interactions/interactions-server.js";
import { warmUpSessions } from "./server/warm-up.js";
import { readInputConfig, writeOutputConfig } from "./server/stdio-handshake.js";
import {
  createFileSessionStore,
  createMemorySessionStore,
  type MemorySessionStoreOptions,
} from "./loop/stored-sessions.js";
import type { CommandSandboxDefaults } from "./loop/settings.js";
import { commandEnvironment } from "./tools/command-env.js";
import { configureCommandSupervision, killAllChildren, stopCommandSupervision } from "./tools/process-registry.js";
import { definedProperties, eraOfClientInfo } from "@antigravity-ts/sdk/internal";

/** Longest a graceful shutdown may take before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * The `antigravity-harness` program: parses the command line and runs stdio mode (like
 * `localharness`, §2.3/§3) or listen mode. Resolves with the exit code once the harness stopped.
 * Secret-looking variables leave `process.env` (and, on Linux, `/proc/<pid>/environ`) first:
 * the harness reads them from its own snapshot, commands never see them.
 */
export async function runHarnessCli(argv: readonly string[]): Promise<number> {
  const log = createLogger();
  const { env, removed, wipeFailure } = detachSecrets();
  if (wipeFailure !== undefined)
    log.warn(
      `could not wipe ${removed.join(", ")} from /proc/${process.pid}/environ (${wipeFailure}); processes of this user, commands included, can read them there`,
    );
  let options: HarnessCliOptions;
  try {
    options = parseCliArgs(argv, env);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    log.error(error.message);
    return 2;
  }
  if (options.mode === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.mode === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  let script: ScriptFile | undefined;
  try {
    script = options.script === undefined ? undefined : await loadScriptFile(options.script);
  } catch (error) {
    if (!(error instanceof ScriptError)) throw error;
    log.error(error.message);
    return 2;
  }
  configureCommandSupervision({
    cgroups: env["ANTIGRAVITY_HARNESS_CGROUPS"] !== "0",
    namespaces: env["ANTIGRAVITY_HARNESS_NAMESPACES"] !== "0",
    log: (line) => log.info(line),
  });
  process.on("exit", stopCommandSupervision);
  installCrashGuard(log);
  if (argv.some((arg) => arg === "--api-key" || arg.startsWith("--api-key="))) {
    log.warn(
      "--api-key puts the key on the command line, where local users can read it until the harness has started; prefer --api-key-file FILE or ANTIGRAVITY_API_KEY",
    );
  }
  if (options.mode === "acp") return runAcp(options, script, env, log);
  return options.mode === "stdio" ? runStdio(options, script, env, log) : runListen(options, script, env, log);
}

/** `--acp`: the Agent Client Protocol on stdio (docs/acp.md); ends when the client closes stdin. */
async function runAcp(
  options: AcpModeOptions,
  script: ScriptFile | undefined,
  env: Readonly<Record<string, string>>,
  log: Logger,
): Promise<number> {
  const store =
    options.storage === undefined
      ? createMemorySessionStore(memoryLimits(options))
      : createFileSessionStore(options.storage);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
  );
  const server = serveAcp(stream, { workspace: options.workspace ?? process.cwd(), script, store, env, log });
  await server.closed;
  return 0;
}

async function runStdio(
  options: StdioModeOptions,
  script: ScriptFile | undefined,
  env: Readonly<Record<string, string>>,
  log: Logger,
): Promise<number> {
  const stdinClosed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  let input;
  try {
    input = await readInputConfig(process.stdin);
  } catch (error) {
    log.error(`handshake failed: ${(error as Error).message}`);
    return 1;
  }
  const apiKey = generateApiKey();
  const store = input.storageDirectory
    ? createFileSessionStore(input.storageDirectory)
    : createMemorySessionStore(memoryLimits(options));
  const host = input.bindAddress || "localhost";
  const workspace = options.workspace ?? process.cwd();
  let server: HarnessServer;
  try {
    server = await startHarnessServer({
      apiKey,
      host,
      port: input.port ?? 0,
      store,
      workspace,
      toolEnv: commandEnvironment(env, input.env),
      env,
      log,
      sandbox: sandboxDefaults(env, [input.storageDirectory]),
      ...definedProperties({ clientEra: eraOfClientInfo(input.clientInfo) }),
      ...definedProperties({
        script,
        toolTimeoutMs: options.toolTimeoutMs,
        confirmationHoldMs: options.confirmationHoldMs,
        maxFrameBytes: options.maxFrameBytes,
      }),
    });
  } catch (error) {
    log.error(`cannot listen on ${host}:${input.port ?? 0}: ${(error as Error).message}`);
    return 1;
  }
  // The signal handlers go in before the client can know the port: a SIGTERM sent as soon as it
  // does must find them, not the default action (which would skip the orderly shutdown).
  const terminated = terminationSignal();
  await writeOutputConfig(process.stdout, server.port, apiKey);
  warmUpSessions(workspace, server);
  log.info(
    `listening on ${server.url} (stdio mode; sessions in ${store.location}; client ${input.clientInfo?.language ?? "unknown"} ${input.clientInfo?.version ?? ""})`.trimEnd(),
  );
  const signal = await Promise.race([stdinClosed.then(() => "Stdin closed, cleaning up..."), terminated]);
  return shutdown(server, signal, log);
}

async function runListen(
  options: ListenModeOptions,
  script: ScriptFile | undefined,
  env: Readonly<Record<string, string>>,
  log: Logger,
): Promise<number> {
  let given = options.apiKey;
  if (options.apiKeyFile !== undefined) {
    try {
      given = await readApiKeyFile(options.apiKeyFile, log);
    } catch (error) {
      log.error(`--api-key-file ${options.apiKeyFile}: ${(error as Error).message}`);
      return 2;
    }
  }
  const apiKey = given ?? generateApiKey();
  if (given === undefined) log.info(`api key: ${apiKey}`);
  if (options.interactionsApi === true) return runInteractionsApi(options, apiKey, script, env, log);
  const store =
    options.storage === undefined
      ? createMemorySessionStore(memoryLimits(options))
      : createFileSessionStore(options.storage);
  const workspace = options.workspace ?? process.cwd();
  let server: HarnessServer;
  try {
    server = await startHarnessServer({
      apiKey,
      host: options.host,
      port: options.port,
      store,
      workspace,
      toolEnv: commandEnvironment(env),
      env,
      log,
      sandbox: sandboxDefaults(env, [options.storage, options.apiKeyFile]),
      ...definedProperties({
        script,
        toolTimeoutMs: options.toolTimeoutMs,
        confirmationHoldMs: options.confirmationHoldMs,
        maxFrameBytes: options.maxFrameBytes,
      }),
    });
  } catch (error) {
    log.error(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
    return 1;
  }
  log.info(`sessions in ${store.location}`);
  // As in stdio mode, the handlers go in before anyone is told where to connect.
  const terminated = terminationSignal();
  // Other runtimes and the tests wait for exactly this line.
  log.info(`listening on ${server.url}`);
  warmUpSessions(workspace, server);
  return shutdown(server, await terminated, log);
}

/** `--listen HOST:PORT --interactions-api`: the emulator of the hosted agent's Interactions API (docs/hosted.md). */
async function runInteractionsApi(
  options: ListenModeOptions,
  apiKey: string,
  script: ScriptFile | undefined,
  env: Readonly<Record<string, string>>,
  log: Logger,
): Promise<number> {
  if (options.storage !== undefined)
    log.warn("--storage is ignored with --interactions-api: interactions live in memory");
  let emulator;
  try {
    emulator = await startInteractionsEmulator({
      apiKey,
      host: options.host,
      port: options.port,
      workspace: options.workspace ?? process.cwd(),
      script,
      env,
      toolEnv: commandEnvironment(env),
      log,
    });
  } catch (error) {
    log.error(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
    return 1;
  }
  const terminated = terminationSignal();
  // The same line the WebSocket mode prints: tests and other runtimes wait for it.
  log.info(`listening on ${emulator.url}`);
  const reason = await terminated;
  log.info(reason);
  killAllChildren();
  await emulator.close();
  return 0;
}

function terminationSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM received, cleaning up..."));
    process.once("SIGINT", () => resolve("SIGINT received, cleaning up..."));
  });
}

async function shutdown(server: HarnessServer, reason: string, log: Logger): Promise<number> {
  log.info(reason);
  killAllChildren();
  const timer = new Promise<"timeout">((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS, "timeout").unref());
  if ((await Promise.race([server.close().then(() => "closed" as const), timer])) === "timeout") {
    // Something is stuck (possibly a tool's file-system call in a pool thread): don't wait for it.
    exitWithoutWaiting(`sessions did not close within ${SHUTDOWN_GRACE_MS} ms`);
  }
  return 0;
}

/** Version from our package.json (found upwards: the source and the bundled chunks sit at different depths). */
function packageVersion(): string {
  const require = createRequire(import.meta.url);
  for (const candidate of ["../package.json", "../../package.json"]) {
    try {
      const manifest = require(candidate) as { name?: string; version?: string };
      if (manifest.name === "@antigravity-ts/harness" && manifest.version !== undefined) return manifest.version;
    } catch {
      // Not at this depth.
    }
  }
  return "unknown";
}

/** The memory store's limits from the command line (defaults in storage.ts). */
function memoryLimits(options: ResourceLimitOptions): MemorySessionStoreOptions {
  return {
    ...definedProperties({ maxSessions: options.keepEndedSessions, ttlMs: options.endedSessionTtlMs }),
  };
}

/** The key in `file`: its first line without surrounding whitespace. Warns when others may read the file. */
async function readApiKeyFile(file: string, log: Logger): Promise<string> {
  const key = (await readFile(file, "utf8")).split(/\r?\n/, 1)[0]?.trim() ?? "";
  if (key === "") throw new Error("the file is empty; write the key on its first line");
  if (process.platform !== "win32" && ((await stat(file)).mode & 0o077) !== 0)
    log.warn(`${file} can be read by other users; chmod 600 it`);
  return key;
}

/**
 * What run_command's sandbox hides from every session (the session storage, which holds other
 * sessions' transcripts, and the key file) and whether it keeps the network.
 */
function sandboxDefaults(
  env: Readonly<Record<string, string>>,
  hidden: readonly (string | undefined)[],
): CommandSandboxDefaults {
  return {
    hidden: hidden.filter((p): p is string => p !== undefined && p !== "").map((p) => path.resolve(p)),
    network: env["ANTIGRAVITY_HARNESS_SANDBOX_NETWORK"] !== "0",
  };
}
