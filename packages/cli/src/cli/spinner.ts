/** Where the CLI writes: a stream and whether it is an interactive terminal. */
export interface CliOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const INTERVAL_MS = 80;
const CLEAR_LINE = "\r\x1b[2K";

/**
 * A one-line terminal spinner ("⠋ running get_weather…"). Drawn only on a TTY; elsewhere it is
 * a no-op so logs stay plain. Other output must call {@link Spinner.clear} first and the spinner
 * redraws itself on its next tick.
 *
 * Hand-written rather than a spinner package on purpose: the REPL interleaves the spinner with
 * readline's prompt, held confirmation output and streamed text through one `clear()`/redraw
 * contract, which the small libraries (ora, yocto-spinner, nanospinner) don't offer — each owns the
 * line and writes on its own timer — and this is under 40 lines of logic.
 */
export class Spinner {
  readonly #out: CliOutput;
  #label = "";
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #drawn = false;

  constructor(out: CliOutput) {
    this.#out = out;
  }

  /** True while spinning. */
  get running(): boolean {
    return this.#timer !== undefined;
  }

  /** Starts (or relabels) the spinner. */
  start(label: string): void {
    this.#label = label;
    if (this.#out.isTTY !== true) return;
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#draw(), INTERVAL_MS);
      this.#timer.unref();
    }
    this.#draw();
  }

  /** Removes the spinner line, if drawn, so other output starts on a clean line. */
  clear(): void {
    if (!this.#drawn) return;
    this.#out.write(CLEAR_LINE);
    this.#drawn = false;
  }

  /** Stops and clears the spinner. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.clear();
  }

  #draw(): void {
    const frame = FRAMES[this.#frame++ % FRAMES.length] ?? "";
    this.#out.write(`${CLEAR_LINE}${frame} ${this.#label}`);
    this.#drawn = true;
  }
}
