import { ErrorCode, SdkError } from "@antigravity-ts/sdk";

/**
 * Version of the NDJSON line format (docs/ndjson.md, docs/ndjson.schema.json). 2: a
 * `confirmationRequest` repeats the `toolCall` of its call's `toolCall` line (one id, one spelling
 * of the arguments across `toolCall`, `confirmationRequest` and `toolResult`); in 1 it carried the
 * policy request's call id and the arguments as the model wrote them.
 */
export const NDJSON_VERSION = 2;

/** Input versions accepted: the input lines did not change between 1 and 2. */
const INPUT_VERSIONS: readonly unknown[] = [1, NDJSON_VERSION];

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
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw bad('a line must be a JSON object with a "type"');
  const record = value as Record<string, unknown>;
  const version = record["version"];
  if (version !== undefined && !INPUT_VERSIONS.includes(version))
    throw bad(
      `version ${JSON.stringify(version)} is not supported; this CLI speaks version ${NDJSON_VERSION} (its input lines also as version 1)`,
    );
  switch (record["type"]) {
    case "user_message": {
      const content = record["content"];
      if (typeof content !== "string" || content.trim() === "")
        throw bad('user_message needs a non-blank string "content"');
      const id = record["id"];
      if (id !== undefined && typeof id !== "string") throw bad('user_message "id" must be a string when given');
      return id === undefined ? { type: "user_message", content } : { type: "user_message", content, id };
    }
    case "interrupt":
      return { type: "interrupt" };
    case "approve":
    case "deny": {
      const requestId = record["requestId"];
      if (requestId !== undefined && typeof requestId !== "string")
        throw bad(`${record["type"]} "requestId" must be a string when given`);
      return requestId === undefined ? { type: record["type"] } : { type: record["type"], requestId };
    }
    default:
      throw bad(`unknown type ${JSON.stringify(record["type"])}`);
  }
}

/** `input` as one line (without the newline), checked by {@link parseNdjsonLine} so only valid lines go out. */
export function ndjsonInputLine(input: NdjsonInput): string {
  const line = JSON.stringify(input);
  parseNdjsonLine(line);
  return line;
}

type FieldKind = "string" | "integer" | "boolean" | "object" | "error";

/**
 * The required properties of every output type of version 2 (docs/ndjson.schema.json
 * `$defs.output`; a test keeps the two in step). An output line of another type is ignored by
 * readers (forward compatibility, docs/ndjson.md "Versioning").
 */
export const NDJSON_OUTPUT_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldKind>>>> = {
  init: { version: "integer", conversationId: "string", capabilities: "object" },
  receipt: { messageIndex: "integer", turnIndex: "integer" },
  thought: { text: "string" },
  text: { text: "string" },
  toolCall: { toolCall: "object" },
  toolResult: { toolCall: "object", step: "object" },
  toolError: { toolCall: "object", error: "string", step: "object" },
  permissionRequest: { trajectoryId: "string", stepIndex: "integer", step: "object" },
  confirmationRequest: { requestId: "string", toolCall: "object" },
  usage: { usage: "object" },
  turnComplete: { turnIndex: "integer", usage: "object" },
  result: { turnIndex: "integer", success: "boolean", interrupted: "boolean", usage: "object" },
  error: { error: "error" },
};

/** An output line of a known type, its required properties checked; `{ code, message }` errors are `SdkError`s again. */
export type NdjsonOutputLine = Record<string, unknown> & { type: string };

/**
 * Parses one output line (docs/ndjson.md): `undefined` for a blank line or a type this version
 * does not know (ignore it); throws `ProtocolError` saying what is wrong with a malformed one.
 * The `error` property of `result` and `error` lines becomes an {@link SdkError}.
 */
export function parseNdjsonOutputLine(line: string): NdjsonOutputLine | undefined {
  if (line.trim() === "") return undefined;
  if (line.length > MAX_NDJSON_LINE)
    throw badOutput(`the line has ${line.length} characters; the limit is ${MAX_NDJSON_LINE}`);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw badOutput(`not JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw badOutput("a line must be a JSON object");
  const record = value as Record<string, unknown>;
  const type = record["type"];
  if (typeof type !== "string") throw badOutput('a line needs a string "type"');
  const fields = Object.hasOwn(NDJSON_OUTPUT_FIELDS, type) ? NDJSON_OUTPUT_FIELDS[type] : undefined;
  if (fields === undefined) return undefined;
  for (const [name, kind] of Object.entries(fields)) {
    if (!hasKind(record[name], kind))
      throw badOutput(
        `a ${type} line needs ${kind === "error" ? "an error { code, message }" : `a${kind === "integer" || kind === "object" ? "n" : ""} ${kind}`} "${name}"`,
      );
  }
  if (type === "init" && record["version"] !== NDJSON_VERSION)
    throw badOutput(
      `version ${JSON.stringify(record["version"])} is not supported; this reader speaks version ${NDJSON_VERSION}`,
    );
  const error = record["error"];
  if ((type === "error" || type === "result") && error !== undefined) {
    if (!hasKind(error, "error")) throw badOutput(`the "error" of a ${type} line must be { code, message }`);
    const { code, message } = error as { code: string; message: string };
    const known = (Object.values(ErrorCode) as string[]).includes(code);
    return {
      ...record,
      type,
      error: new SdkError(known ? (code as ErrorCode) : ErrorCode.Internal, known ? message : `${code}: ${message}`),
    };
  }
  return { ...record, type };
}

function hasKind(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isSafeInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "error":
      return (
        hasKind(value, "object") &&
        typeof (value as Record<string, unknown>)["code"] === "string" &&
        typeof (value as Record<string, unknown>)["message"] === "string"
      );
  }
}

function badOutput(problem: string): SdkError {
  return new SdkError(ErrorCode.ProtocolError, `bad output line from the NDJSON child: ${problem} (docs/ndjson.md)`);
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
