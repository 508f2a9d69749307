import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  ErrorCode,
  MID_TURN_SEMANTICS,
  SdkError,
  type MessageReceipt,
  type MidTurnSemantics,
  type SessionEvent,
  type StreamingSessionCapabilities,
  type ToolCall,
} from "@antigravity-ts/sdk";
import { AsyncQueue } from "@antigravity-ts/sdk/internal";
import { boundedLines } from "../cli/bounded-lines.js";
import {
  MAX_NDJSON_LINE,
  ndjsonInputLine,
  parseNdjsonOutputLine,
  type NdjsonInput,
  type NdjsonOutputLine,
} from "../cli/ndjson-protocol.js";
import { StderrTail, mapProgramSpawnError, registerChild, unregisterChild } from "@antigravity-ts/node/internal";

/** Options of {@link spawnStreamingSession}. */
export interface SpawnStreamingSessionOptions {
  /** What a message sent while a turn runs does (default `"queue"`); passed as `--mid-turn` to the default CLI. */
  midTurn?: MidTurnSemantics | undefined;
  /**
   * The program to run (default: this package's `antigravity` CLI on the running Node, which
   * starts the bundled reference harness unless another is configured). It must speak the
   * NDJSON line format, version 2 (docs/ndjson.md) on stdin and stdout.
   */
  command?: string | undefined;
  /**
   * With `command`: its whole argument list. Without: extra CLI arguments after
   * `--input-format ndjson --output-format ndjson --mid-turn <midTurn>` (e.g. `["--harness", path]`).
   */
  args?: readonly string[] | undefined;
  /** The child's environment (default: this process's). */
  env?: NodeJS.ProcessEnv | undefined;
  /** The child's working directory (default: this process's). */
  cwd?: string | undefined;
  /** Receives the child's stderr lines (default: kept, the last 100 quoted when the child fails). */
  onStderr?: ((line: string) => void) | undefined;
}

/** A `confirmationRequest` line: a tool call waits for {@link NdjsonStreamingSession.approve} or `deny`. */
export interface ConfirmationRequestEvent {
  type: "confirmationRequest";
  requestId: string;
  toolCall: Pick<ToolCall, "name"> & Partial<Pick<ToolCall, "id" | "args">>;
}

/** What an {@link NdjsonStreamingSession} yields: the SDK's session events, plus the child's confirmation requests. */
export type NdjsonSessionEvent = SessionEvent | ConfirmationRequestEvent;

/** How the child ended: its exit code, or the signal that killed it. */
export interface ChildExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How long disposal waits for the child to finish after end of input, then after SIGTERM, before the next step. */
const DISPOSE_GRACE_MS = 5_000;
const TERM_GRACE_MS = 2_000;

/** Events that belong to a running turn (its start is seen from the child's output). */
const TURN_EVENTS = new Set([
  "thought",
  "text",
  "toolCall",
  "toolResult",
  "toolError",
  "permissionRequest",
  "usage",
  "confirmationRequest",
  "awaitingConfirmation",
]);

/**
 * Starts an agent as a child process speaking the NDJSON line format (by default this package's
 * `antigravity --input-format ndjson --output-format ndjson`) and wraps it as a streaming session
 * with the surface of the SDK's `StreamingSession` (seed 003's shape). See docs/streaming-session.md.
 *
 * @example
 * await using session = spawnStreamingSession({ midTurn: "queue" });
 * await session.sendUserMessage("list the files");
 * for await (const event of session) {
 *   if (event.type === "text") process.stdout.write(event.text);
 *   if (event.type === "result") session.closeInput();
 * }
 * console.log(await session.wait()); // { code: 0, signal: null }
 */
