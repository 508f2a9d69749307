import { rm } from "node:fs/promises";
import type { LookupFunction } from "node:net";
import { release } from "node:os";
import {
  ErrorCode,
  SDK_VERSION,
  SdkError,
  type CallOptions,
  type Channel,
  type Transport,
  type WebSocketPeerClose,
} from "@antigravity-ts/sdk";
import { linkSignal, throwIfAborted, definedProperties } from "@antigravity-ts/sdk/internal";
import { connectHarnessSocket } from "../socket/connect-harness-socket.js";
import { resolveAhead } from "../socket/resolve-ahead.js";
import { discoverHarnessBinary, type HarnessBinary } from "./discover-harness.js";
import { HarnessProcess, describeExit, type HarnessEndpoint, type HarnessExit } from "./harness-process.js";
import { PrewarmedHarness } from "./prewarmed-harness.js";
import { createTemporaryStorage, removeStaleTemporaryStorage } from "./temporary-storage.js";
import { warmHostCheck } from "./warm-host-check.js";

/** What the SDK tells the harness about itself (`InputConfig.client_info`, protocol §3). */
export interface ClientInfoInit {
  language?: string;
  version?: string;
  languageVersion?: string;
  os?: string;
  osVersion?: string;
}

/** Options of {@link SubprocessTransport}. */
export interface SubprocessTransportOptions {
  /** Harness binary; see {@link discoverHarnessBinary} for what happens without it. */
  harnessPath?: string;
  /** Extra environment for the harness and its tools: merged over `process.env` and sent as `InputConfig.env`. */
  env?: Readonly<Record<string, string>>;
  /**
   * `InputConfig.storage_directory`; default a fresh `antigravity_*` temp dir, removed on close.
   * Such directories left by a process that died (SIGKILL) are removed by the next one.
   */
  saveDir?: string;
  /** Overrides of the reported client info. */
  clientInfo?: ClientInfoInit;
  /** Working directory of the harness process. Default: this process's. */
  cwd?: string;
  /** Bound on spawn → `OutputConfig`, in ms. Default 30 000. */
  handshakeTimeoutMs?: number;
  /** How long `close()` waits for the harness to exit after closing its stdin, before SIGTERM. Default 5 000 (upstream: 180 000). */
  shutdownTimeoutMs?: number;
  /** WebSocket connect attempts (protocol §4). Default 5. */
  connectAttempts?: number;
  /** Stderr lines kept for error messages. Default 100. */
  stderrTailLines?: number;
  /** Receives each harness stderr line as it arrives. */
  onStderr?: (line: string) => void;
  /** Set false to fail instead of falling back to the bundled reference harness. Default true. */
  allowBundledHarness?: boolean;
}

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 30_000;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;
/** After an unexpected socket close, how long we wait to learn whether the child died. */
const CRASH_PROBE_MS = 2_000;
/** After the child exits, how long the socket may stay open before we drop it. */
const SOCKET_AFTER_EXIT_MS = 1_000;

/**
 * A {@link Transport} that runs the harness as a child process (protocol §2–§4): finds the
 * binary, spawns it with no arguments, does the stdio handshake, opens the WebSocket with the
 * per-process key, and on `close()` shuts the child down in order (socket, stdin, wait, SIGTERM,
 * SIGKILL). A child never outlives this process, even when it throws.
 *
 * Binary discovery: `harnessPath` → `ANTIGRAVITY_HARNESS_PATH` (agent env, then process env) →
 * `localharness` on `PATH` → the bundled reference harness from `@antigravity-ts/harness`.
 *
 * @example
 * const transport = new SubprocessTransport({ env: { GEMINI_API_KEY: key } });
 * const channel = await transport.connect({ timeoutMs: 30_000 });
 */
export class SubprocessTransport implements Transport {
  readonly #options: SubprocessTransportOptions;

  constructor(options: SubprocessTransportOptions = {}) {
    this.#options = options;
  }

  /** The binary `connect()` would start, without starting it. */
  resolveBinary(): HarnessBinary {
    const { harnessPath, env, allowBundledHarness } = this.#options;
    return discoverHarnessBinary({
      ...definedProperties({ harnessPath, env, allowBundled: allowBundledHarness }),
    });
  }

