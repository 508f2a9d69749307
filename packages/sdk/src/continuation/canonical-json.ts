import { ErrorCode, SdkError } from "../errors.js";
import { MAX_CONTINUATION_DEPTH } from "./continuation.js";

/**
 * The one serialisation a continuation is signed over: JSON with object keys sorted by UTF-16
 * code unit, no whitespace, `undefined` members left out. Two envelopes that mean the same thing
 * serialise to the same bytes in every runtime, so a signature made in a Worker verifies in a
 * browser. Anything JSON cannot carry exactly (non-finite numbers, functions, symbols, bigints,
 * cycles) is refused with `InvalidArgument` instead of being silently changed, and so is a value
 * nested deeper than `MAX_CONTINUATION_DEPTH` (64; `details.reason` `"too-deep"`), before the
 * recursion could exhaust the stack.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set(), 1);
}

function write(value: unknown, seen: Set<object>, depth: number): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw invalid(`the number ${String(value)} has no JSON form`);
      return JSON.stringify(value);
    case "object": {
      if (seen.has(value)) throw invalid("the value contains a cycle");
      if (depth > MAX_CONTINUATION_DEPTH)
        throw invalid(`the value nests deeper than ${MAX_CONTINUATION_DEPTH} levels`, "too-deep");
      seen.add(value);
      try {
        if (Array.isArray(value))
          return `[${value.map((item) => (item === undefined ? "null" : write(item, seen, depth + 1))).join(",")}]`;
        const keys = Object.keys(value).sort();
        const members: string[] = [];
        for (const key of keys) {
          const member = (value as Record<string, unknown>)[key];
          if (member !== undefined) members.push(`${JSON.stringify(key)}:${write(member, seen, depth + 1)}`);
        }
        return `{${members.join(",")}}`;
      } finally {
        seen.delete(value);
      }
    }
    default:
      throw invalid(`a ${typeof value} has no JSON form`);
  }
}

function invalid(message: string, reason?: string): SdkError {
  return new SdkError(
    ErrorCode.InvalidArgument,
    `continuation cannot be serialised: ${message}`,
    reason === undefined ? {} : { details: { reason } },
  );
}
