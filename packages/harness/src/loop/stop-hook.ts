import type { TrajectoryStateUpdate_StopReason as StopReason } from "@antigravity-ts/sdk/wire";
import { LifecycleHook } from "@antigravity-ts/sdk/internal";
import type { SessionState } from "./state.js";
import { SYSTEM_MESSAGE_PREFIX } from "./model-transcript.js";
import type { TurnScope } from "./turn-scope.js";

/**
 * The most CONTINUEs the STOP hook gets in one turn. A hook that always answers CONTINUE would
 * otherwise run the model until a budget stops it, and a session without a budget never; past
 * this the turn stops with a warning. The hook sees `continuationCount` and can stop earlier.
 */
export const MAX_STOP_CONTINUATIONS = 8;

/** Why the turn is about to end, as the STOP hook is told. */
export interface TurnEnding {
  responseText: string;
  continuationCount: number;
  /** The budget that ended the turn: the hook is told, but the turn cannot continue. */
  stopReason?: StopReason;
  /** The error that ended the turn: the hook is told, but the turn cannot continue. */
  errorMessage?: string;
}

/**
 * Asks the STOP hook (protocol.md `StopArgs` / `StopResult`, upstream localharness.proto
 * @774cb8d `LIFECYCLE_HOOK_STOP`) whether the turn may end. Returns the system message to give
 * the model when it must continue, undefined when the turn ends: ALLOW_STOP, no STOP hook, a
 * failed hook (fails safe, with a warning on stderr), a turn ended by a budget or an error (no
 * model call is possible then; the hook only observes), or {@link MAX_STOP_CONTINUATIONS} reached.
 * Rejects when the turn is aborted while the hook runs.
 */
export async function askStopHook(
  state: SessionState,
  scope: TurnScope,
  ending: TurnEnding,
): Promise<string | undefined> {
  if (!state.hooks.enabled(LifecycleHook.STOP)) return undefined;
  const decision = await state.hooks.stop({ trajectoryId: state.cascadeId, ...ending }, scope.send, scope.signal);
  if (!decision.continue) {
    if (decision.warning !== undefined) state.log.warn(decision.warning);
    return undefined;
  }
  const cannot =
    ending.stopReason !== undefined
      ? "a budget ended the turn"
      : ending.errorMessage !== undefined
        ? "an error ended the turn"
        : ending.continuationCount >= MAX_STOP_CONTINUATIONS
          ? `the turn was continued ${MAX_STOP_CONTINUATIONS} times already`
          : undefined;
  if (cannot !== undefined) {
    state.log.warn(`the STOP hook asked to continue, but ${cannot}; the turn stops`);
    return undefined;
  }
  const reason = decision.reason.trim() === "" ? "The STOP hook asks you to continue." : decision.reason;
  return `${SYSTEM_MESSAGE_PREFIX} ${reason}`;
}
