import { release } from "node:os";
import {
  type CallOptions,
  WebSocketTransport,
  type AgentBuilderDefaults,
  type TransportContext,
  type TransportFactory,
  vertexFromEnvironment,
} from "@antigravity-ts/sdk";
import { defaultAppDataDir, resolveLocalPath } from "./local-path.js";
import type { PrewarmedHarness } from "./subprocess/prewarmed-harness.js";
import { SubprocessTransport, type SubprocessTransportOptions } from "./subprocess/subprocess-transport.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** Options of {@link prewarmHarness}: the harness to start, and bounds on starting it. */
export interface PrewarmOptions extends SubprocessTransportOptions, CallOptions {}

/**
 * A {@link TransportFactory} that starts a harness subprocess per agent session: the transport
 * option for everything only a spawned harness needs (its `harnessPath`, `env`, `saveDir`,
 * `clientInfo`, ...). Its harness is the runtime's own, so the agent still sends Node's default
 * `appDataDir`.
 *
 * @example
 * const agent = Agent.builder().transport(subprocessTransportFactory({ harnessPath: "/opt/localharness", saveDir: ".sessions" })).allowAll().build();
 */
export function subprocessTransportFactory(options: SubprocessTransportOptions = {}): TransportFactory {
  const factory = (context: TransportContext): SubprocessTransport => {
    const onStderr = stderrTo(options.onStderr, context.logger);
    return new SubprocessTransport({
      ...options,
      ...definedProperties({ onStderr }),
      // ClientInfo as upstream fills it (protocol §3): the bare runtime version and the OS release.
      clientInfo: {
        ...context.clientInfo,
        languageVersion: process.versions.node,
        osVersion: release(),
        ...options.clientInfo,
      },
    });
  };
  return Object.assign(factory, { startsHarness: true });
}

/** Harness stderr lines to the transport's own `onStderr` and to the agent's `logger` (as `info`, prefixed `harness: `). */
function stderrTo(
  onStderr: ((line: string) => void) | undefined,
  logger: TransportContext["logger"],
): ((line: string) => void) | undefined {
  if (logger === undefined) return onStderr;
  return (line) => {
    onStderr?.(line);
    logger.info(`harness: ${line}`);
  };
}

/**
 * What `@antigravity-ts/node` registers for `Agent.builder()` when imported: unless the builder
 * sets a transport, `start()` connects to the harness named by `ANTIGRAVITY_HARNESS_HOST` /
 * `ANTIGRAVITY_HARNESS_PORT` when either is set (and no `harnessPath` was given), else spawns the
 * harness ({@link SubprocessTransport}: `ANTIGRAVITY_HARNESS_PATH`, `localharness` on `PATH`, else
 * the reference harness of `@antigravity-ts/harness`); the working directory as workspace (workspaces resolved: `~`, relative paths), upstream's default app data directory,
 * and Vertex AI settings from `GOOGLE_GENAI_USE_VERTEXAI`, `GOOGLE_CLOUD_PROJECT`
 * and `GOOGLE_CLOUD_LOCATION` as upstream reads them ({@link vertexFromEnvironment}), read at `start()`.
 */
export function nodeAgentDefaults(options: SubprocessTransportOptions = {}): AgentBuilderDefaults {
  return {
    defaultTransport: listeningOrSubprocess(subprocessTransportFactory(options), options),
    defaultWorkspaces: () => [process.cwd()],
    // Workspaces resolved as upstream's normalize_workspace_path resolves them (`~`, relative
    // paths, symlinks) and, for the harness this process starts, upstream's resolved default app
    // data directory ~/.gemini/antigravity (local_connection_config.DEFAULT_APP_DATA_DIR).
    resolveWorkspace: resolveLocalPath,
    defaultAppDataDir,
    fromEnvironment: (agentOptions) => vertexFromEnvironment(agentOptions, (name) => process.env[name]),
  };
}

/**
 * The Node default transport: a harness that is already listening where the environment names
 * one (`ANTIGRAVITY_HARNESS_HOST` / `ANTIGRAVITY_HARNESS_PORT`, key from `ANTIGRAVITY_API_KEY`,
 * protocol §4, as the core `Agent` does), unless a harness path was given; else a subprocess.
 * Read at `start()`.
 */
function listeningOrSubprocess(subprocess: TransportFactory, options: SubprocessTransportOptions): TransportFactory {
  return (context) => {
    const named = (name: string): boolean => (process.env[name] ?? "") !== "";
    if (options.harnessPath === undefined && (named("ANTIGRAVITY_HARNESS_HOST") || named("ANTIGRAVITY_HARNESS_PORT")))
      return new WebSocketTransport();
    return subprocess(context);
  };
}

/**
 * Spawns a harness subprocess and does its stdio handshake before any agent needs it, so the
 * `start()` that adopts it only opens the WebSocket and initializes the session. Pass the result
 * to `.transport(...)`. The harness is chosen as `start()` would choose it
 * ({@link SubprocessTransport}); give its `harnessPath`, `env` and `saveDir` here. Until adopted it does not keep the process alive; `dispose()` (or
 * `await using`) or the process's exit kills it.
 *
 * @example
 * await using prewarmed = await prewarmHarness();
 * // ... later:
 * await using agent = await Agent.builder().transport(prewarmed).allowAll().build().start();
 */
export function prewarmHarness(options: PrewarmOptions = {}): Promise<PrewarmedHarness> {
  const { signal, timeoutMs, ...transportOptions } = options;
  return new SubprocessTransport(transportOptions).prewarm(definedProperties({ signal, timeoutMs }));
}
