import { ErrorCode, SdkError } from "../errors.js";
import type { StopReason, ToolResult, UsageMetadata } from "../step.js";

/** The envelope version this SDK writes and the only one it reads. */
export const CONTINUATION_VERSION = 1;

/**
 * Largest continuation accepted, in UTF-16 code units of its JSON: text longer than this is
 * refused before it is parsed, an object whose JSON would be longer is refused part-way through
 * the walk that measures it (a hostile page cannot make us parse or walk megabytes).
 */
export const MAX_CONTINUATION_CHARS = 4 * 1024 * 1024;

/**
 * Deepest nesting of objects and arrays accepted in a continuation, the envelope being level 1
 * (a call's `args` are level 5: their values may nest 59 levels further). Anything deeper is refused
 * before any recursive walk (serialisation, signing) could exhaust the stack.
 */
export const MAX_CONTINUATION_DEPTH = 64;

/** A tool call of the paused turn that needs (or needed) a decision. */
export interface PendingToolCall {
  /** The call's id (for built-ins the step id, `"<trajectoryId>:<stepIndex>"`). */
  id: string;
  name: string;
  args: unknown;
  /** Where the harness waits for the decision (protocol §8: `toolConfirmation` is keyed by both). */
  trajectoryId: string;
  stepIndex: number;
}

/**
 * The state of a turn paused on a tool confirmation (seed 004's `AgentContinuation`, the fields
 * that apply to a harness-run turn): everything a later `agent.resume` needs to check that the
 * decision it is given answers exactly the call the harness waits for.
 */
export interface ContinuationPayload {
  /** The conversation (cascade) id; resume refuses an agent on another conversation. */
  conversationId: string;
  /** The paused turn's index in the conversation, from 0. */
  turnIndex: number;
  /** Usage of the whole conversation when the turn paused. */
  totalUsage: UsageMetadata;
  /** Usage of the paused turn so far. */
  turnUsage: UsageMetadata;
  /** The turn's calls that needed a decision, in the order the harness asked. */
  pendingToolCalls: PendingToolCall[];
  /** Index in {@link pendingToolCalls} of the call awaiting the decision. */
  awaitingIndex: number;
  /** Calls of the turn that already finished (never run again on resume). */
  completedResults: ToolResult[];
  /** The turn's response text so far. */
  responseContent: string;
  /** Why the harness stopped the turn early, if it did (budget or quota, §16); null otherwise. */
  stopReason: StopReason | null;
  /** When the turn paused (ISO 8601). */
  createdAt: string;
}

/**
 * A continuation: `{ version, payload }`, optionally signed (`signature`, see
 * `signContinuation`). Plain JSON: store it anywhere (a Durable Object, a cookie, a database),
 * hand it to another process or runtime.
 */
export interface Continuation {
  version: typeof CONTINUATION_VERSION;
  payload: ContinuationPayload;
  /** `"hmac-sha256:<base64url>"` over the canonical JSON of `{ version, payload }`. */
  signature?: string;
}

/** The call a continuation awaits a decision for. */
export function awaitedCall(continuation: Continuation): PendingToolCall {
  return continuation.payload.pendingToolCalls[continuation.payload.awaitingIndex] as PendingToolCall;
}

/**
 * Checks that `value` is a continuation this SDK can resume, failing closed: a version other than
 * {@link CONTINUATION_VERSION} is `FailedPrecondition` (made by another SDK version: upgrade
 * rather than guess); anything malformed or ambiguous (unknown fields, an awaiting index out of
 * range, duplicate call ids, a completed result for the awaited call) is `InvalidArgument`
 * (`details.reason` `"malformed"`), and so is a continuation longer than
 * {@link MAX_CONTINUATION_CHARS} (`"too-large"`) or nested deeper than
 * {@link MAX_CONTINUATION_DEPTH} (`"too-deep"`, a cycle included), text or object alike.
 * Accepts the object or its JSON text. Does not check a signature (`verifyContinuation` does).
 *
 * @example
 * const continuation = parseContinuation(await store.get("pending")); // JSON text
 */
