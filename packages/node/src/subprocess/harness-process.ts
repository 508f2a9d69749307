import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { statSync } from "node:fs";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { registerChild, unregisterChild } from "./child-registry.js";
import type { HarnessBinary } from "./discover-harness.js";
import { mapSpawnError } from "./spawn-errors.js";
import { StderrTail } from "./stderr-tail.js";
import {
  LengthPrefixedReader,
  decodeHandshakeOutput,
  definedProperties,
  encodeHandshakeInput,
  frameLengthPrefixed,
  type HandshakeInput,
} from "@antigravity-ts/sdk/internal";

/** How a harness process ended. */
export interface HarnessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Where the harness listens, from its `OutputConfig` (protocol §3). */
export interface HarnessEndpoint {
  port: number;
  apiKey: string;
}

/** Options of {@link HarnessProcess.spawn}. */
export interface SpawnHarnessOptions {
  /** Full environment of the child (parent environment merged with the agent's env). */
  env: NodeJS.ProcessEnv;
  cwd?: string | undefined;
  /** Lines of stderr kept for error messages. Default 100. */
  stderrTailLines?: number | undefined;
  /** Receives every complete stderr line, e.g. to forward harness logs. */
  onStderr?: ((line: string) => void) | undefined;
}

/** How long to wait for the exit status once the harness closed its stdout. */
const EXIT_AFTER_EOF_MS = 1_000;
/** How long SIGTERM gets before SIGKILL (protocol §2.3). */
const SIGTERM_GRACE_MS = 1_000;
/** Upper bound for the kernel to reap a SIGKILLed child. */
const SIGKILL_WAIT_MS = 5_000;

/**
 * One running harness binary (protocol §2.3): spawned with no arguments and piped stdio,
 * tracked in the orphan registry, with a stderr tail and an exit promise.
 */
export class HarnessProcess {
  readonly binary: HarnessBinary;
  readonly stderr: StderrTail;
  /** Resolves when the process has exited and its stdio is closed. */
  readonly exited: Promise<HarnessExit>;
  readonly #child: ChildProcessWithoutNullStreams;
  #exit: HarnessExit | undefined;

