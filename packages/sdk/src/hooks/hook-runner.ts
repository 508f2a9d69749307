import type { MessageInitShape } from "@bufbuild/protobuf";
import type { QuestionResponse } from "../step.js";
import { ErrorCode, SdkError } from "../errors.js";
import { sdkToolName, toolCallFromPreToolArgs } from "../mapping/canonical-tool-call.js";
import type { HarnessConfig, CallHookRequest, CallHookResponseSchema, PreToolArgs, UserInput } from "../wire/index.js";
import {
  LifecycleHook,
  PreToolResult_Decision,
  PreTurnResult_Decision,
  StopResult_Decision,
} from "../wire/wire-enums.gen.js";
import { stopReasonFromWire } from "../mapping/usage-from-wire.js";
import { HookContexts } from "./hook-context.js";
import { validateHook } from "./validate-hook.js";
import type { Hook, HookLocation, HookToolCall, PreToolDecision, Question, StopArgs } from "./hook.js";
import { isRecord, parseJsonOrText } from "../util/json-value.js";
import { structInitOf } from "../wire/genai-struct.js";
import { errorText } from "../error-text.js";
import { definedProperties } from "../defined-properties.js";

type CallHookResponseInit = MessageInitShape<typeof CallHookResponseSchema>;
type HookResultInit = Exclude<Extract<CallHookResponseInit, { requestId?: unknown }>["result"], undefined>;

/** The hook method behind each lifecycle hook type the harness can call (protocol §10). */
const METHOD_OF: ReadonlyArray<readonly [LifecycleHook, keyof Hook]> = [
  [LifecycleHook.ON_SESSION_START, "onSessionStart"],
  [LifecycleHook.ON_SESSION_END, "onSessionEnd"],
  [LifecycleHook.PRE_TURN, "preTurn"],
  [LifecycleHook.POST_TURN, "postTurn"],
  [LifecycleHook.PRE_TOOL, "preToolCall"],
  [LifecycleHook.POST_TOOL, "postToolCall"],
  [LifecycleHook.ON_TOOL_ERROR, "onToolError"],
  [LifecycleHook.ON_COMPACTION, "onCompaction"],
  [LifecycleHook.STOP, "stop"],
];

/** What an ON_COMPACTION hook reads when the harness sends no summary (upstream's step content). */
export const DEFAULT_COMPACTION_SUMMARY = "Context compaction";

/** The outcome of running every PRE_TOOL hook on a call. */
export interface PreToolOutcome {
  allow: boolean;
  reason?: string;
  /** The arguments after every hook's `modifiedArgs` were merged, when any hook changed them. */
  modifiedArgs?: unknown;
}

/**
 * Runs the user's hooks in registration order and answers the harness's `callHookRequest`s
 * (protocol §10): echoes `requestId`, sets exactly one result, turns a throwing hook into
 * `errorMessage: "Hook failed: …"`, and answers unknown types with `emptyResult`. Hooks share
 * state through the {@link HookContexts} it keeps (session / turn / operation).
 *
 * @example
 * const runner = new HookRunner([{ postTurn: (text) => console.log(text) }]);
 * runner.enabledHooks(); // [LifecycleHook.POST_TURN]
 */
export class HookRunner {
  readonly #hooks: Hook[] = [];
  /** The session, turn and operation contexts handed to the hooks. */
  readonly contexts = new HookContexts();

  constructor(hooks: Iterable<Hook> = []) {
    for (const hook of hooks) this.register(hook);
  }

  /** Adds a hook after the ones already registered; `InvalidArgument` if it is not a hook. */
  register(hook: Hook): this {
    validateHook(hook);
    this.#hooks.push(hook);
    return this;
  }

  /** Number of registered hooks. */
  get size(): number {
    return this.#hooks.length;
  }

