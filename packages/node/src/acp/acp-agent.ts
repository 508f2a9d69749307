import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { ndJsonStream, type Stream } from "@agentclientprotocol/sdk";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import {
  ACP_CAPABILITIES,
  acpAgent as acpStreamAgent,
  type AcpAgentOptions as AcpStreamOptions,
} from "@antigravity-ts/sdk/acp";
import type { ConnectionStrategy } from "@antigravity-ts/sdk";
import { registerChild, unregisterChild } from "../subprocess/child-registry.js";
import { describeExit, type HarnessExit } from "../subprocess/harness-process.js";
import { mapProgramSpawnError } from "../subprocess/spawn-errors.js";
import { StderrTail } from "../subprocess/stderr-tail.js";
import { loopbackMcpHost } from "./loopback-mcp-host.js";

/** Options of {@link acpAgent}: the agent's command line, and what the core's `acpAgent` takes but the stream. */
export interface AcpProcessOptions extends Omit<AcpStreamOptions, "stream" | "describeFailure" | "release"> {
  /** The agent's executable (a `.js`/`.mjs`/`.cjs` file runs under this Node). */
  command: string;
  args?: readonly string[];
  /** The agent's whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** `session/new`'s cwd and the process's working directory. */
  cwd?: string;
  /** How long `disconnect()` waits after closing the agent's stdin before SIGTERM. Default 2000 ms. */
  shutdownGraceMs?: number;
  /** Receives each stderr line of the agent as it comes. */
  onStderr?: (line: string) => void;
  /** Called with each agent process once it runs (its pid, its stderr tail). */
  onProcess?: (agent: AcpProcess) => void;
  /** Wraps each session's message stream before the session uses it, e.g. `streamRecorder(sink).wrap` of `@antigravity-ts/sdk/replay` (docs/testing.md). */
  wrapStream?: ((stream: Stream) => Stream) | undefined;
}

const SIGTERM_GRACE_MS = 1_000;
const SIGKILL_WAIT_MS = 2_000;
/** How long a failure waits for the agent's exit status before it is described without one. */
const EXIT_AFTER_FAILURE_MS = 1_000;

/**
 * An ACP agent run as a subprocess speaking NDJSON JSON-RPC on its stdio (ACP "Transports"):
 * one process per session, in its own process group (killed with it), tracked so that it never
 * outlives this process; its stderr tail ends every error it causes; `disconnect()` closes its
 * stdin, then SIGTERMs and SIGKILLs the group. The agent's client tools are offered to it as an
 * MCP server on loopback (`loopbackMcpHost()`, or `toolHost`).
 *
 * @example
 * const agent = Agent.builder().connection(acpAgent({ command: "gemini", args: ["--acp"], cwd })).allowAll().build();
 */
export function acpAgent(options: AcpProcessOptions): ConnectionStrategy {
  const { command, args = [], env, shutdownGraceMs = 2_000, onStderr, onProcess, wrapStream, ...rest } = options;
  const cwd = options.cwd;
  // Client tools reach the agent as an MCP server on loopback unless another host is given.
  const toolHost = options.toolHost ?? loopbackMcpHost();
  return {
    capabilities: { ...ACP_CAPABILITIES, clientTools: true },
    async connect(request, callOptions) {
      const agent = await AcpProcess.spawn(command, args, { env, cwd, onStderr });
      onProcess?.(agent);
      const strategy = acpStreamAgent({
        ...rest,
        toolHost,
        stream: wrapStream === undefined ? agent.stream : wrapStream(agent.stream),
        describeFailure: (error) => agent.describe(error),
        release: () => agent.shutdown(shutdownGraceMs),
      });
      return strategy.connect(request, callOptions);
    },
  };
}

/** One spawned ACP agent. */
export class AcpProcess {
  readonly stderr = new StderrTail();
  readonly exited: Promise<HarnessExit>;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #command: string;
  #exit: HarnessExit | undefined;
  #shutdown: Promise<void> | undefined;

