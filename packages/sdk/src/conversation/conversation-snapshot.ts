import { ErrorCode, SdkError } from "../errors.js";
import { StepSource, StepStatus, StepTarget, StepType } from "../step.js";
import type { Step, ToolCall, UsageMetadata } from "../step.js";

/** Value of {@link ConversationSnapshot.format}: tells a snapshot apart from any other JSON. */
export const CONVERSATION_SNAPSHOT_FORMAT = "antigravity-ts.conversation";

/** The snapshot format version this SDK writes and reads. */
export const CONVERSATION_SNAPSHOT_VERSION = 1;

/** Usage figures of a snapshot (protocol §14). */
export interface ConversationSnapshotUsage {
  /** `conversation.totalUsage()` when the snapshot was taken. */
  total: UsageMetadata;
  /**
   * The harness's cumulative session total (`connection.usage.total`) at that moment. On restore
   * it tells whether the harness resumed the same session (its total did not go back) so the
   * usage it counted since the snapshot is added, or started afresh.
   */
  harnessTotal: UsageMetadata;
  /** `conversation.lastTurnUsage()`, absent before a turn ended. */
  lastTurn?: UsageMetadata;
}

/**
 * A conversation as plain JSON data (format version 1): what `conversation.snapshot()` returns,
 * `Conversation.restore()` accepts and the storage adapters keep. Every value is JSON: a snapshot
 * survives `JSON.parse(JSON.stringify(snapshot))` unchanged.
 *
 * Compaction summaries are not part of it: the harness keeps them in its own model transcript
 * (protocol §15), and a COMPACTION step carries none; the COMPACTION steps themselves are kept.
 */
export interface ConversationSnapshot {
  format: typeof CONVERSATION_SNAPSHOT_FORMAT;
  version: typeof CONVERSATION_SNAPSHOT_VERSION;
  /** The harness's conversation (cascade) id: the key under which stores keep the snapshot. */
  conversationId: string;
  /** The retained history, oldest first, one entry per step id (its newest state). */
  steps: Step[];
  /** History positions where the retained turns start, ascending (a position may equal `steps.length`). */
  turnStartIndices: number[];
  /** Turns started since the last clear, including turns whose steps were trimmed away. */
  turnCount: number;
  /** History positions of the COMPACTION steps (§15), ascending: exactly where `steps` has them. */
  compactionIndices: number[];
  usage: ConversationSnapshotUsage;
}

const STEP_TYPES = new Set<string>(Object.values(StepType));
const STEP_SOURCES = new Set<string>(Object.values(StepSource));
const STEP_TARGETS = new Set<string>(Object.values(StepTarget));
const STEP_STATUSES = new Set<string>(Object.values(StepStatus));
const USAGE_FIELDS = [
  "promptTokenCount",
  "candidatesTokenCount",
  "totalTokenCount",
  "cachedContentTokenCount",
  "thoughtsTokenCount",
] as const;
const STEP_STRINGS = [
  "id",
  "content",
  "contentDelta",
  "thinking",
  "thinkingDelta",
  "error",
  "cascadeId",
  "trajectoryId",
  "parentTrajectoryId",
] as const;

/**
 * Checks that `value` is a {@link ConversationSnapshot} this SDK can restore and returns it, typed.
 * Throws `SdkError` `InvalidArgument` naming the first problem (`steps[3].status: ...`): a wrong
 * `format` or `version` (e.g. written by a newer SDK), a missing or mistyped field, duplicate
 * step ids, or indices that do not fit the steps. Fields a step has beyond the known ones are
 * kept as they are. Does not copy: pass a value you own (e.g. fresh from `JSON.parse`).
 *
 * @example
 * const snapshot = parseConversationSnapshot(JSON.parse(await file.text()));
 */