  /** Lifecycle types with at least one registered hook: `HarnessConfig.enabledHooks` (§5.1). */
  enabledHooks(): HarnessConfig["enabledHooks"] {
    return METHOD_OF.filter(([, method]) => this.#with(method).length > 0).map(([type]) => type);
  }

  /** True when some hook implements `method`. */
  has(method: keyof Hook): boolean {
    return this.#with(method).length > 0;
  }

  /** Answers one `callHookRequest`. Never throws. */
  async handle(request: CallHookRequest): Promise<CallHookResponseInit> {
    const requestId = request.requestId ?? "";
    try {
      return { requestId, result: await this.#dispatch(request) };
    } catch (error) {
      return { requestId, result: { case: "errorMessage", value: `Hook failed: ${errorText(error)}` } };
    }
  }

  /**
   * Runs PRE_TOOL hooks on a call: in order, any deny stops, `modifiedArgs` are shallow-merged
   * over the arguments and the next hook sees the merged ones (upstream ≥0.1.13). Throws what a hook throws.
   */
  async preToolCall(call: HookToolCall): Promise<PreToolOutcome> {
    let args = call.args;
    let modified = false;
    const context = this.contexts.operation(call.id);
    for (const hook of this.#with("preToolCall")) {
      const decision: PreToolDecision | undefined | void = await hook.preToolCall?.({ ...call, args }, context);
      if (decision === undefined) continue;
      if (!decision.allow)
        return decision.reason === undefined ? { allow: false } : { allow: false, reason: decision.reason };
      if (decision.modifiedArgs !== undefined) {
        args = isRecord(args) ? { ...args, ...decision.modifiedArgs } : { ...decision.modifiedArgs };
        modified = true;
      }
    }
    return modified ? { allow: true, modifiedArgs: args } : { allow: true };
  }

  /** Asks `onInteraction` hooks for answers; the first hook that returns some wins. */
  async onInteraction(questions: Question[], location: HookLocation): Promise<QuestionResponse | undefined> {
    const context = this.contexts.operation();
    for (const hook of this.#with("onInteraction")) {
      const answer = await hook.onInteraction?.(questions, location, context);
      if (answer !== undefined) return answer;
    }
    return undefined;
  }

  /** Runs every hook implementing `method` (for hooks that only observe). */
  async #each(method: keyof Hook, run: (hook: Hook) => unknown): Promise<void> {
    for (const hook of this.#with(method)) await run(hook);
  }

  #with(method: keyof Hook): Hook[] {
    return this.#hooks.filter((hook) => typeof hook[method] === "function");
  }

  async #dispatch(request: CallHookRequest): Promise<HookResultInit> {
    const empty = { case: "emptyResult", value: {} } as const;
    const args = request.args;
    switch (request.type) {
      case LifecycleHook.ON_SESSION_START:
        await this.#each("onSessionStart", (h) => h.onSessionStart?.(this.contexts.session));
        return empty;
      case LifecycleHook.ON_SESSION_END:
        await this.#each("onSessionEnd", (h) => h.onSessionEnd?.(this.contexts.session));
        return empty;
      case LifecycleHook.PRE_TURN: {
        const a = args.case === "preTurnArgs" ? args.value : undefined;
        const prompt = promptText(a?.userInput);
        const location = { trajectoryId: a?.trajectoryId ?? "" };
        // upstream HookRouter._handle_pre_turn: each PRE_TURN starts the turn's context.
        const context = this.contexts.startTurn();
        for (const hook of this.#with("preTurn")) {
          const decision = await hook.preTurn?.(prompt, location, context);
          if (decision !== undefined && !decision.allow) {
            return {
              case: "preTurnResult",
              value: {
                decision: PreTurnResult_Decision.DENY,
                reason: decision.reason ?? "Turn denied by a pre-turn hook.",
              },
            };
          }
        }
        return { case: "preTurnResult", value: { decision: PreTurnResult_Decision.ALLOW } };
      }
      case LifecycleHook.POST_TURN: {
        const a = args.case === "postTurnArgs" ? args.value : undefined;
        const context = this.contexts.turn();
        try {
          await this.#each("postTurn", (h) =>
            h.postTurn?.(a?.responseText ?? "", { trajectoryId: a?.trajectoryId ?? "" }, context),
          );
        } finally {
          this.contexts.endTurn(); // upstream HookRouter._handle_post_turn
        }
        return empty;
      }
      case LifecycleHook.PRE_TOOL: {
        const outcome = await this.preToolCall(hookToolCall(args.case === "preToolArgs" ? args.value : undefined));
        if (!outcome.allow) {
          return {
            case: "preToolResult",
            value: { decision: PreToolResult_Decision.DENY, reason: outcome.reason ?? "Denied by a pre-tool hook." },
          };
        }
        return {
          case: "preToolResult",
          value:
            outcome.modifiedArgs === undefined
              ? { decision: PreToolResult_Decision.ALLOW }
              : { decision: PreToolResult_Decision.ALLOW, modifiedArgs: structInitOf(outcome.modifiedArgs ?? {}) },
        };
      }
      case LifecycleHook.POST_TOOL: {
        // Upstream `hook_router._handle_post_tool`: the SDK tool name; a call that failed has an
        // `error` and no `result`, whatever text the harness put in `result`; a result that is
        // not a JSON object stays the harness's text (postToolResult).
        const a = args.case === "postToolArgs" ? args.value : undefined;
        const result = {
          ...location(a),
          id: a?.callId ?? "",
          name: sdkToolName(a?.toolName ?? "", a?.serverName),
          ...(a?.serverName ? { serverName: a.serverName } : {}),
          ...(a?.error ? { error: a.error } : a?.result ? { result: postToolResult(a.toolName ?? "", a.result) } : {}),
        };
        const context = this.contexts.operation(result.id);
        await this.#each("postToolCall", (h) => h.postToolCall?.(result, context));
        return empty;
      }
      case LifecycleHook.ON_TOOL_ERROR: {
        // Upstream `hook_router._handle_on_tool_error`: the SDK tool name, "Tool failed" for an
        // empty message, and a replacement only when it is not blank (sent trimmed).
        const a = args.case === "onToolErrorArgs" ? args.value : undefined;
        const error = {
          ...location(a),
          id: a?.callId ?? "",
          name: sdkToolName(a?.toolName ?? "", a?.serverName),
          ...(a?.serverName ? { serverName: a.serverName } : {}),
          message: a?.errorMessage || "Tool failed",
        };
        const context = this.contexts.operation(error.id);
        for (const hook of this.#with("onToolError")) {
          let replacement: unknown;
          try {
            replacement = await hook.onToolError?.(error, context);
          } catch {
            // Upstream `HookRunner.dispatch_on_tool_error` ends the recovery ("Error recovery
            // failed") and the router answers emptyResult: the tool's own error stands
            // (hook_runner_test.py `test_dispatch_on_tool_error_exception`).
            return empty;
          }
          if (typeof replacement === "string" && replacement.trim() !== "") {
            return { case: "onToolErrorResult", value: { customErrorMessage: replacement.trim() } };
          }
        }
        return empty;
      }
      case LifecycleHook.ON_COMPACTION: {
        const a = args.case === "onCompactionArgs" ? args.value : undefined;
        // Upstream `hook_router._handle_on_compaction`: an empty summary reads "Context compaction".
        const event = {
          trajectoryId: a?.trajectoryId ?? "",
          stepIndex: a?.stepIndex ?? 0,
          summary: a?.summary || DEFAULT_COMPACTION_SUMMARY,
        };
        const context = this.contexts.turn();
        await this.#each("onCompaction", (h) => h.onCompaction?.(event, context));
        return empty;
      }
      case LifecycleHook.STOP: {
        const a = args.case === "stopArgs" ? args.value : undefined;
        const stopReason = stopReasonFromWire(a?.stopReason);
        const event: StopArgs = {
          trajectoryId: a?.trajectoryId ?? "",
          responseText: a?.responseText ?? "",
          continuationCount: a?.continuationCount ?? 0,
          ...definedProperties({ stopReason }),
          ...(a?.errorMessage ? { errorMessage: a.errorMessage } : {}),
        };
        const context = this.contexts.turn();
        for (const hook of this.#with("stop")) {
          const result = await hook.stop?.(event, context);
          if (result?.decision !== "CONTINUE") continue;
          // Upstream's StopHookResult refuses a CONTINUE without a reason (types_test.py, Stars1233 @4bfe2531
          // test_stop_hook_result_continue_requires_non_empty_reason): the hook fails, and a failed STOP hook stops.
          if (typeof result.reason !== "string" || result.reason.trim() === "")
            throw new SdkError(
              ErrorCode.InvalidArgument,
              "a STOP hook's CONTINUE needs a non-empty reason for the model",
            );
          return { case: "stopResult", value: { decision: StopResult_Decision.CONTINUE, reason: result.reason } };
        }
        return { case: "stopResult", value: { decision: StopResult_Decision.ALLOW_STOP } };
      }
      default:
        return empty; // §10: unknown type → emptyResult
    }
  }
}

