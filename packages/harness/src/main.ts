import { createRequire } from "node:module";
import { generateApiKey } from "./auth.js";
import { CliUsageError, USAGE, parseCliArgs, type HarnessCliOptions, type ListenModeOptions, type StdioModeOptions } from "./cli-args.js";
import { installCrashGuard } from "./crash-guard.js";
import { createLogger, type Logger } from "./log.js";
import { ScriptError, loadScriptFile, type ScriptFile } from "./model/script-format.js";
import { startHarnessServer, type HarnessServer } from "./server.js";
import { readInputConfig, writeOutputConfig } from "./stdio-handshake.js";
import { createFileSessionStore, createMemorySessionStore } from "./storage.js";
import { killAllChildren } from "./tools/process-registry.js";

/** Longest a graceful shutdown may take before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * The `antigravity-harness` program: parses the command line and runs stdio mode (like
 * `localharness`, §2.3/§3) or listen mode. Resolves with the exit code once the harness stopped.
 */
export async function runHarnessCli(argv: readonly string[]): Promise<number> {
  const log = createLogger();
  let options: HarnessCliOptions;
  try {
    options = parseCliArgs(argv, process.env);
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
  process.on("exit", killAllChildren);
  installCrashGuard(log);
  return options.mode === "stdio" ? runStdio(options, script, log) : runListen(options, script, log);
}

async function runStdio(options: StdioModeOptions, script: ScriptFile | undefined, log: Logger): Promise<number> {
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
  const store = input.storageDirectory ? createFileSessionStore(input.storageDirectory) : createMemorySessionStore();
  const host = input.bindAddress || "localhost";
  let server: HarnessServer;
  try {
    server = await startHarnessServer({
      apiKey,
      host,
      port: input.port ?? 0,
      store,
      workspace: options.workspace ?? process.cwd(),
      toolEnv: { ...stringEnv(process.env), ...input.env },
      env: process.env,
      log,
      ...(script === undefined ? {} : { script }),
    });
  } catch (error) {
    log.error(`cannot listen on ${host}:${input.port ?? 0}: ${(error as Error).message}`);
    return 1;
  }
  await writeOutputConfig(process.stdout, server.port, apiKey);
  log.info(`listening on ${server.url} (stdio mode; sessions in ${store.location}; client ${input.clientInfo?.language ?? "unknown"} ${input.clientInfo?.version ?? ""})`.trimEnd());
  const signal = await Promise.race([stdinClosed.then(() => "Stdin closed, cleaning up..."), terminationSignal()]);
  return shutdown(server, signal, log);
}

async function runListen(options: ListenModeOptions, script: ScriptFile | undefined, log: Logger): Promise<number> {
  const apiKey = options.apiKey ?? generateApiKey();
  if (options.apiKey === undefined) log.info(`api key: ${apiKey}`);
  const store = options.storage === undefined ? createMemorySessionStore() : createFileSessionStore(options.storage);
  let server: HarnessServer;
  try {
    server = await startHarnessServer({
      apiKey,
      host: options.host,
      port: options.port,
      store,
      workspace: options.workspace ?? process.cwd(),
      toolEnv: stringEnv(process.env),
      env: process.env,
      log,
      ...(script === undefined ? {} : { script }),
    });
  } catch (error) {
    log.error(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
    return 1;
  }
  log.info(`sessions in ${store.location}`);
  // Other runtimes and the tests wait for exactly this line.
  log.info(`listening on ${server.url}`);
  return shutdown(server, await terminationSignal(), log);
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
    log.warn(`sessions did not close within ${SHUTDOWN_GRACE_MS} ms; exiting anyway`);
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

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}
