import type {
  TrajectoryStateUpdate_StopReason,
  CallHookRequestSchema,
  CallHookResponse,
  MessageInitShape,
  PreToolArgsSchema,
  UserInput,
} from "@antigravity-ts/sdk/wire";
import {
  LifecycleHook,
  PreToolResult_Decision,
  PreTurnResult_Decision,
  StopResult_Decision,
  definedProperties,
  plainOfStruct,
} from "@antigravity-ts/sdk/internal";
import type { SendOutput } from "./output-channel.js";
import { PendingReplies } from "./pending-replies.js";

/** The args oneof of a `CallHookRequest`. */
type HookArgs = MessageInitShape<typeof CallHookRequestSchema>["args"];

// `CallHookRequest.name` strings are UNCONFIRMED (§22 shows "PreTool"); we name each type alike.
const HOOK_NAMES: Record<LifecycleHook, string> = {
  [LifecycleHook.UNSPECIFIED]: "Unspecified",
  [LifecycleHook.ON_SESSION_START]: "OnSessionStart",
  [LifecycleHook.ON_SESSION_END]: "OnSessionEnd",
  [LifecycleHook.PRE_TURN]: "PreTurn",
  [LifecycleHook.POST_TURN]: "PostTurn",
  [LifecycleHook.PRE_TOOL]: "PreTool",
  [LifecycleHook.POST_TOOL]: "PostTool",
  [LifecycleHook.ON_TOOL_ERROR]: "OnToolError",
  [LifecycleHook.ON_COMPACTION]: "OnCompaction",
  [LifecycleHook.STOP]: "Stop",
};

/** Fields of a PRE_TOOL / POST_TOOL / ON_TOOL_ERROR call (§10). */
export interface ToolHookTarget {
  toolName: string;
  callId: string;
  trajectoryId: string;
  stepIndex: number;
  serverName?: string;
}

/**
 * The `PreToolArgs` of a call (§10 PRE_TOOL hooks, §12 policy decision requests): its target and
 * its arguments as JSON text. The one place the harness builds them.
 */
export function preToolArgs(
  target: ToolHookTarget,
  args: Record<string, unknown>,
): MessageInitShape<typeof PreToolArgsSchema> {
  return { ...target, argumentsJson: JSON.stringify(args) };
}

/** What the STOP hook is told about the turn that is about to end (protocol.md `StopArgs`). */
export interface StopHookArgs {
  responseText: string;
  trajectoryId: string;
  /** How many times a CONTINUE already resumed this turn. */
  continuationCount: number;
  /** Set when a budget ends the turn. */
  stopReason?: TrajectoryStateUpdate_StopReason;
  /** Set when an error ends the turn. */
  errorMessage?: string;
}

/** The answer of the STOP hook: stop, or continue with `reason` as a system message to the model. */
export type StopHookDecision = { continue: false; warning?: string } | { continue: true; reason: string };

/** The answer of the PRE_TOOL hook. */
export type PreToolDecision =
  | { allow: true; modifiedArgs?: Record<string, unknown> }
  | { allow: false; reason: string };

/**
 * Lifecycle hook RPCs (§10): `callHookRequest` for the types listed in `enabledHooks`, answered by
 * `callHookResponse` with the same `requestId`. Several may be outstanding at once.
 */
export class HookCaller {
  readonly replies = new PendingReplies<CallHookResponse>();
  #next = 0;

  constructor(private readonly enabledHooks: ReadonlySet<LifecycleHook>) {}

  /** Whether the client registered hooks of this type. */
  enabled(type: LifecycleHook): boolean {
    return this.enabledHooks.has(type);
  }

  /** Sends one hook request and waits for its answer; undefined when the type is not enabled. */
  async call(
    type: LifecycleHook,
    args: HookArgs,
    send: SendOutput,
    signal: AbortSignal,
  ): Promise<CallHookResponse | undefined> {
    if (!this.enabled(type)) return undefined;
    const requestId = `hook-${++this.#next}`;
    const reply = this.replies.wait(requestId, signal);
    send({
      case: "callHookRequest",
      value: { requestId, name: HOOK_NAMES[type], type, ...definedProperties({ args }) },
    });
    return reply;
  }

