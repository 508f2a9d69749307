import { isDeepStrictEqual } from "node:util";
import type { JsonValue } from "@bufbuild/protobuf";
import { OutputEventSchema, fromJson, toJson } from "@antigravity-ts/sdk/wire";

// Wire fidelity of every frame the tests receive (protocol §4.1, §19 `OutputEvent`). The plain
// JSON checks come first, so the schema cannot hide a misunderstanding it shares with the harness.

/** JSON names of the `OutputEvent.event` oneof (§19). */
const EVENT_NAMES = new Set([
  "stepUpdate",
  "trajectoryStateUpdate",
  "toolCall",
  "initializeConversationResponse",
  "callHookRequest",
  "sessionEndResponse",
  "policyDecisionRequest",
  "usageUpdate",
]);
const INT64_STRING = /^(0|[1-9]\d*)$/;

/**
 * Returns what is wrong with one harness frame, or undefined: it must be a JSON object with
 * `seqNum` (= `expectedSeq`) and `timestampMicros` as int64 decimal strings and exactly one event
 * of the oneof, no other key; it must decode strictly (no unknown field at any depth, right
 * types) and be canonical protojson (enum names, int64 strings: re-encoding changes nothing).
 */
export function frameProblem(json: unknown, expectedSeq: bigint): string | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return "not a JSON object";
  const frame = json as Record<string, unknown>;
  for (const key of ["seqNum", "timestampMicros"]) {
    const value = frame[key];
    if (typeof value !== "string" || !INT64_STRING.test(value))
      return `${key} must be an int64 decimal string, got ${JSON.stringify(value)}`;
  }
  if (BigInt(frame["seqNum"] as string) !== expectedSeq)
    return `seqNum ${String(frame["seqNum"])} where ${expectedSeq} was due`;
  const others = Object.keys(frame).filter((key) => key !== "seqNum" && key !== "timestampMicros");
  if (others.length !== 1 || !EVENT_NAMES.has(others[0] as string))
    return `expected exactly one OutputEvent event, got keys ${JSON.stringify(others)}`;
  let canonical: JsonValue;
  try {
    canonical = toJson(OutputEventSchema, fromJson(OutputEventSchema, json as JsonValue));
  } catch (error) {
    return `does not decode strictly as an OutputEvent: ${(error as Error).message}`;
  }
  return isDeepStrictEqual(canonical, json)
    ? undefined
    : `not canonical protojson; canonical form: ${JSON.stringify(canonical).slice(0, 500)}`;
}
