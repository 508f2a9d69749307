/**
 * A terminal's output, at most `limit` bytes: when more comes, the start is dropped (ACP
 * `CreateTerminalRequest.outputByteLimit`: "the Client truncates from the beginning of the output
 * … at a character boundary"). `text()` decodes only whole UTF-8 characters: a character cut at
 * the front by the truncation, or not yet complete at the end, is left out.
 */
export class TerminalOutput {
  readonly #limit: number;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #truncated = false;

  constructor(limit: number) {
    this.#limit = Math.max(0, limit);
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    let excess = this.#bytes - this.#limit;
    if (excess <= 0) return;
    this.#truncated = true;
    while (excess > 0) {
      const first = this.#chunks[0];
      if (first === undefined) break;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#bytes -= first.length;
        excess -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#bytes -= excess;
        excess = 0;
      }
    }
  }

  text(): { output: string; truncated: boolean } {
    const all = Buffer.concat(this.#chunks);
    let start = 0;
    // Continuation bytes (10xxxxxx) at the front belong to a character whose start was dropped.
    while (this.#truncated && start < all.length && start < 3 && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
    return { output: all.subarray(start, completeEnd(all)).toString("utf8"), truncated: this.#truncated };
  }

  clear(): void {
    this.#chunks = [];
    this.#bytes = 0;
  }
}

/** The end of the last complete UTF-8 character of `data` (a sequence still being written is left out). */
function completeEnd(data: Buffer): number {
  for (let back = 1; back <= Math.min(4, data.length); back++) {
    const byte = data[data.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? data.length - back : data.length;
  }
  return data.length;
}