  /**
   * Starts a harness and returns an open channel to it. Rejects with `Unavailable` (binary
   * missing, connect failed), `PermissionDenied`, `HarnessCrashed` (died before it was ready),
   * `ProtocolError` (not a localharness), `Canceled` or `DeadlineExceeded`; the child is gone
   * by the time it rejects.
   */
  async connect(options: CallOptions = {}): Promise<SubprocessChannel> {
    const link = linkSignal(options);
    try {
      const started = await this.#start(link.signal);
      return await this.#open(started, link.signal);
    } finally {
      link.dispose();
    }
  }

  /**
   * Spawns the harness and does the stdio handshake now, so that a later `start()` only opens
   * the WebSocket and initializes the session: pass the returned {@link PrewarmedHarness} to
   * `Agent.builder().transport(...)`. Its first `connect()` adopts this harness; until then the
   * harness does not keep this process alive, and `dispose()` (or this process's exit) kills it.
   * Rejects like {@link connect}.
   *
   * @example
   * const prewarmed = await new SubprocessTransport().prewarm();
   * // ... later, when the user asks for an agent:
   * await using agent = await Agent.builder().transport(prewarmed).allowAll().build().start();
   */
  async prewarm(options: CallOptions = {}): Promise<PrewarmedHarness> {
    const link = linkSignal(options);
    try {
      const started = await this.#start(link.signal);
      started.harness.keepProcessAlive(false);
      return new PrewarmedHarness(started.harness, {
        open: (signal) => {
          started.harness.keepProcessAlive(true);
          return this.#open(started, signal);
        },
        connectFresh: (callOptions) => this.connect(callOptions),
        discard: () => discardStarted(started),
      });
    } finally {
      link.dispose();
    }
  }

  /** Phase 1 (protocol §2–§3): binary, storage, spawn, handshake. Nothing is left behind when it rejects. */
  async #start(signal: AbortSignal): Promise<StartedHarness> {
    let harness: HarnessProcess | undefined;
    let pendingStorage: Promise<Storage> | undefined;
    try {
      throwIfAborted(signal);
      const binary = this.resolveBinary();
      const userEnv = this.#options.env ?? {};
      const { saveDir } = this.#options;
      if (saveDir === undefined) void removeStaleTemporaryStorage();
      // Resolved while the harness boots, for the socket opened after the handshake (protocol §4).
      const lookup = resolveAhead("localhost");
      // Made while the harness boots (its path goes in the InputConfig, written after the spawn).
      pendingStorage =
        saveDir === undefined
          ? createTemporaryStorage().then((path) => ({ path, owned: true }))
          : Promise.resolve({ path: saveDir, owned: false });
      pendingStorage.catch(() => {}); // a failure is thrown by the await below, or cleaned up after a failed spawn
      harness = await HarnessProcess.spawn(binary, {
        env: { ...process.env, ...userEnv },
        cwd: this.#options.cwd,
        stderrTailLines: this.#options.stderrTailLines,
        onStderr: this.#options.onStderr,
      });
      const storage = await pendingStorage;
      const input = { storageDirectory: storage.path, clientInfo: this.#clientInfo(), env: { ...userEnv } };
      // While the harness boots: `connect()` and a prewarmed `start()` then open their socket without this cost.
      warmHostCheck();
      const handshakeTimeoutMs = this.#options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
      const handshakeLink = linkSignal({ signal, timeoutMs: handshakeTimeoutMs });
      try {
        const endpoint = await harness.handshake(input, handshakeLink.signal);
        return { harness, endpoint, storage, lookup, input };
      } finally {
        handshakeLink.dispose();
      }
    } catch (error) {
      await harness?.kill();
      const made = await pendingStorage?.catch(() => undefined);
      if (made?.owned === true) await rm(made.path, { recursive: true, force: true }).catch(() => {});
      throw SdkError.from(error, ErrorCode.Unavailable);
    }
  }

