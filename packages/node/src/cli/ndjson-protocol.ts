import { ErrorCode, SdkError } from "@antigravity-ts/sdk";

/** Version of the NDJSON line format (docs/ndjson.md, docs/ndjson.schema.json). */
export const NDJSON_VERSION = 1;

/** Longest input line accepted, in UTF-16 code units (a longer one is an `error` event). */
export const MAX_NDJSON_LINE = 1024 * 1024;

/** One input line of the NDJSON mode, parsed. */
export type NdjsonInput =
  | { type: "user_message"; content: string; id?: string }
  | { type: "interrupt" }
  | { type: "approve" | "deny"; requestId?: string };

/**
 * Parses one input line (docs/ndjson.md). Throws `InvalidArgument` saying what is wrong and what
 * a good line looks like; the caller reports it as an `error` event and reads on.
 */
export function parseNdjsonLine(line: string): NdjsonInput {
  if (line.length > MAX_NDJSON_LINE) throw lineTooLong(line.length);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw bad(`not JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad("a line must be a JSON object with a \"type\"");
  const record = value as Record<string, unknown>;
  const version = record["version"];
  if (version !== undefined && version !== NDJSON_VERSION) throw bad(`version ${JSON.stringify(version)} is not supported; this CLI speaks version ${NDJSON_VERSION}`);
  switch (record["type"]) {
    case "user_message": {
      const content = record["content"];
      if (typeof content !== "string" || content.trim() === "") throw bad("user_message needs a non-blank string \"content\"");
      const id = record["id"];
      if (id !== undefined && typeof id !== "string") throw bad("user_message \"id\" must be a string when given");
      return id === undefined ? { type: "user_message", content } : { type: "user_message", content, id };
    }
    case "interrupt":
      return { type: "interrupt" };
    case "approve":
    case "deny": {
      const requestId = record["requestId"];
      if (requestId !== undefined && typeof requestId !== "string") throw bad(`${record["type"]} "requestId" must be a string when given`);
      return requestId === undefined ? { type: record["type"] } : { type: record["type"], requestId };
    }
    default:
      throw bad(`unknown type ${JSON.stringify(record["type"])}`);
  }
}

/** The error of a line over {@link MAX_NDJSON_LINE} characters. */
export function lineTooLong(length: number): SdkError {
  return bad(`the line has ${length} characters; the limit is ${MAX_NDJSON_LINE}`);
}

function bad(problem: string): SdkError {
  return new SdkError(
    ErrorCode.InvalidArgument,
    `bad input line: ${problem}; send one JSON object per line: {"type":"user_message","content":"…"}, {"type":"interrupt"}, {"type":"approve"} or {"type":"deny"} (docs/ndjson.md)`,
  );
}