export function parseConversationSnapshot(value: unknown): ConversationSnapshot {
  const root = record(value, "snapshot");
  if (root["format"] !== CONVERSATION_SNAPSHOT_FORMAT) {
    invalid(
      "format",
      `expected ${JSON.stringify(CONVERSATION_SNAPSHOT_FORMAT)}, got ${describe(root["format"])}: this is not a conversation snapshot`,
    );
  }
  if (root["version"] !== CONVERSATION_SNAPSHOT_VERSION) {
    const newer = typeof root["version"] === "number" && root["version"] > CONVERSATION_SNAPSHOT_VERSION;
    invalid(
      "version",
      `this SDK reads version ${CONVERSATION_SNAPSHOT_VERSION}, got ${describe(root["version"])}${newer ? ": it was written by a newer SDK, upgrade to read it" : ""}`,
    );
  }
  const conversationId = root["conversationId"];
  if (typeof conversationId !== "string" || conversationId === "")
    invalid("conversationId", `expected a non-empty string, got ${describe(conversationId)}`);
  const steps = array(root["steps"], "steps");
  const ids = new Set<string>();
  const compactions: number[] = [];
  steps.forEach((step, i) => {
    checkStep(step, `steps[${i}]`);
    const { id, type } = step as Step;
    if (ids.has(id))
      invalid(`steps[${i}].id`, `${JSON.stringify(id)} appears twice; a history holds one entry per step id`);
    ids.add(id);
    if (type === StepType.Compaction) compactions.push(i);
  });
  const turnStarts = indices(root["turnStartIndices"], "turnStartIndices", steps.length);
  const turnCount = root["turnCount"];
  if (!isCount(turnCount) || turnCount < turnStarts.length) {
    invalid(
      "turnCount",
      `expected an integer >= ${turnStarts.length} (the retained turn starts), got ${describe(turnCount)}`,
    );
  }
  const compactionIndices = indices(root["compactionIndices"], "compactionIndices", steps.length - 1);
  if (compactionIndices.join() !== compactions.join()) {
    invalid(
      "compactionIndices",
      `expected [${compactions.join(", ")}], the positions of the COMPACTION steps, got [${compactionIndices.join(", ")}]`,
    );
  }
  const usage = record(root["usage"], "usage");
  checkUsage(usage["total"], "usage.total");
  checkUsage(usage["harnessTotal"], "usage.harnessTotal");
  if (usage["lastTurn"] !== undefined) checkUsage(usage["lastTurn"], "usage.lastTurn");
  return value as ConversationSnapshot;
}

function checkStep(value: unknown, at: string): void {
  const step = record(value, at);
  for (const key of STEP_STRINGS)
    if (typeof step[key] !== "string") invalid(`${at}.${key}`, `expected a string, got ${describe(step[key])}`);
  if (step["id"] === "") invalid(`${at}.id`, "expected a non-empty string");
  if (!isCount(step["stepIndex"]))
    invalid(`${at}.stepIndex`, `expected an integer >= 0, got ${describe(step["stepIndex"])}`);
  if (!isCount(step["httpCode"]))
    invalid(`${at}.httpCode`, `expected an integer >= 0, got ${describe(step["httpCode"])}`);
  oneOf(step["type"], STEP_TYPES, `${at}.type`);
  oneOf(step["source"], STEP_SOURCES, `${at}.source`);
  oneOf(step["target"], STEP_TARGETS, `${at}.target`);
  oneOf(step["status"], STEP_STATUSES, `${at}.status`);
  if (typeof step["isCompleteResponse"] !== "boolean")
    invalid(`${at}.isCompleteResponse`, `expected a boolean, got ${describe(step["isCompleteResponse"])}`);
  array(step["toolCalls"], `${at}.toolCalls`).forEach((call, i) => checkToolCall(call, `${at}.toolCalls[${i}]`));
  if (step["usageMetadata"] !== undefined) checkUsage(step["usageMetadata"], `${at}.usageMetadata`);
}

function checkToolCall(value: unknown, at: string): void {
  const call = record(value, at) as Partial<Record<keyof ToolCall, unknown>>;
  if (typeof call.id !== "string") invalid(`${at}.id`, `expected a string, got ${describe(call.id)}`);
  if (typeof call.name !== "string") invalid(`${at}.name`, `expected a string, got ${describe(call.name)}`);
  for (const key of ["canonicalPath", "serverName"] as const) {
    if (call[key] !== undefined && typeof call[key] !== "string")
      invalid(`${at}.${key}`, `expected a string, got ${describe(call[key])}`);
  }
}

function checkUsage(value: unknown, at: string): void {
  const usage = record(value, at);
  for (const key of USAGE_FIELDS) {
    const n = usage[key];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0)
      invalid(`${at}.${key}`, `expected a number >= 0, got ${describe(n)}`);
  }
}

/** An ascending list of integers in `[0, max]`. */
function indices(value: unknown, at: string, max: number): number[] {
  const list = array(value, at);
  list.forEach((n, i) => {
    if (!isCount(n) || n > max) invalid(`${at}[${i}]`, `expected an integer in [0, ${max}], got ${describe(n)}`);
    if (i > 0 && n < (list[i - 1] as number)) invalid(`${at}[${i}]`, "the list must be in ascending order");
  });
  return list as number[];
}

function oneOf(value: unknown, allowed: ReadonlySet<string>, at: string): void {
  if (typeof value !== "string" || !allowed.has(value))
    invalid(at, `expected one of ${[...allowed].join(", ")}, got ${describe(value)}`);
}

function record(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    invalid(at, `expected an object, got ${describe(value)}`);
  return value as Record<string, unknown>;
}

function array(value: unknown, at: string): unknown[] {
  if (!Array.isArray(value)) invalid(at, `expected an array, got ${describe(value)}`);
  return value;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function invalid(at: string, problem: string): never {
  throw new SdkError(ErrorCode.InvalidArgument, `invalid conversation snapshot: ${at}: ${problem}`, {
    details: { at },
  });
}
