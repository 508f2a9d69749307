import { RE2JS } from "re2js";
import { compileRegex } from "./search-pattern.js";
import { ToolError } from "./tool.js";

/** Longest glob accepted, in characters. */
export const MAX_GLOB_LENGTH = 1000;

/**
 * Compiles a glob (`*`, `?`, `**`, `{a,b}`, nestable) to a whole-string matcher. `*` and `?`
 * stop at `/`; `**` crosses it, and `**` followed by `/` also matches no directory at all. Every
 * other character is literal. The glob becomes an RE2 program, so matching is linear in the
 * subject: a glob such as `*a*a*a*a*b` cannot backtrack catastrophically as its RegExp does in V8.
 *
 * @example
 * const match = compileGlob("*.{ts,js}");
 * match("index.ts"); // true
 */
export function compileGlob(glob: string): (subject: string) => boolean {
  if (glob === "") throw new ToolError("pattern must not be empty");
  if (glob.length > MAX_GLOB_LENGTH)
    throw new ToolError(`pattern is ${glob.length} characters long; the limit is ${MAX_GLOB_LENGTH}`);
  const regex = compileRegex(globToRe2(glob), false, RE2JS.DOTALL);
  return (subject) => regex.testExact(subject);
}

/** The RE2 source of a glob; throws a ToolError for unbalanced braces. */
export function globToRe2(glob: string): string {
  let source = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        source += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") source += "[^/]";
    else if (char === "{") {
      braces++;
      source += "(?:";
    } else if (char === "}" && braces > 0) {
      braces--;
      source += ")";
    } else if (char === "," && braces > 0) source += "|";
    else source += char.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
  }
  if (braces > 0) throw new ToolError(`pattern ${JSON.stringify(glob)} has an unclosed "{": close every {a,b} group`);
  return source;
}