export function spawnStreamingSession(options: SpawnStreamingSessionOptions = {}): NdjsonStreamingSession {
  const semantics = options.midTurn ?? "queue";
  if (!MID_TURN_SEMANTICS.includes(semantics)) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `midTurn must be one of ${MID_TURN_SEMANTICS.join(", ")}, got ${JSON.stringify(semantics)}`,
    );
  }
  const [command, args] =
    options.command === undefined
      ? defaultCommand(semantics, options.args ?? [])
      : [options.command, [...(options.args ?? [])]];
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  return new NdjsonStreamingSession(child, semantics, options.onStderr);
}

/** This package's CLI on the running Node: its built `dist/cli.js`, or its source through tsx when running from source. */
function defaultCommand(semantics: MidTurnSemantics, extra: readonly string[]): [string, string[]] {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve("@antigravity-ts/cli/package.json"));
  const fromSource = import.meta.url.endsWith(".ts");
  const cli = join(packageDir, fromSource ? "src/cli.ts" : "dist/cli.js");
  const loader = fromSource
    ? ["--conditions=antigravity-source", "--import", pathToFileURL(require.resolve("tsx")).href]
    : [];
  return [
    process.execPath,
    [...loader, cli, "--input-format", "ndjson", "--output-format", "ndjson", "--mid-turn", semantics, ...extra],
  ];
}

/**
 * A streaming session whose agent runs in a child process that speaks NDJSON (docs/ndjson.md):
 * messages go out as `user_message` lines, the child's output lines come back as typed events.
 * Every output line is validated; a malformed or over-long one (over 1 MiB, never buffered
 * whole) becomes an `error` event with `ProtocolError` and the session reads on. `nextEvent()`
 * returns `undefined` only once the child's output ended and it exited (after `closeInput()` and
 * EOF, or when it died). The child is killed if this process exits; `await using` ends it.
 */
export class NdjsonStreamingSession implements AsyncIterable<NdjsonSessionEvent>, AsyncDisposable {
  readonly capabilities: StreamingSessionCapabilities;
  readonly #child: ChildProcess;
  readonly #events = new AsyncQueue<NdjsonSessionEvent>();
  readonly #stderr = new StderrTail();
  readonly #receipts = new Map<
    string,
    { resolve: (receipt: MessageReceipt) => void; reject: (error: SdkError) => void }
  >();
  /** Resolved by the next `result` line (or the end): what `interrupt()` waits for. */
  #turnOver: Array<() => void> = [];
  readonly #exit: Promise<ChildExitStatus>;
  readonly #done: Promise<ChildExitStatus>;
  #nextId = 0;
  #inTurn = false;
  #inputClosed = false;
  #exited = false;
  /** The child could not be started (its `error` event is out already). */
  #spawnFailed = false;