  /** PRE_TURN: a DENY (or a failed hook) cancels the turn with the reason (§6.2). */
  async preTurn(
    userInput: UserInput,
    trajectoryId: string,
    send: SendOutput,
    signal: AbortSignal,
  ): Promise<{ allow: true } | { allow: false; reason: string }> {
    const response = await this.call(
      LifecycleHook.PRE_TURN,
      { case: "preTurnArgs", value: { userInput, trajectoryId } },
      send,
      signal,
    );
    if (response?.result.case === "errorMessage") return { allow: false, reason: response.result.value };
    if (response?.result.case === "preTurnResult" && response.result.value.decision === PreTurnResult_Decision.DENY) {
      return { allow: false, reason: response.result.value.reason || "turn denied by the PRE_TURN hook" };
    }
    return { allow: true };
  }

  /**
   * PRE_TOOL: DENY blocks the call; ALLOW may carry `modifiedArgs` (upstream localharness.proto
   * @257f843a; a 0.1.14 client's `modifiedArgumentsJson` arrives renamed by readFrameOfEitherEra),
   * shallow-merged over the arguments (§10). A hook that failed (`errorMessage`) blocks the call: fail closed.
   */
  async preTool(
    target: ToolHookTarget,
    args: Record<string, unknown>,
    send: SendOutput,
    signal: AbortSignal,
  ): Promise<PreToolDecision> {
    const response = await this.call(
      LifecycleHook.PRE_TOOL,
      { case: "preToolArgs", value: preToolArgs(target, args) },
      send,
      signal,
    );
    if (response === undefined) return { allow: true };
    if (response.result.case === "errorMessage") return { allow: false, reason: response.result.value };
    if (response.result.case !== "preToolResult") return { allow: true };
    const result = response.result.value;
    if (result.decision === PreToolResult_Decision.DENY)
      return { allow: false, reason: result.reason || "denied by the PRE_TOOL hook" };
    if (result.modifiedArgs === undefined) return { allow: true };
    return { allow: true, modifiedArgs: plainOfStruct(result.modifiedArgs) };
  }

  /** POST_TOOL: observe only. `result` is the JSON the model sees. */
  async postTool(
    target: ToolHookTarget,
    outcome: { result?: string; error?: string },
    send: SendOutput,
    signal: AbortSignal,
  ): Promise<void> {
    await this.call(LifecycleHook.POST_TOOL, { case: "postToolArgs", value: { ...target, ...outcome } }, send, signal);
  }

  /** ON_TOOL_ERROR: a non-empty `customErrorMessage` replaces the error the model sees (§10). */
  async onToolError(
    target: ToolHookTarget,
    errorMessage: string,
    send: SendOutput,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const response = await this.call(
      LifecycleHook.ON_TOOL_ERROR,
      { case: "onToolErrorArgs", value: { ...target, errorMessage } },
      send,
      signal,
    );
    const custom = response?.result.case === "onToolErrorResult" ? response.result.value.customErrorMessage : undefined;
    return custom === undefined || custom === "" ? undefined : custom;
  }

  /**
   * STOP (protocol.md `StopArgs` / `StopResult`, newest upstream localharness.proto): asked when
   * the agent is about to end its turn. CONTINUE resumes the turn with `reason`; ALLOW_STOP, no
   * answer, an unknown decision or a failed hook (`errorMessage`) let it stop — failing safe, a
   * broken hook never keeps an agent running — and a failure comes back as `warning`.
   */
  async stop(args: StopHookArgs, send: SendOutput, signal: AbortSignal): Promise<StopHookDecision> {
    const response = await this.call(LifecycleHook.STOP, { case: "stopArgs", value: args }, send, signal);
    if (response?.result.case === "errorMessage")
      return { continue: false, warning: `the STOP hook failed (${response.result.value}); the turn stops` };
    if (response?.result.case !== "stopResult" || response.result.value.decision !== StopResult_Decision.CONTINUE)
      return { continue: false };
    return { continue: true, reason: response.result.value.reason ?? "" };
  }
}