  /** Phase 2 (protocol §4) on a started harness; the harness is killed when it rejects. */
  async #open(started: StartedHarness, signal: AbortSignal): Promise<SubprocessChannel> {
    const { harness, storage } = started;
    try {
      throwIfAborted(signal);
      const peer = { closed: false };
      const socket = await this.#openSocket(started, signal, peer);
      return new SubprocessChannel(socket, harness, {
        handshake: { input: started.input, output: started.endpoint },
        storageDirectory: storage.path,
        ownsStorage: storage.owned,
        shutdownTimeoutMs: this.#options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
        peerClosed: () => peer.closed,
      });
    } catch (error) {
      await discardStarted(started);
      throw SdkError.from(error, ErrorCode.Unavailable);
    }
  }

  /**
   * Phase 2 (protocol §4), abandoned early with `HarnessCrashed` if the child exits meanwhile.
   * `peer.closed` turns true when the harness side closes the socket.
   */
  async #openSocket(
    { harness, endpoint: { port, apiKey }, lookup }: StartedHarness,
    signal: AbortSignal,
    peer: { closed: boolean },
  ): Promise<Channel> {
    const died = new AbortController();
    void harness.exited.then((exit) => {
      died.abort(
        new SdkError(
          ErrorCode.HarnessCrashed,
          `harness ${describeExit(exit)} before accepting the WebSocket on port ${port}: ${harness.stderr.toString()}`,
          {
            details: { exitCode: exit.code, exitSignal: exit.signal, stderrTail: harness.stderr.toString() },
          },
        ),
      );
    });
    const link = linkSignal({ signal }, died.signal);
    try {
      return await connectHarnessSocket({
        port,
        apiKey,
        attempts: this.#options.connectAttempts ?? 5,
        lookup,
        signal: link.signal,
        onPeerClose: (close) => {
          peer.closed = true;
          return crashOnPeerClose(harness, close);
        },
      });
    } catch (error) {
      if (died.signal.aborted) throw died.signal.reason;
      const sdkError = SdkError.from(error, ErrorCode.Unavailable);
      throw new SdkError(sdkError.code, `${sdkError.message}; harness stderr:\n${harness.stderr.toString()}`, {
        cause: sdkError,
        details: { ...sdkError.details, stderrTail: harness.stderr.toString() },
      });
    } finally {
      link.dispose();
    }
  }

  #clientInfo(): Required<ClientInfoInit> {
    return {
      language: "typescript",
      version: SDK_VERSION,
      languageVersion: process.versions.node,
      os: process.platform === "win32" ? "windows" : process.platform,
      osVersion: release(),
      ...this.#options.clientInfo,
    };
  }
}

/** The `storage_directory` of a harness, and whether it is a temporary one of ours (removed on close). */
interface Storage {
  path: string;
  owned: boolean;
}

/** A spawned harness past its handshake: what `connect()` and a prewarmed harness open the socket to. */
interface StartedHarness {
  harness: HarnessProcess;
  endpoint: HarnessEndpoint;
  storage: Storage;
  /** Answers for `localhost` from a resolution made while the harness booted. */
  lookup: LookupFunction;
  /** The `InputConfig` the handshake wrote. */
  input: HarnessHandshake["input"];
}

/** The stdio handshake of a harness (protocol §3): the `InputConfig` written and the `OutputConfig` read. */
export interface HarnessHandshake {
  readonly input: {
    readonly storageDirectory: string;
    readonly clientInfo: Required<ClientInfoInit>;
    readonly env: Readonly<Record<string, string>>;
  };
  readonly output: HarnessEndpoint;
}

/** Kills a started harness and removes its temporary storage. */
async function discardStarted({ harness, storage }: StartedHarness): Promise<void> {
  await harness.kill();
  if (storage.owned) await rm(storage.path, { recursive: true, force: true }).catch(() => {});
}

/**
 * What a dropped socket means (the transport's `onPeerClose`): a normal close while the child
 * runs ends the stream; otherwise `HarnessCrashed` with the stderr tail if the child died, else
 * `ConnectionClosed` with it.
 */
async function crashOnPeerClose(
  harness: HarnessProcess,
  { code, reason, error }: WebSocketPeerClose,
): Promise<SdkError | undefined> {
  if (code === 1000 && harness.exit === undefined) return undefined;
  if (error?.code === ErrorCode.NotFound) return error; // the harness refused a resume: it did not crash
  const exit = await harness.waitForExit(CRASH_PROBE_MS);
  if (exit === undefined) {
    return new SdkError(
      ErrorCode.ConnectionClosed,
      `the harness closed the WebSocket (code ${code}${reason ? `: ${reason}` : ""}) but is still running; harness stderr:\n${harness.stderr.toString()}`,
      { details: { closeCode: code } },
    );
  }
  return crashError(harness, exit, code);
}

