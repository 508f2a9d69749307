/**
 * Argument keys whose string values are paths (protocol §6.4, §11.1): built-in actions use
 * `file_path` / `directory_path` / `output_path`; model-facing tools use `path` / `TargetFile`.
 * Order matters only for `ToolCall.canonicalPath` when a call carries several of them
 * (no built-in does): the first key present wins.
 */
export const WIRE_PATH_ARGUMENT_KEYS: readonly string[] = [
  "path",
  "file_path",
  "TargetFile",
  "directory_path",
  "output_path",
];

// scheme ":" ["//" host] path — the split `urllib.parse.urlparse` makes (query and fragment dropped).
const URI = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)/;

/**
 * Turns a path as the harness writes it into a local path (§6.4): `file:///a/b%20c` → `/a/b c`
 * (the host part is ignored; `file:///C:/x` → `C:/x`), `cns://cell/rest` → `/cns/cell/rest`.
 * Anything else, including plain absolute or relative paths and other schemes, is returned as is.
 *
 * @example
 * normalizeWirePath("file:///home/me/a.txt"); // "/home/me/a.txt"
 */
export function normalizeWirePath(path: string): string {
  const match = URI.exec(path);
  if (match === null) return path;
  const scheme = (match[1] ?? "").toLowerCase();
  const host = match[2] ?? "";
  const rest = match[3] ?? "";
  if (scheme === "file") {
    const decoded = percentDecode(rest === "" ? "/" : rest);
    // A drive-letter path (`/C:/x`) is a Windows path: drop the URI's leading slash.
    return /^\/[A-Za-z]:[/\\]/.test(decoded) ? decoded.slice(1) : decoded;
  }
  if (scheme === "cns") return `/cns/${host}${rest}`;
  return path;
}

/**
 * Normalises, in place, every string value of `args` under a {@link WIRE_PATH_ARGUMENT_KEYS} key
 * and returns the canonical path of the call (the first such key present), if any.
 */
export function normalizePathArguments(args: Record<string, unknown>): string | undefined {
  let canonical: string | undefined;
  for (const key of WIRE_PATH_ARGUMENT_KEYS) {
    const value = args[key];
    if (typeof value !== "string") continue;
    const normalized = normalizeWirePath(value);
    args[key] = normalized;
    canonical ??= normalized;
  }
  return canonical;
}

function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray `%` is a literal character, not an escape
  }
}
