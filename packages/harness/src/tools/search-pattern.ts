import { RE2JS, RE2JSException } from "re2js";
import { ToolError } from "./tool.js";

// search_directory's matcher. Regular expressions run on re2js, a pure-JS port of RE2: matching is
// linear in the length of the line (automata, no backtracking), so no pattern can take
// exponential time the way `(a+)+$` does in V8's engine. Linear is not free: a large program
// (`a[ab]{999}c`) costs about program size × text length, so the worker's time limit
// (tool-pool.ts) remains the bound on a whole search; the caps below keep each step small.
// re2js over a timeout alone: a timeout still lets one call burn a core for the full limit and
// fails searches that RE2 answers at once; re2js has no dependencies, ~260 KB, MIT, maintained.

/** Longest `query` accepted, in characters. */
export const MAX_QUERY_LENGTH = 1000;
/** A regular expression is matched against at most this many characters of each line. */
export const MAX_REGEX_LINE_LENGTH = 64 * 1024;
/** Largest compiled program accepted (RE2's cost measure: `x{1000}` is about 1,000). */
export const MAX_PROGRAM_SIZE = 20_000;

/** Tests lines for a query; counts the lines too long to be searched whole. */
export interface LineMatcher {
  /** Whether `line` contains a match (a regex looks at its first {@link MAX_REGEX_LINE_LENGTH} characters). */
  test(line: string): boolean;
  /** Lines longer than {@link MAX_REGEX_LINE_LENGTH} met so far, searched in their first part only. */
  readonly cutLines: number;
}

/**
 * Compiles a search query: a literal substring, or with `isRegex` a regular expression in RE2
 * syntax (that of ripgrep and Go: no lookaround, no backreferences). Throws a ToolError that
 * says what to change for an empty, too long, invalid or too complex query.
 *
 * @example
 * const matcher = compileSearchQuery("fo+", { isRegex: true, caseInsensitive: false });
 * matcher.test("a foo here"); // true
 */
export function compileSearchQuery(
  query: string,
  options: { isRegex: boolean; caseInsensitive: boolean },
): LineMatcher {
  if (query === "") throw new ToolError("query must not be empty");
  if (query.length > MAX_QUERY_LENGTH)
    throw new ToolError(
      `query is ${query.length} characters long; the limit is ${MAX_QUERY_LENGTH}: search for a shorter, distinctive part`,
    );
  if (!options.isRegex) {
    const needle = options.caseInsensitive ? query.toLowerCase() : query;
    return {
      cutLines: 0,
      test: options.caseInsensitive ? (line) => line.toLowerCase().includes(needle) : (line) => line.includes(needle),
    };
  }
  const regex = compileRegex(query, options.caseInsensitive);
  let cutLines = 0;
  return {
    get cutLines() {
      return cutLines;
    },
    test(line) {
      if (line.length <= MAX_REGEX_LINE_LENGTH) return regex.test(line);
      cutLines++;
      return regex.test(line.slice(0, MAX_REGEX_LINE_LENGTH));
    },
  };
}

/**
 * Compiles an RE2 pattern, refusing invalid and too complex ones with a ToolError. Shared by the
 * glob matcher, which compiles globs to RE2 for the same linear-time guarantee.
 */
export function compileRegex(pattern: string, caseInsensitive: boolean, flags = 0): RE2JS {
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern, flags | (caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0));
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    throw new ToolError(`invalid regular expression (RE2 syntax: no lookaround or backreferences): ${error.message}`);
  }
  if (regex.programSize() > MAX_PROGRAM_SIZE) {
    throw new ToolError(
      `the regular expression is too complex (program size ${regex.programSize()}, limit ${MAX_PROGRAM_SIZE}): use smaller repetition counts or fewer alternatives`,
    );
  }
  return regex;
}