  private constructor(
    child: ChildProcessWithoutNullStreams,
    command: string,
    onStderr: ((line: string) => void) | undefined,
  ) {
    this.#child = child;
    this.#command = command;
    child.stderr.on("data", (chunk: Buffer) => {
      for (const line of this.stderr.push(chunk)) onStderr?.(line);
    });
    child.stdin.on("error", () => {}); // EPIPE to a dead agent: its exit says it
    this.exited = new Promise((resolve) => {
      child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
        this.#exit = { code, signal };
        unregisterChild(child);
        resolve(this.#exit);
      });
    });
  }

  static async spawn(
    command: string,
    args: readonly string[],
    options: {
      env: NodeJS.ProcessEnv | undefined;
      cwd: string | undefined;
      onStderr: ((line: string) => void) | undefined;
    },
  ): Promise<AcpProcess> {
    const isJavaScript = /\.[cm]?js$/.test(command);
    const child = spawn(isJavaScript ? process.execPath : command, isJavaScript ? [command, ...args] : [...args], {
      stdio: ["pipe", "pipe", "pipe"],
      env: options.env ?? process.env,
      windowsHide: true,
      // Its own process group, so that shutting it down reaches the tools it started too.
      detached: process.platform !== "win32",
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    if (child.pid !== undefined) registerChild(child);
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (cause) => {
        unregisterChild(child);
        reject(
          mapProgramSpawnError(cause, {
            name: "the ACP agent",
            path: command,
            hint: "check the command (a program on PATH or a path) and the cwd",
            details: { command },
          }),
        );
      });
    });
    child.on("error", () => {});
    return new AcpProcess(child, command, options.onStderr);
  }

  /**
   * The NDJSON JSON-RPC stream over the agent's stdin and stdout (the library's `ndJsonStream`).
   * The library answers a line that is not JSON with a parse error and reads on (JSON-RPC); here
   * stdout is the protocol channel of a process we own, so such a line ends the session with
   * `ProtocolError` naming it (an agent that logs to stdout would otherwise look like a hang).
   */
  get stream() {
    const stdout = Readable.toWeb(this.#child.stdout) as unknown as ReadableStream<Uint8Array>;
    return ndJsonStream(
      Writable.toWeb(this.#child.stdin) as WritableStream<Uint8Array>,
      stdout.pipeThrough(strictLines()),
    );
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** `error` with the agent's exit status (when it exits soon) and its stderr tail. */
  async describe(error: SdkError): Promise<SdkError> {
    const exit = this.#exit ?? (await this.#waitForExit(EXIT_AFTER_FAILURE_MS));
    const code =
      exit !== undefined && error.code === ErrorCode.ConnectionClosed ? ErrorCode.HarnessCrashed : error.code;
    const how = exit === undefined ? "" : ` (the agent ${describeExit(exit)})`;
    return new SdkError(code, `${error.message}${how}; ${this.#command} stderr:\n${this.stderr.toString()}`, {
      cause: error,
      details: {
        ...error.details,
        pid: this.pid,
        exitCode: exit?.code,
        exitSignal: exit?.signal,
        stderrTail: this.stderr.toString(),
      },
    });
  }

  /** Orderly stop: close stdin, wait `graceMs`, SIGTERM the group, wait, SIGKILL the group. Once. */
  shutdown(graceMs: number): Promise<void> {
    this.#shutdown ??= this.#stop(graceMs);
    return this.#shutdown;
  }

  async #stop(graceMs: number): Promise<void> {
    if (this.#exit === undefined) {
      this.#child.stdin.end();
      if ((await this.#waitForExit(graceMs)) === undefined) {
        this.#signal("SIGTERM");
        if ((await this.#waitForExit(SIGTERM_GRACE_MS)) === undefined) {
          this.#signal("SIGKILL");
          await this.#waitForExit(SIGKILL_WAIT_MS);
        }
      }
    }
    // The agent is gone; tools it started in its group go with it.
    this.#signal("SIGKILL");
  }

  #signal(signal: NodeJS.Signals): void {
    try {
      if (process.platform !== "win32" && this.#child.pid !== undefined) process.kill(-this.#child.pid, signal);
      else this.#child.kill(signal);
    } catch {
      // already gone
    }
  }

  async #waitForExit(timeoutMs: number): Promise<HarnessExit | undefined> {
    if (this.#exit !== undefined) return this.#exit;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        this.exited,
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Passes stdout through unchanged, erroring with `ProtocolError` at the first complete line that is not JSON. */
function strictLines(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let partial = "";
  return new TransformStream({
    transform(chunk, controller) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (line.trim() === "") continue;
        try {
          JSON.parse(line);
        } catch {
          const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
          controller.error(
            new SdkError(
              ErrorCode.ProtocolError,
              `the ACP agent wrote a line that is not JSON-RPC on stdout: ${JSON.stringify(shown)}`,
            ),
          );
          return;
        }
      }
      controller.enqueue(chunk);
    },
  });
}