  /** @internal Use {@link spawnStreamingSession}. */
  constructor(child: ChildProcess, semantics: MidTurnSemantics, onStderr?: (line: string) => void) {
    this.capabilities = Object.freeze({ streamingInput: Object.freeze({ supported: true as const, semantics }) });
    this.#child = child;
    registerChild(child); // SIGKILLed if this process exits first
    child.stdin?.on("error", () => undefined); // EPIPE once the child is gone: its exit reports it
    child.stderr?.on("data", (chunk: Buffer) => {
      for (const line of this.#stderr.push(chunk)) onStderr?.(line);
    });
    this.#exit = new Promise((resolve) => {
      child.once("error", (error) => {
        this.#events.push({
          type: "error",
          // The same mapping as a missing harness binary: a missing program is configuration, not retryable.
          error: mapProgramSpawnError(error, {
            name: "NDJSON agent command",
            path: child.spawnfile,
            hint: "install it, or point spawnStreamingSession's command option at the program (a full path or one on PATH)",
          }),
        });
        this.#exited = true;
        this.#spawnFailed = true;
        unregisterChild(child);
        child.stdout?.destroy();
        resolve({ code: null, signal: null });
      });
      child.once("exit", (code, signal) => {
        this.#exited = true;
        unregisterChild(child);
        resolve({ code, signal });
      });
    });
    this.#done = this.#read();
  }

  /** The child's process id (`undefined` when it could not be started). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /**
   * Sends a `user_message` line and resolves with the child's receipt (its turn started). Rejects
   * with `InvalidArgument` for a prompt that is not a non-blank string, `FailedPrecondition` after
   * `closeInput()` or when the child refused it (under `between-turns-only`, mid-turn), and
   * `ConnectionClosed` when the child ended without answering.
   */
  sendUserMessage(prompt: string): Promise<MessageReceipt> {
    try {
      if (this.#inputClosed || this.#exited)
        throw new SdkError(
          ErrorCode.FailedPrecondition,
          "the session's input is closed (closeInput() or the child exited): start a new session to send more",
        );
      if (typeof prompt !== "string")
        throw new SdkError(ErrorCode.InvalidArgument, "an NDJSON session takes text prompts only (a string)");
      const id = `m${this.#nextId++}`;
      this.#write({ type: "user_message", content: prompt, id });
      const receipt = new Promise<MessageReceipt>((resolve, reject) => this.#receipts.set(id, { resolve, reject }));
      receipt.catch(() => undefined);
      return receipt;
    } catch (error) {
      return Promise.reject(SdkError.from(error));
    }
  }

  /** Sends an `interrupt` line: the running turn halts, its `turnComplete` and `result { interrupted: true }` follow. Resolves once that `result` is read (at once between turns). */
  interrupt(): Promise<void> {
    if (this.#inputClosed || this.#exited) return this.#inTurn ? this.#nextResult() : Promise.resolve();
    this.#write({ type: "interrupt" });
    return this.#inTurn ? this.#nextResult() : Promise.resolve();
  }

  /** Approves a pending confirmation (the oldest without `requestId`). A wrong `requestId` yields an `error` event; throws `FailedPrecondition` after `closeInput()`. */
  approve(requestId?: string): void {
    this.#answer("approve", requestId);
  }

  /** Denies a pending confirmation (the oldest without `requestId`). A wrong `requestId` yields an `error` event; throws `FailedPrecondition` after `closeInput()`. */
  deny(requestId?: string): void {
    this.#answer("deny", requestId);
  }

  /** The next event; `undefined` once the child's output ended and it exited. */
  async nextEvent(): Promise<NdjsonSessionEvent | undefined> {
    const next = await this.#events.read();
    return next.done === true ? undefined : next.value;
  }

  /** The events, shared with {@link nextEvent} (one reader). Leaving the loop early does not end the session. */
  [Symbol.asyncIterator](): AsyncIterator<NdjsonSessionEvent, undefined> {
    return this.#events.readerIterator();
  }

  /** Ends the child's stdin: it finishes the accepted messages' turns (denying pending confirmations) and exits. Idempotent. */
  closeInput(): void {
    if (this.#inputClosed) return;
    this.#inputClosed = true;
    this.#child.stdin?.end();
  }

  /** Resolves with the child's exit status once it exited and its output is read. */
  wait(): Promise<ChildExitStatus> {
    return this.#done;
  }

  /** `await using`: interrupts the running turn, closes the input, and ends the child (SIGTERM, then SIGKILL, if it lingers). */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#exited) {
      if (this.#inTurn && !this.#inputClosed) this.#write({ type: "interrupt" });
      this.closeInput();
      if (!(await this.#exitedWithin(DISPOSE_GRACE_MS))) {
        this.#child.kill("SIGTERM");
        if (!(await this.#exitedWithin(TERM_GRACE_MS))) this.#child.kill("SIGKILL");
      }
    }
    await this.wait();
  }

  #answer(type: "approve" | "deny", requestId: string | undefined): void {
    if (this.#inputClosed || this.#exited)
      throw new SdkError(ErrorCode.FailedPrecondition, `${type}: the session's input is closed`);
    this.#write(requestId === undefined ? { type } : { type, requestId });
  }

  #write(input: NdjsonInput): void {
    this.#child.stdin?.write(`${ndjsonInputLine(input)}\n`);
  }

  #nextResult(): Promise<void> {
    return new Promise((resolve) => this.#turnOver.push(resolve));
  }

  async #exitedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.#exit.then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads the child's output to its end, then waits for its exit and ends the event stream. */
  async #read(): Promise<ChildExitStatus> {
    const stdout = this.#child.stdout;
    try {
      if (stdout !== null) {
        for await (const read of boundedLines(stdout as AsyncIterable<Buffer>, MAX_NDJSON_LINE)) {
          if ("tooLong" in read) {
            this.#events.push({
              type: "error",
              error: new SdkError(
                ErrorCode.ProtocolError,
                `bad output line from the NDJSON child: the line has ${read.tooLong} characters; the limit is ${MAX_NDJSON_LINE} (docs/ndjson.md)`,
              ),
            });
            continue;
          }
          try {
            const line = parseNdjsonOutputLine(read.line);
            if (line !== undefined) this.#dispatch(line);
          } catch (error) {
            this.#events.push({ type: "error", error: SdkError.from(error) });
          }
        }
      }
    } catch (error) {
      if (!this.#spawnFailed)
        this.#events.push({
          type: "error",
          error: new SdkError(
            ErrorCode.ConnectionClosed,
            `reading the NDJSON child's output failed: ${(error as Error).message}`,
          ),
        });
    }
    const status = await this.#exit;
    const gone = new SdkError(
      ErrorCode.ConnectionClosed,
      `the NDJSON child exited (${status.signal ?? `code ${String(status.code)}`}) before it took the message${this.#stderrTail()}`,
    );
    for (const pending of this.#receipts.values()) pending.reject(gone);
    this.#receipts.clear();
    this.#endTurn();
    this.#events.end();
    return status;
  }

  #dispatch(line: NdjsonOutputLine): void {
    const id = typeof line["id"] === "string" ? line["id"] : undefined;
    const pending = id === undefined ? undefined : this.#receipts.get(id);
    if (line.type === "receipt") {
      this.#inTurn = true;
      if (id !== undefined && pending !== undefined) {
        this.#receipts.delete(id);
        pending.resolve({ messageIndex: line["messageIndex"] as number, turnIndex: line["turnIndex"] as number });
      }
      return;
    }
    if (line.type === "error" && id !== undefined && pending !== undefined) {
      this.#receipts.delete(id);
      pending.reject(line["error"] as SdkError); // like the SDK's session: the receipt rejects
      return;
    }
    if (TURN_EVENTS.has(line.type)) this.#inTurn = true;
    // The line's shape was checked against the format's required properties (parseNdjsonOutputLine).
    this.#events.push(line as unknown as NdjsonSessionEvent);
    if (line.type === "result") this.#endTurn();
    if (line.type === "init") this.#checkSemantics(line);
  }

  /** A child that applies other mid-turn semantics than the session declares is reported: it decides, not the declaration. */
  #checkSemantics(init: NdjsonOutputLine): void {
    const declared = (init["capabilities"] as { streamingInput?: { semantics?: unknown } }).streamingInput?.semantics;
    const expected = this.capabilities.streamingInput.semantics;
    if (declared === expected) return;
    this.#events.push({
      type: "error",
      error: new SdkError(
        ErrorCode.FailedPrecondition,
        `the NDJSON child declares mid-turn semantics ${JSON.stringify(declared)}, but the session was opened with "${expected}": mid-turn messages follow the child's; pass its --mid-turn option (or the matching midTurn)`,
      ),
    });
  }

  #endTurn(): void {
    this.#inTurn = false;
    for (const resolve of this.#turnOver.splice(0)) resolve();
  }

  #stderrTail(): string {
    const lines = this.#stderr.lines().slice(-5);
    return lines.length === 0 ? "" : `; its stderr ends with:\n${lines.join("\n")}`;
  }
}
