import type { QuestionResponse } from "../step.js";
import type { StopReason, ToolCall } from "../step.js";
import type { HookContext } from "./hook-context.js";

/** A value or a promise of it: every hook may be sync or async. */
export type Awaitable<T> = T | Promise<T>;

/** A yes/no answer of a deciding hook. Returning nothing means allow. */
export interface HookDecision {
  allow: boolean;
  /** Why the action is refused; the model (PRE_TOOL) or the turn error (PRE_TURN) shows it. */
  reason?: string;
}

/** A PRE_TOOL answer: allow may carry arguments to merge over the call's (shallow, chained). */
export interface PreToolDecision extends HookDecision {
  modifiedArgs?: Record<string, unknown>;
}

/** Where in the trajectory a hook fires (protocol §10 args). */
export interface HookLocation {
  /** The trajectory the event belongs to ("" when the harness does not say). */
  trajectoryId: string;
  /** The step the event belongs to, when the harness says. */
  stepIndex?: number;
}

/**
 * A tool call as PRE_TOOL hooks see it: built-in, MCP or client tool, spelled as steps, chunks
 * and policy predicates spell it (SDK tool name, model's argument names, local paths).
 */
export interface HookToolCall extends ToolCall, HookLocation {}

/**
 * A finished tool call as POST_TOOL hooks see it. `result` is parsed JSON when it parses; a call
 * that failed has `error` and no `result` (upstream).
 */
export interface HookToolResult extends HookLocation {
  id: string;
  name: string;
  serverName?: string;
  result?: unknown;
  error?: string;
}

/** A failed tool call as ON_TOOL_ERROR hooks see it. */
export interface HookToolError extends HookLocation {
  id: string;
  name: string;
  serverName?: string;
  /** The error text the model would see. */
  message: string;
}

/** One multiple-choice question of an `ask_question` step (protocol §9). */
export interface Question {
  question: string;
  choices: string[];
  isMultiSelect: boolean;
}

/** A COMPACTION event (protocol §15). */
export interface CompactionEvent extends HookLocation {
  stepIndex: number;
  /** The harness's summary, or "Context compaction" when it sent none (upstream). */
  summary: string;
}

/**
 * What the STOP hook is told when the agent is about to end its turn (protocol.md `StopArgs`,
 * upstream localharness.proto @774cb8d).
 */
export interface StopArgs extends HookLocation {
  /** The model's last answer of the turn. */
  responseText: string;
  /** How many times a CONTINUE already resumed this turn (the harness caps it; see docs). */
  continuationCount: number;
  /** Set when a budget ends the turn; the turn cannot continue then. */
  stopReason?: StopReason;
  /** Set when an error ends the turn; the turn cannot continue then. */
  errorMessage?: string;
}

/**
 * The STOP hook's answer (protocol.md `StopResult`): `ALLOW_STOP` ends the turn; `CONTINUE` gives
 * the model `reason` as a system message and lets it go on. Returning nothing allows the stop.
 * A CONTINUE whose `reason` is empty or blank counts as the hook failing (upstream's
 * `StopHookResult` refuses it), so the turn stops.
 */
export type StopResult = { decision: "ALLOW_STOP" } | { decision: "CONTINUE"; reason: string };

/**
 * Lifecycle callbacks (protocol §10). Implement any subset; each may be sync or async. The SDK
 * tells the harness which ones exist (`enabledHooks`) and the harness calls them at the right
 * moment. A hook that throws makes the harness see "Hook failed: …". Every hook gets a
 * {@link HookContext} last: state scoped to the session, the turn or the operation (tool call);
 * for typed keys, `ctx.typed<MyState>()`.
 *
 * @example
 * const audit: Hook = {
 *   preToolCall: (call) => (call.name === "run_command" ? { allow: false, reason: "no shell" } : undefined),
 *   postTurn: (text) => console.log("answer:", text),
 * };
 */
export interface Hook {
  /** The session started (after the harness accepted the configuration). */
  onSessionStart?(context: HookContext): Awaitable<void>;
  /** The session is ending (`agent.stop()`), before the connection closes. */
  onSessionEnd?(context: HookContext): Awaitable<void>;
  /** Before a turn runs; `{ allow: false }` cancels it with `reason`. Starts the turn's context. */
  preTurn?(prompt: string, location: HookLocation, context: HookContext): Awaitable<HookDecision | undefined | void>;
  /** After a turn, with the final response text. The turn's context ends after it. */
  postTurn?(responseText: string, location: HookLocation, context: HookContext): Awaitable<void>;
  /** Before any tool runs; deny it, or allow with `modifiedArgs`. Hooks run in order; any deny stops. */
  preToolCall?(call: HookToolCall, context: HookContext): Awaitable<PreToolDecision | undefined | void>;
  /** After a tool ran. */
  postToolCall?(result: HookToolResult, context: HookContext): Awaitable<void>;
  /** A tool failed; return text to replace the error message the model sees. */
  onToolError?(error: HookToolError, context: HookContext): Awaitable<string | undefined | void>;
  /** The agent asks the user questions; return the answers (default: every question unanswered). */
  onInteraction?(
    questions: Question[],
    location: HookLocation,
    context: HookContext,
  ): Awaitable<QuestionResponse | undefined | void>;
  /** The harness compacted the context. */
  onCompaction?(event: CompactionEvent, context: HookContext): Awaitable<void>;
  /**
   * The agent is about to end its turn; `{ decision: "CONTINUE", reason }` makes it go on. Hooks
   * run in order and the first CONTINUE wins. A STOP hook that throws lets the turn stop (the
   * harness warns): a broken hook never keeps an agent running.
   */
  stop?(args: StopArgs, context: HookContext): Awaitable<StopResult | undefined | void>;
}

/** Every method a hook may have (protocol §10; `stop` since the STOP hook). */
export const HOOK_METHODS = [
  "onSessionStart",
  "onSessionEnd",
  "preTurn",
  "postTurn",
  "preToolCall",
  "postToolCall",
  "onToolError",
  "onInteraction",
  "onCompaction",
  "stop",
] as const;