export function parseContinuation(value: unknown): Continuation {
  if (typeof value === "string") {
    if (value.length > MAX_CONTINUATION_CHARS)
      throw tooLarge(`it is ${value.length} characters long, more than ${MAX_CONTINUATION_CHARS}`);
    checkTextDepth(value);
    try {
      value = JSON.parse(value);
    } catch {
      throw malformed("it is not JSON");
    }
  }
  checkBounds(value);
  const envelope = record(value, "the continuation");
  onlyKeys(envelope, ["version", "payload", "signature"], "the continuation");
  if (envelope["version"] !== CONTINUATION_VERSION) {
    throw new SdkError(
      ErrorCode.FailedPrecondition,
      `continuation version ${JSON.stringify(envelope["version"])} is not supported: this SDK reads version ${CONTINUATION_VERSION}; resume it with the SDK version that made it`,
      { details: { reason: "unknown-version" } },
    );
  }
  if (
    envelope["signature"] !== undefined &&
    (typeof envelope["signature"] !== "string" || !/^hmac-sha256:[A-Za-z0-9_-]{43}$/.test(envelope["signature"]))
  )
    throw malformed("signature is not of the form hmac-sha256:<base64url of 32 bytes>");
  const p = record(envelope["payload"], "payload");
  onlyKeys(
    p,
    [
      "conversationId",
      "turnIndex",
      "totalUsage",
      "turnUsage",
      "pendingToolCalls",
      "awaitingIndex",
      "completedResults",
      "responseContent",
      "stopReason",
      "createdAt",
    ],
    "payload",
  );
  const pendingToolCalls = array(p["pendingToolCalls"], "payload.pendingToolCalls").map((item, i) =>
    pendingCall(item, `payload.pendingToolCalls[${i}]`),
  );
  if (pendingToolCalls.length === 0) throw malformed("payload.pendingToolCalls is empty: there is no call to decide");
  const ids = new Set(pendingToolCalls.map((call) => call.id));
  if (ids.size !== pendingToolCalls.length)
    throw malformed("payload.pendingToolCalls has two calls with one id: the decision would be ambiguous");
  const awaitingIndex = count(p["awaitingIndex"], "payload.awaitingIndex");
  const awaited = pendingToolCalls[awaitingIndex];
  if (awaited === undefined)
    throw malformed(
      `payload.awaitingIndex ${awaitingIndex} is outside payload.pendingToolCalls (${pendingToolCalls.length} calls)`,
    );
  const completedResults = array(p["completedResults"], "payload.completedResults").map((item, i) =>
    toolResult(item, `payload.completedResults[${i}]`),
  );
  if (completedResults.some((result) => result.id === awaited.id))
    throw malformed(`payload.completedResults has a result for ${awaited.id}, the call awaiting a decision`);
  const stopReason = p["stopReason"];
  if (stopReason !== null && typeof stopReason !== "string")
    throw malformed("payload.stopReason must be a string or null");
  const payload: ContinuationPayload = {
    conversationId: nonEmpty(p["conversationId"], "payload.conversationId"),
    turnIndex: count(p["turnIndex"], "payload.turnIndex"),
    totalUsage: usage(p["totalUsage"], "payload.totalUsage"),
    turnUsage: usage(p["turnUsage"], "payload.turnUsage"),
    pendingToolCalls,
    awaitingIndex,
    completedResults,
    responseContent: string(p["responseContent"], "payload.responseContent"),
    stopReason: stopReason as StopReason | null,
    createdAt: string(p["createdAt"], "payload.createdAt"),
  };
  return envelope["signature"] === undefined
    ? { version: CONTINUATION_VERSION, payload }
    : { version: CONTINUATION_VERSION, payload, signature: envelope["signature"] as string };
}

/**
 * Refuses JSON text that opens more than {@link MAX_CONTINUATION_DEPTH} brackets, before
 * `JSON.parse` builds (or, in an engine whose parser recurses, overflows the stack on) a million
 * nested arrays. Brackets inside strings do not count.
 */
function checkTextDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_CONTINUATION_DEPTH) throw tooDeep();
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/**
 * One walk over `value` that stops as soon as it nests deeper than {@link MAX_CONTINUATION_DEPTH}
 * or its JSON grows past {@link MAX_CONTINUATION_CHARS} (counted as strings, keys and punctuation;
 * escapes are not, so the count never exceeds the real length).
 */
