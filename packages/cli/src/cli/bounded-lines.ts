import { StringDecoder } from "node:string_decoder";

/** A line of input, or the news that one was too long (its text is dropped, never buffered). */
export type BoundedLine = { line: string } | { tooLong: number };

/**
 * Splits `input` into `\n`-terminated lines (a trailing `\r` is removed) holding at most
 * `maxChars` characters of any one line in memory: the rest of a longer line is skipped up to its
 * newline and reported as `{ tooLong: length }`, so a hostile writer cannot make the reader
 * buffer without bound. A last line without a newline is still yielded.
 */
export async function* boundedLines(
  input: AsyncIterable<Buffer | string>,
  maxChars: number,
): AsyncGenerator<BoundedLine> {
  const decoder = new StringDecoder("utf8");
  let current = "";
  let skipped = -1; // length seen of a line being skipped, else -1
  const finish = (text: string): BoundedLine =>
    skipped >= 0 ? { tooLong: skipped + text.length } : { line: text.endsWith("\r") ? text.slice(0, -1) : text };
  for await (const chunk of input) {
    let text = typeof chunk === "string" ? chunk : decoder.write(chunk);
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n")) {
      const piece = text.slice(0, at);
      text = text.slice(at + 1);
      const done = finish(skipped >= 0 ? piece : current + piece);
      current = "";
      skipped = -1;
      yield done;
    }
    if (skipped >= 0) skipped += text.length;
    else if (current.length + text.length > maxChars) {
      skipped = current.length + text.length;
      current = "";
    } else current += text;
  }
  const rest = current + decoder.end();
  if (skipped >= 0) yield { tooLong: skipped + rest.length };
  else if (rest !== "") yield finish(rest);
}