/**
 * The call a `PreToolArgs` describes, in the canonical spelling policies, steps and chunks use
 * (upstream `hook_router._handle_pre_tool`: SDK tool name, `file://` / `cns://` paths normalised).
 */
function hookToolCall(a: PreToolArgs | undefined): HookToolCall {
  return { ...toolCallFromPreToolArgs(a), ...location(a) };
}

function location(a: { trajectoryId?: string | undefined; stepIndex?: number | undefined } | undefined): HookLocation {
  return a?.stepIndex === undefined
    ? { trajectoryId: a?.trajectoryId ?? "" }
    : { trajectoryId: a.trajectoryId ?? "", stepIndex: a.stepIndex };
}

/** The text parts of a user input, joined (what a PRE_TURN hook sees as the prompt). */
function promptText(input: UserInput | undefined): string {
  return (input?.parts ?? []).flatMap((part) => (part.part.case === "text" ? [part.part.value] : [])).join("\n");
}

/**
 * What a POST_TOOL hook reads as a result (upstream `hook_router._handle_post_tool` with
 * `_extract_result`): a JSON object as the object; anything else — a number, a list, null, text
 * that is not JSON, a `list_directory` result whose `results` is not a list — as the harness's
 * text (hook_router_test.py `test_handle_post_tool_mcp`, `test_extract_non_dict_json_returns_fallback_str`,
 * `test_extract_null_results_returns_fallback_str`).
 */
function postToolResult(toolName: string, text: string): unknown {
  const value = parseJsonOrText(text);
  if (!isRecord(value)) return text;
  if (toolName === "list_directory" && !Array.isArray(value["results"])) return text;
  return value;
}
