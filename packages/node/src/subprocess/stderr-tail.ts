/** Longest stderr line we keep; a harness that logs megabytes on one line must not blow up memory. */
const MAX_LINE_CHARS = 4_000;

/**
 * The last lines a harness wrote on stderr (protocol §2.3: upstream keeps 100 and quotes them
 * in every crash message). Chunks may split lines and multi-byte characters anywhere.
 */
export class StderrTail {
  readonly #maxLines: number;
  readonly #lines: string[] = [];
  readonly #decoder = new TextDecoder();
  #partial = "";

  constructor(maxLines = 100) {
    this.#maxLines = Math.max(1, maxLines);
  }

  /** Adds a chunk of stderr; returns the lines it completed (for live forwarding). */
  push(chunk: Uint8Array): string[] {
    const text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    const parts = text.split(/\r?\n/);
    this.#partial = clip(parts.pop() ?? "");
    const complete = parts.map(clip);
    for (const line of complete) this.#add(line);
    return complete;
  }

  /** The kept lines, oldest first, including an unterminated last line. */
  lines(): string[] {
    return this.#partial === "" ? [...this.#lines] : [...this.#lines, this.#partial].slice(-this.#maxLines);
  }

  /** The tail as one string, or `"(no stderr output)"` when the harness wrote nothing. */
  toString(): string {
    const lines = this.lines();
    return lines.length === 0 ? "(no stderr output)" : lines.join("\n");
  }

  #add(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > this.#maxLines) this.#lines.splice(0, this.#lines.length - this.#maxLines);
  }
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}