  private constructor(binary: HarnessBinary, child: ChildProcessWithoutNullStreams, options: SpawnHarnessOptions) {
    this.binary = binary;
    this.#child = child;
    this.stderr = new StderrTail(options.stderrTailLines);
    child.stderr.on("data", (chunk: Buffer) => {
      const lines = this.stderr.push(chunk);
      if (options.onStderr !== undefined) for (const line of lines) options.onStderr(line);
    });
    // Writing to a harness that already died raises EPIPE here; the exit is reported instead.
    child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => {
      child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
        this.#exit = { code, signal };
        unregisterChild(child);
        resolve(this.#exit);
      });
    });
  }

  /**
   * Starts `binary` with no arguments (a `.js` entry runs under `process.execPath`). Rejects with
   * a mapped `SdkError` when the file is missing or cannot be executed.
   */
  static async spawn(binary: HarnessBinary, options: SpawnHarnessOptions): Promise<HarnessProcess> {
    try {
      if (statSync(binary.path).isDirectory())
        throw Object.assign(new Error(`${binary.path} is a directory`), { code: "EISDIR" });
    } catch (cause) {
      throw mapSpawnError(cause, binary.path, binary.source);
    }
    const [command, args] = binary.isJavaScript ? [process.execPath, [binary.path]] : [binary.path, []];
    const child = spawn(command, args, {
      stdio: ["pipe", "pipe", "pipe"],
      env: options.env,
      windowsHide: true,
      // Own process group: a Ctrl-C in the terminal reaches only us (a REPL halts the turn with
      // it) instead of killing the harness. The registry and stdin EOF still end the child.
      detached: process.platform !== "win32",
      ...definedProperties({ cwd: options.cwd }),
    });
    // Tracked from the first moment it has a pid, so even an exit during the await below kills it.
    if (child.pid !== undefined) registerChild(child);
    await new Promise<void>((resolve, reject) => {
      const onSpawn = (): void => {
        child.off("error", onError);
        resolve();
      };
      const onError = (cause: Error): void => {
        child.off("spawn", onSpawn);
        unregisterChild(child);
        reject(mapSpawnError(cause, binary.path, binary.source));
      };
      child.once("spawn", onSpawn);
      child.once("error", onError);
    });
    child.on("error", () => {
      // Late errors (e.g. a failed kill) surface through the exit status.
    });
    return new HarnessProcess(binary, child, options);
  }

  /**
   * Whether the child and its pipes keep this process's event loop alive (the default). A
   * prewarmed harness that waits for its `start()` does not; it is still killed on exit.
   */
  keepProcessAlive(keep: boolean): void {
    const handles = [this.#child, this.#child.stdin, this.#child.stdout, this.#child.stderr] as {
      ref?(): void;
      unref?(): void;
    }[];
    for (const handle of handles) (keep ? handle.ref : handle.unref)?.call(handle);
  }

  /** OS process id. */
  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** The exit status, once the process has exited. */
  get exit(): HarnessExit | undefined {
    return this.#exit;
  }

  /**
   * Phase 1 (protocol §3): writes the u32-LE length-prefixed binary `InputConfig` to stdin and
   * reads one `OutputConfig` from stdout. Stdin stays open: closing it tells the harness to stop.
   * Rejects with `HarnessCrashed` when the harness exits first, `ProtocolError` when stdout
   * carries something else, or the signal's error; every message ends with the stderr tail.
   */
  async handshake(input: HandshakeInput, signal: AbortSignal): Promise<HarnessEndpoint> {
    this.#child.stdin.write(frameLengthPrefixed(encodeHandshakeInput(input)));
    const stdout = this.#child.stdout;
    const reader = new LengthPrefixedReader();
    try {
      // A harness that exits before anyone reads its stdout (a native binary failing at once) has
      // that stream drained by Node on exit: its 'end' came and went, so its exit says it instead.
      const reply = await reader.readFirstMessage(stdout, { signal, ended: this.exited });
      if (reply === undefined) throw new SdkError(ErrorCode.HarnessCrashed, "stdout closed");
      const config = decodeHandshakeOutput(reply);
      const port = config.port;
      if (!(port > 0 && port < 65_536)) {
        throw new SdkError(
          ErrorCode.ProtocolError,
          `harness announced WebSocket port ${port}, which is not a TCP port`,
        );
      }
      // §2.3: stdout carries nothing after the handshake; drain it so a chatty harness never blocks.
      stdout.resume();
      return { port, apiKey: config.apiKey };
    } catch (error) {
      throw await this.#handshakeFailure(error, reader.receivedBytes, reader.pendingBytes, signal);
    }
  }

  async #handshakeFailure(error: unknown, received: number, pending: number, signal: AbortSignal): Promise<SdkError> {
    if (signal.aborted && error === signal.reason) {
      const reason = SdkError.from(error, ErrorCode.Canceled);
      return new SdkError(
        reason.code,
        `${reason.message} during the harness handshake; harness stderr:\n${this.stderr.toString()}`,
        { cause: reason, details: this.#details() },
      );
    }
    const closedStdout = error instanceof SdkError && error.code === ErrorCode.HarnessCrashed;
    if (closedStdout && received === 0) {
      const exit = await this.waitForExit(EXIT_AFTER_EOF_MS);
      const how = exit === undefined ? "closed its stdout" : describeExit(exit);
      return new SdkError(ErrorCode.HarnessCrashed, `harness ${how} before the handshake: ${this.stderr.toString()}`, {
        details: this.#details(),
      });
    }
    await this.waitForExit(closedStdout ? EXIT_AFTER_EOF_MS : 0);
    const what = closedStdout
      ? `harness wrote ${received} bytes on stdout and closed it (${pending} bytes of an unfinished message); expected a u32-LE length-prefixed OutputConfig (protocol §3)`
      : `harness answered the handshake with something that is not an OutputConfig (${SdkError.from(error).message})`;
    return new SdkError(
      ErrorCode.ProtocolError,
      `${what}; is ${this.binary.path} a localharness binary? Harness stderr:\n${this.stderr.toString()}`,
      { cause: error, details: this.#details() },
    );
  }

  /** Waits up to `timeoutMs` for the exit status; `undefined` if still running. */
  async waitForExit(timeoutMs: number): Promise<HarnessExit | undefined> {
    if (this.#exit !== undefined || timeoutMs <= 0) return this.#exit;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Orderly stop (protocol §2.3): close stdin, wait up to `graceMs`, SIGTERM, wait 1 s, SIGKILL.
   * Resolves once the process is gone.
   */
  async shutdown(graceMs: number): Promise<HarnessExit | undefined> {
    if (this.#exit !== undefined) return this.#exit;
    this.#child.stdin.end();
    if ((await this.waitForExit(graceMs)) !== undefined) return this.#exit;
    this.#child.kill("SIGTERM");
    if ((await this.waitForExit(SIGTERM_GRACE_MS)) !== undefined) return this.#exit;
    return this.kill();
  }

  /** SIGKILLs the process and waits (bounded) until it is reaped. */
  async kill(): Promise<HarnessExit | undefined> {
    if (this.#exit !== undefined) return this.#exit;
    this.#child.kill("SIGKILL");
    return this.waitForExit(SIGKILL_WAIT_MS);
  }

  #details(): Record<string, unknown> {
    return {
      binaryPath: this.binary.path,
      pid: this.pid,
      exitCode: this.#exit?.code,
      exitSignal: this.#exit?.signal,
      stderrTail: this.stderr.toString(),
    };
  }
}

/** "exited with code 3" / "was killed by SIGKILL". */
export function describeExit(exit: HarnessExit): string {
  return exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code ?? "unknown"}`;
}