function checkBounds(value: unknown): void {
  let chars = 0;
  const visit = (item: unknown, depth: number): void => {
    if (typeof item === "string") chars += item.length + 2;
    else if (typeof item !== "object" || item === null) chars += typeof item === "number" ? String(item).length : 4;
    else {
      if (depth > MAX_CONTINUATION_DEPTH) throw tooDeep();
      chars += 2;
      if (Array.isArray(item)) {
        for (let i = 0; i < item.length; i++) {
          chars += 1;
          visit(item[i], depth + 1);
        }
      } else {
        for (const key of Object.keys(item)) {
          chars += key.length + 4;
          visit((item as Record<string, unknown>)[key], depth + 1);
        }
      }
    }
    if (chars > MAX_CONTINUATION_CHARS)
      throw tooLarge(`its JSON would be longer than ${MAX_CONTINUATION_CHARS} characters`);
  };
  visit(value, 1);
}

function pendingCall(value: unknown, where: string): PendingToolCall {
  const call = record(value, where);
  onlyKeys(call, ["id", "name", "args", "trajectoryId", "stepIndex"], where);
  return {
    id: nonEmpty(call["id"], `${where}.id`),
    name: nonEmpty(call["name"], `${where}.name`),
    args: call["args"] ?? null,
    trajectoryId: nonEmpty(call["trajectoryId"], `${where}.trajectoryId`),
    stepIndex: count(call["stepIndex"], `${where}.stepIndex`),
  };
}

function toolResult(value: unknown, where: string): ToolResult {
  const result = record(value, where);
  onlyKeys(result, ["id", "name", "result", "error"], where);
  const out: ToolResult = { id: nonEmpty(result["id"], `${where}.id`), name: string(result["name"], `${where}.name`) };
  if (result["result"] !== undefined) out.result = result["result"];
  if (result["error"] !== undefined) out.error = string(result["error"], `${where}.error`);
  return out;
}

const USAGE_KEYS = [
  "promptTokenCount",
  "candidatesTokenCount",
  "totalTokenCount",
  "cachedContentTokenCount",
  "thoughtsTokenCount",
] as const;

function usage(value: unknown, where: string): UsageMetadata {
  const u = record(value, where);
  onlyKeys(u, [...USAGE_KEYS, "serviceTier"], where);
  const out = Object.fromEntries(
    USAGE_KEYS.map((key) => [key, count(u[key], `${where}.${key}`)]),
  ) as unknown as UsageMetadata;
  if (u["serviceTier"] !== undefined)
    out.serviceTier = string(u["serviceTier"], `${where}.serviceTier`) as NonNullable<UsageMetadata["serviceTier"]>;
  return out;
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw malformed(`${where} must be an object`);
  return value as Record<string, unknown>;
}

function array(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw malformed(`${where} must be an array`);
  return value;
}

function onlyKeys(value: Record<string, unknown>, keys: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((key) => !keys.includes(key));
  if (unknown.length > 0) throw malformed(`${where} has fields this SDK does not know (${unknown.join(", ")})`);
}

function string(value: unknown, where: string): string {
  if (typeof value !== "string") throw malformed(`${where} must be a string`);
  return value;
}

function nonEmpty(value: unknown, where: string): string {
  const text = string(value, where);
  if (text === "") throw malformed(`${where} is empty`);
  return text;
}

function count(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
    throw malformed(`${where} must be a whole number >= 0`);
  return value;
}

function tooLarge(message: string): SdkError {
  return new SdkError(ErrorCode.InvalidArgument, `not a usable continuation: ${message}`, {
    details: { reason: "too-large" },
  });
}

function tooDeep(): SdkError {
  return new SdkError(
    ErrorCode.InvalidArgument,
    `not a usable continuation: it nests deeper than ${MAX_CONTINUATION_DEPTH} levels (or contains a cycle)`,
    {
      details: { reason: "too-deep" },
    },
  );
}

function malformed(message: string): SdkError {
  return new SdkError(ErrorCode.InvalidArgument, `not a usable continuation: ${message}`, {
    details: { reason: "malformed" },
  });
}
