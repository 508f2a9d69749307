import { createInterface, type Interface } from "node:readline";
import { Writable } from "node:stream";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** A line of input, and whether the terminal showed it as typed at the prompt. */
export interface ReplLine {
  text: string;
  /** False for a line typed during a turn (not echoed) or piped in: the REPL prints it when its turn starts. */
  echoed: boolean;
}

/** A terminal output with its size, as `process.stdout` is. */
type TerminalOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

/**
 * Writes what readline echoes to the terminal only while open: at the prompt and while a question
 * waits for its answer. During a turn it is closed, so text typed then is neither spliced into
 * the streamed answer nor lost: readline keeps it as the next line or the partial line.
 */
class EchoGate extends Writable {
  open = false;
  readonly #target: TerminalOutput;
  readonly #onResize = (): void => void this.emit("resize");

  constructor(target: TerminalOutput) {
    super({ decodeStrings: false });
    this.#target = target;
    target.on("resize", this.#onResize);
  }

  get columns(): number | undefined {
    return this.#target.columns;
  }

  get rows(): number | undefined {
    return this.#target.rows;
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.open) this.#target.write(chunk);
    done();
  }

  detach(): void {
    this.#target.off("resize", this.#onResize);
  }
}

/** Options of {@link ReplInput}. */
export interface ReplInputOptions {
  /** The prompt shown when the REPL waits for a line. */
  prompt: string;
  /** Ctrl-C on the terminal (readline reports it instead of a signal). */
  onInterrupt: () => void;
}

/**
 * The REPL's input: lines from a terminal (edited with readline, echoed only at the prompt and
 * while a question waits) or from a pipe. Lines typed while a turn runs queue up in order; a
 * question takes the first line typed after it is shown on a terminal, and the next line in
 * order from a pipe (so piped answers work).
 */
export class ReplInput {
  /** Input and output are both terminals. */
  readonly terminal: boolean;
  readonly #output: NodeJS.WritableStream;
  readonly #rl: Interface;
  readonly #gate: EchoGate | undefined;
  readonly #prompt: string;
  readonly #queue: ReplLine[] = [];
  #nextLine: ((line: ReplLine | undefined) => void) | undefined;
  #answer: ((text: string | undefined) => void) | undefined;
  #closed = false;

  constructor(input: NodeJS.ReadableStream & { isTTY?: boolean }, output: TerminalOutput, options: ReplInputOptions) {
    this.terminal = output.isTTY === true && input.isTTY === true;
    this.#output = output;
    this.#prompt = options.prompt;
    this.#gate = this.terminal ? new EchoGate(output) : undefined;
    this.#rl = createInterface({
      input,
      terminal: this.terminal,
      prompt: options.prompt,
      ...definedProperties({ output: this.#gate }),
    });
    this.#rl.on("line", (text) => this.#onLine(text));
    this.#rl.on("SIGINT", options.onInterrupt);
    this.#rl.once("close", () => {
      this.#closed = true;
      this.#answer?.(undefined);
      this.#answer = undefined;
      if (this.#queue.length === 0) this.#take();
    });
  }

  /** Lines waiting for their turn. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Input ended (Ctrl-D, end of the pipe, or {@link close}). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Shows the prompt (on a terminal, with what was typed so far) and echoes typing until the next line. */
  prompt(): void {
    if (this.#gate === undefined || this.#closed) return;
    this.#gate.open = true;
    this.#rl.prompt(true);
  }

  /** The next line, in the order typed; `undefined` once input ended and every line was taken. */
  next(): Promise<ReplLine | undefined> {
    const queued = this.#queue.shift();
    if (queued !== undefined || this.#closed) return Promise.resolve(queued);
    return new Promise((resolve) => (this.#nextLine = resolve));
  }

  /**
   * Shows `question` on its own line and returns the answer (`undefined` when input ended or
   * `signal` aborted first). On a terminal the question is readline's prompt, so the answer is
   * echoed after it and a partly typed prompt is kept for later; from a pipe the next line answers.
   */
  async ask(question: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    if (this.#closed || signal?.aborted === true) return undefined;
    if (this.#gate === undefined) {
      this.#output.write(`${question}\n`);
      const queued = this.#queue.shift();
      if (queued !== undefined) return queued.text;
    }
    const partial = this.#gate === undefined ? "" : this.#clearPartialLine();
    if (this.#gate !== undefined) {
      this.#rl.setPrompt(`${question} `);
      this.#gate.open = true;
      this.#rl.prompt();
    }
    const onAbort = (): void => this.#answer?.(undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const answer = await new Promise<string | undefined>((resolve) => (this.#answer = resolve));
      // Aborted with the question on screen: end its line.
      if (answer === undefined && this.#gate?.open === true) this.#output.write("\n");
      return answer;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      this.#answer = undefined;
      if (this.#gate !== undefined) {
        this.#gate.open = false;
        this.#clearPartialLine();
        this.#rl.setPrompt(this.#prompt);
        if (partial !== "") this.#rl.write(partial);
      }
    }
  }

  /** Stops reading input. */
  close(): void {
    this.#rl.close();
    this.#gate?.detach();
  }

  #onLine(text: string): void {
    if (this.#answer !== undefined) {
      this.#answer(text);
      return;
    }
    const echoed = this.#gate?.open === true;
    // Typing during the turn this line starts is not echoed.
    if (this.#gate !== undefined) this.#gate.open = false;
    this.#queue.push({ text, echoed });
    this.#take();
  }

  /** Hands the oldest queued line (or the end of input) to a waiting {@link next}. */
  #take(): void {
    const resolve = this.#nextLine;
    if (resolve === undefined) return;
    const line = this.#queue.shift();
    if (line === undefined && !this.#closed) return;
    this.#nextLine = undefined;
    resolve(line);
  }

  /** Removes the partly typed line from readline (without echo) and returns it. */
  #clearPartialLine(): string {
    const partial = this.#rl.line;
    if (partial !== "") {
      this.#rl.write(null, { ctrl: true, name: "e" });
      this.#rl.write(null, { ctrl: true, name: "u" });
    }
    return partial;
  }
}
