/**
 * The front matter of a `SKILL.md` (upstream's own skill, `skills/google-antigravity-sdk/SKILL.md`
 * in lovicho/antigravity-sdk-python @16bed37): a `---` line, `key: value` lines, a `---` line,
 * then the instructions. Values may be plain, "double-quoted" (JSON escapes) or 'single-quoted'
 * (`''` is a quote); a value of `>` or `|` continues on the indented lines that follow (folded
 * with spaces, or kept with newlines). Nothing else of YAML is read: an unknown shape is no value.
 */
export interface FrontMatter {
  readonly fields: ReadonlyMap<string, string>;
  /** The text after the front matter (the whole text when there is none). */
  readonly body: string;
}

const FENCE = /^---\s*$/;
const FIELD = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$/;

/** Splits `text` into its front matter fields and body. */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? "")) return { fields: new Map(), body: text };
  const end = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (end < 0) return { fields: new Map(), body: text };
  const fields = new Map<string, string>();
  for (let index = 1; index < end; index++) {
    const match = FIELD.exec(lines[index] ?? "");
    if (match === null) continue;
    const [, key = "", raw = ""] = match;
    const value = raw.trim();
    if (value === ">" || value === "|" || value === ">-" || value === "|-") {
      const block: string[] = [];
      while (index + 1 < end && /^\s+\S/.test(lines[index + 1] ?? "")) block.push((lines[++index] ?? "").trim());
      fields.set(key, block.join(value.startsWith(">") ? " " : "\n"));
      continue;
    }
    const unquoted = unquote(value);
    if (unquoted !== undefined && !fields.has(key)) fields.set(key, unquoted);
  }
  return { fields, body: lines.slice(end + 1).join("\n") };
}

function unquote(value: string): string | undefined {
  if (value.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      return typeof parsed === "string" ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  if (value.startsWith("'")) {
    if (value.length < 2 || !value.endsWith("'")) return undefined;
    return value.slice(1, -1).replaceAll("''", "'");
  }
  return value.replace(/\s+#.*$/, "");
}
