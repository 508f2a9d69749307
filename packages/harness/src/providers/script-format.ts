import { readFile } from "node:fs/promises";

/**
 * A script for the offline scripted model (see docs/harness.md). Turns are tried in order; the
 * first whose `match`/`regex` fits the user's prompt plays its `calls`, one per model call of the
 * turn. A turn without `match` and `regex` matches every prompt.
 */
export interface ScriptFile {
  turns: ScriptTurn[];
}

/** The scripted answer to one kind of prompt. */
export interface ScriptTurn {
  /** Case-insensitive substring of the prompt. */
  match?: string;
  /**
   * JavaScript regular expression tested against the prompt; groups are `{{match.N}}`, named
   * groups also `{{match.NAME}}` and the value of a `$fromSchema` argument of that name.
   */
  regex?: string;
  /** Flags of `regex` (default "i"). */
  flags?: string;
  /** Model calls, in order. Each call after the first sees the results of the previous call's tools. */
  calls: ScriptCall[];
}

/** One model call: streamed thinking, streamed text, then tool calls. */
export interface ScriptCall {
  thinking?: string;
  text?: string;
  toolCalls?: ScriptToolCall[];
  /** Pause between streamed chunks (lets a client halt mid-stream). */
  chunkDelayMs?: number;
  /** Words per streamed chunk (default 3). */
  chunkWords?: number;
  /** Fail this model call like an API error would (after streaming what comes before). */
  error?: { message: string; httpCode?: number };
}

/** A tool call the scripted model makes. */
export interface ScriptToolCall {
  /** Tool name; `$client` is the first tool the client declared (`HarnessConfig.tools`). */
  name: string;
  /** Arguments; `"$fromSchema"` builds them from the tool's JSON schema (required properties, and named regex groups). */
  args?: Record<string, unknown> | "$fromSchema";
  /** Drop this call when the session does not offer the tool (instead of calling an unknown tool). */
  ifAvailable?: boolean;
}

/** A script file that cannot be used; the message names the file and the problem. */
export class ScriptError extends Error {
  override readonly name = "ScriptError";
}

/** Reads and checks a script file. */
export async function loadScriptFile(file: string): Promise<ScriptFile> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ScriptError(`cannot read script ${file}: ${(error as Error).message}`);
  }
  try {
    return parseScript(JSON.parse(text));
  } catch (error) {
    throw new ScriptError(`script ${file}: ${(error as Error).message}`);
  }
}

/** Checks a parsed script (an object with `turns`, or a bare array of turns). */
export function parseScript(value: unknown): ScriptFile {
  const turns = Array.isArray(value) ? value : (value as { turns?: unknown } | null)?.turns;
  if (!Array.isArray(turns)) throw new ScriptError(`a script is {"turns": [...]} or an array of turns`);
  turns.forEach((turn, i) => checkTurn(turn, `turns[${i}]`));
  return { turns: turns as ScriptTurn[] };
}

function checkTurn(turn: unknown, at: string): void {
  if (typeof turn !== "object" || turn === null) throw new ScriptError(`${at} must be an object`);
  const t = turn as Record<string, unknown>;
  for (const key of ["match", "regex", "flags"]) {
    if (t[key] !== undefined && typeof t[key] !== "string") throw new ScriptError(`${at}.${key} must be a string`);
  }
  if (typeof t["regex"] === "string") {
    try {
      new RegExp(t["regex"], typeof t["flags"] === "string" ? t["flags"] : "i");
    } catch (error) {
      throw new ScriptError(`${at}.regex: ${(error as Error).message}`);
    }
  }
  if (!Array.isArray(t["calls"]) || t["calls"].length === 0)
    throw new ScriptError(`${at}.calls must be a non-empty array`);
  t["calls"].forEach((call, j) => checkCall(call, `${at}.calls[${j}]`));
}

function checkCall(call: unknown, at: string): void {
  if (typeof call !== "object" || call === null) throw new ScriptError(`${at} must be an object`);
  const c = call as Record<string, unknown>;
  for (const key of ["thinking", "text"]) {
    if (c[key] !== undefined && typeof c[key] !== "string") throw new ScriptError(`${at}.${key} must be a string`);
  }
  for (const key of ["chunkDelayMs", "chunkWords"]) {
    if (c[key] !== undefined && (typeof c[key] !== "number" || (c[key] as number) < 0))
      throw new ScriptError(`${at}.${key} must be a non-negative number`);
  }
  if (c["error"] !== undefined && typeof (c["error"] as { message?: unknown })?.message !== "string")
    throw new ScriptError(`${at}.error.message must be a string`);
  if (c["toolCalls"] === undefined) return;
  if (!Array.isArray(c["toolCalls"])) throw new ScriptError(`${at}.toolCalls must be an array`);
  c["toolCalls"].forEach((tc, k) => {
    const t = tc as Record<string, unknown> | null;
    if (typeof t?.["name"] !== "string" || t["name"] === "")
      throw new ScriptError(`${at}.toolCalls[${k}].name must be a non-empty string`);
    const args = t["args"];
    if (
      args !== undefined &&
      args !== "$fromSchema" &&
      (typeof args !== "object" || args === null || Array.isArray(args))
    ) {
      throw new ScriptError(`${at}.toolCalls[${k}].args must be an object or "$fromSchema"`);
    }
  });
}