function crashError(harness: HarnessProcess, exit: HarnessExit, closeCode: number): SdkError {
  return new SdkError(
    ErrorCode.HarnessCrashed,
    `harness process ${describeExit(exit)} unexpectedly (WebSocket close code ${closeCode}); harness stderr:\n${harness.stderr.toString()}`,
    {
      details: { closeCode, exitCode: exit.code, exitSignal: exit.signal, stderrTail: harness.stderr.toString() },
    },
  );
}

/** Options the transport hands to its channel. */
interface SubprocessChannelInit {
  handshake: HarnessHandshake;
  storageDirectory: string;
  ownsStorage: boolean;
  shutdownTimeoutMs: number;
  /** True once the harness side closed the socket (the transport's `onPeerClose` ran). */
  peerClosed: () => boolean;
}

/**
 * The channel of a {@link SubprocessTransport}: the harness's WebSocket channel, plus the child.
 * `frames()` throws `HarnessCrashed` with the stderr tail when the socket drops because the
 * child died; `close()` stops the child (protocol §2.3) and removes a temporary storage dir.
 */
export class SubprocessChannel implements Channel, AsyncDisposable {
  /** The `storage_directory` sent in the handshake. */
  readonly storageDirectory: string;
  /**
   * The handshake that started this harness (protocol §3), for a trace recorder
   * (`recordingTransport` of `@antigravity-ts/sdk/replay`, which redacts its key and environment).
   */
  readonly handshake: HarnessHandshake;
  readonly #socket: Channel;
  readonly #harness: HarnessProcess;
  readonly #init: SubprocessChannelInit;
  #closing: Promise<void> | undefined;
  /** Set when the socket outlived the child and was dropped: what `frames()` ends with. */
  #dropped: SdkError | undefined;

  /** The harness's WebSocket URL (loopback), for errors that name it. */
  get peer(): string | undefined {
    return this.#socket.peer;
  }

  constructor(socket: Channel, harness: HarnessProcess, init: SubprocessChannelInit) {
    this.storageDirectory = init.storageDirectory;
    this.handshake = init.handshake;
    this.#socket = socket;
    this.#harness = harness;
    this.#init = init;
    // A dead child normally takes its socket with it; if something keeps it open, drop it.
    void harness.exited.then((exit) => {
      setTimeout(() => {
        if (this.#closing !== undefined || init.peerClosed()) return;
        this.#dropped = crashError(harness, exit, 1006);
        void socket.close();
      }, SOCKET_AFTER_EXIT_MS).unref();
    });
  }

  /** True while frames can be sent. */
  get isOpen(): boolean {
    return this.#closing === undefined && this.#dropped === undefined && !this.#init.peerClosed();
  }

  send(frame: string): void {
    this.#socket.send(frame);
  }

  frames(): AsyncIterable<string> {
    const frames = this.#socket.frames();
    return {
      [Symbol.asyncIterator]: () => {
        const iterator = frames[Symbol.asyncIterator]();
        return {
          next: async () => {
            const result = await iterator.next();
            if (result.done === true && this.#dropped !== undefined) throw this.#dropped;
            return result;
          },
          return: async () => (await iterator.return?.()) ?? { done: true, value: undefined },
        };
      },
    };
  }

  /**
   * Closes the socket (close handshake bounded by 0.5 s), then stops the child (protocol §2.3,
   * bounded by `shutdownTimeoutMs`) and removes a temporary storage dir. Idempotent. The bounds
   * are the transport's: `options` does not change them.
   */
  close(options?: CallOptions): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /** `await using` support: {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #close(): Promise<void> {
    await this.#socket.close();
    await this.#harness.shutdown(this.#init.shutdownTimeoutMs);
    if (this.#init.ownsStorage) await rm(this.#init.storageDirectory, { recursive: true, force: true }).catch(() => {});
  }

  /** OS process id of the harness. */
  get pid(): number {
    return this.#harness.pid;
  }

  /** The last stderr lines of the harness. */
  stderrTail(): string {
    return this.#harness.stderr.toString();
  }

  /** Resolves with the exit status once the harness process is gone. */
  get exited(): Promise<HarnessExit> {
    return this.#harness.exited;
  }
}

/** Creates a {@link SubprocessTransport}. */
export function createSubprocessTransport(options: SubprocessTransportOptions = {}): SubprocessTransport {
  return new SubprocessTransport(options);
}
