import type { MessageInitShape, ToolResponse, UserQuestionsRequestSchema } from "@antigravity-ts/sdk/wire";
import { StepUpdate_State, errorText, definedProperties } from "@antigravity-ts/sdk/internal";
import { preToolArgs, type ToolHookTarget } from "./hook-caller.js";
import { MAX_MEDIA_BYTES, mediaByteLength, mediaFromWire, type ModelMedia } from "../model/media.js";
import type { ModelToolCall, ModelToolResult } from "../model/provider.js";
import { evaluatePolicy, policyRequestReason } from "./evaluate-policy.js";
import type { SessionState } from "./state.js";
import { modelStep, type StepFields, type StepHandle } from "../step-ledger.js";
import { ToolError, type BuiltinTool, type ToolContext } from "../tools/tool.js";
import { ToolWorkerPool } from "../tools/tool-pool.js";
import type { TurnScope } from "./turn-scope.js";
import { limitToolOutput } from "./tool-output-limit.js";

/**
 * Runs one tool call of the model (built-in or client-side) through the gates of §8, §10 and §12:
 *
 * 1. a step is opened (SOURCE_MODEL, TARGET_USER, ACTIVE) with the action of §11.2;
 * 2. policy rules (static here, dynamic via `policyDecisionRequest`); DENY → ERROR step;
 * 3. the PRE_TOOL hook (DENY → ERROR step; ALLOW may modify the arguments);
 * 4. a confirmation (WAITING_FOR_USER + `toolConfirmationRequest`) when a policy rule says
 *    ASK_USER, or in INTERACTIVE mode for run_command; refused → ERROR "denied by user";
 * 5. the call runs: file tools on a worker thread of the session's {@link ToolWorkerPool} (time
 *    limit; halt or disconnect terminates the worker), other built-ins here, custom tools via
 *    `toolCall`/`toolResponse` (§7);
 * 6. DONE or ERROR, then POST_TOOL, and ON_TOOL_ERROR on failure (its message replaces the
 *    error the model sees); a result over `toolOutputTruncation` is cut (or refused) first.
 *
 * Returns what the model sees. Throws only when the turn is aborted.
 */
export async function runToolCall(
  state: SessionState,
  scope: TurnScope,
  call: ModelToolCall,
): Promise<ModelToolResult> {
  const builtin = state.settings.builtins.get(call.name);
  const custom = state.settings.customTools.has(call.name);
  let args = call.args;
  const describe = (a: Record<string, unknown>): StepFields =>
    builtin ? builtin.describe(a) : custom ? { customTool: { toolCall: customCall(call, a, state.cascadeId) } } : {};
  const step = scope.openStep(modelStep(describe(args)));
  const result = (response: Record<string, unknown>): ModelToolResult => ({ id: call.id, name: call.name, response });
  const refuse = (message: string): ModelToolResult => {
    step.fail(message);
    return result({ error: message });
  };
  if (builtin === undefined && !custom)
    return refuse(`the model called ${JSON.stringify(call.name)}, which is not a tool of this session`);

  const target: ToolHookTarget = {
    toolName: call.name,
    callId: call.id,
    trajectoryId: state.cascadeId,
    stepIndex: step.index,
  };
  const verdict = await evaluatePolicy(
    state.settings.policyRules,
    { toolName: call.name, serverName: "" },
    async (rule) => {
      const requestId = state.nextPolicyRequestId();
      const reply = state.policyReplies.wait(requestId, scope.signal);
      scope.send({
        case: "policyDecisionRequest",
        value: {
          requestId,
          ruleId: rule.ruleId ?? "",
          toolArgs: preToolArgs(target, args),
          reason: policyRequestReason(rule, call.name),
        },
      });
      return reply;
    },
  );
  if (verdict.decision === "deny") return refuse(`denied by policy: ${verdict.reason}`);

  const pre = await state.hooks.preTool(target, args, scope.send, scope.signal);
  if (!pre.allow) return refuse(`denied by the PRE_TOOL hook: ${pre.reason}`);
  if (pre.modifiedArgs !== undefined) {
    args = { ...args, ...pre.modifiedArgs };
    step.update(describe(args));
  }

  if (verdict.decision === "ask" || (state.settings.interactive && call.name === "run_command")) {
    if (!(await confirm(state, scope, step))) return refuse("denied by user");
  }

  try {
    const outcome = builtin
      ? { response: await runBuiltin(state, scope, step, builtin, args) }
      : await runCustom(state, scope, step, call, args);
    // `toolOutputTruncation` limits what the model (and so the POST_TOOL hook) is given; the step keeps it all.
    const response = limitToolOutput(outcome.response, call.name, state.settings.toolOutputLimit);
    await state.hooks.postTool(target, { result: JSON.stringify(response) }, scope.send, scope.signal);
    return { ...result(response), ...definedProperties({ media: outcome.media }) };
  } catch (error) {
    if (scope.signal.aborted) throw scope.signal.reason;
    const message = errorText(error);
    if (!step.finished) step.fail(message);
    await state.hooks.postTool(target, { error: message }, scope.send, scope.signal);
    const replacement = await state.hooks.onToolError(target, message, scope.send, scope.signal);
    return result({ error: replacement ?? message });
  }
}

/** §8: WAITING_FOR_USER with an empty `toolConfirmationRequest`, sent twice (clients debounce), then wait. */
async function confirm(state: SessionState, scope: TurnScope, step: StepHandle): Promise<boolean> {
  const key = state.stepKey(state.cascadeId, step.index);
  const reply = state.confirmations.wait(key, scope.signal);
  step.update({ state: StepUpdate_State.WAITING_FOR_USER, toolConfirmationRequest: {} });
  step.update({});
  // Known while it waits: a client that disconnects and resumes gets the step again (session.ts).
  state.waitingConfirmations.set(key, step);
  const answer = await reply.finally(() => state.waitingConfirmations.delete(key));
  step.remove("toolConfirmationRequest");
  if (answer.accepted === true) step.update({ state: StepUpdate_State.ACTIVE });
  return answer.accepted === true;
}

async function runBuiltin(
  state: SessionState,
  scope: TurnScope,
  step: StepHandle,
  tool: BuiltinTool,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const context: ToolContext = {
    workspace: state.settings.workspace,
    env: state.settings.toolEnv,
    runCommandTimeoutMs: state.settings.runCommandTimeoutMs,
    sandbox: state.settings.commandSandbox,
    signal: scope.signal,
    tasks: state.tasks,
    daemonCommands: state.settings.daemonCommands,
    progress: (patch) => {
      // Progress updates are cumulative snapshots: while the client lags, the next one (or DONE) carries it all.
      if (!step.finished && !scope.congested) step.update({ ...patch, state: StepUpdate_State.ACTIVE });
    },
    askUser: async (request: MessageInitShape<typeof UserQuestionsRequestSchema>) => {
      const reply = state.questions.wait(state.stepKey(state.cascadeId, step.index), scope.signal);
      step.update({ state: StepUpdate_State.WAITING_FOR_USER, questionsRequest: request });
      const answer = await reply;
      step.update({ state: StepUpdate_State.ACTIVE });
      return answer;
    },
  };
  const outcome = ToolWorkerPool.runs(tool.name)
    ? await state.settings.toolWorkers.run({ tool: tool.name, args, workspace: context.workspace }, scope.signal)
    : await tool.run(args, context);
  step.update({ ...outcome.action, ...definedProperties({ text: outcome.text }), state: StepUpdate_State.DONE });
  return outcome.response;
}

/**
 * §7: `toolCall` to the client, wait for the `toolResponse` with the same id. Its
 * `supplementalMedia` reach the model inline beside the JSON (model/media.ts).
 */
async function runCustom(
  state: SessionState,
  scope: TurnScope,
  step: StepHandle,
  call: ModelToolCall,
  args: Record<string, unknown>,
): Promise<{ response: Record<string, unknown>; media?: ModelMedia[] }> {
  const toolCall = customCall(call, args, state.cascadeId);
  const reply = state.toolResponses.wait(call.id, scope.signal);
  scope.send({ case: "toolCall", value: toolCall });
  const response: ToolResponse = await reply;
  const finished = { toolCall, toolResponse: response };
  if (response.errorMessage !== undefined && response.errorMessage !== "") {
    step.fail(response.errorMessage, { customTool: finished });
    throw new ToolError(response.errorMessage);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.responseJson ?? "{}");
  } catch {
    const message = `the client's toolResponse for ${call.name} has a responseJson that is not JSON`;
    step.fail(message, { customTool: finished });
    throw new ToolError(message);
  }
  const media = supplementalMedia(response, call.name);
  if (typeof media === "string") {
    step.fail(media, { customTool: finished });
    throw new ToolError(media);
  }
  step.update({ state: StepUpdate_State.DONE, customTool: finished });
  const object =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { result: parsed };
  return media.length === 0 ? { response: object } : { response: object, media };
}

/** The media of a client tool's response, or why they cannot reach the model. */
function supplementalMedia(response: ToolResponse, tool: string): ModelMedia[] | string {
  const media: ModelMedia[] = [];
  for (const [index, item] of response.supplementalMedia.entries()) {
    const medium = mediaFromWire(item, `supplementalMedia[${index}] of the client's toolResponse for ${tool}`);
    if (typeof medium === "string") return medium;
    media.push(medium);
  }
  const bytes = media.reduce((sum, m) => sum + mediaByteLength(m), 0);
  if (bytes > MAX_MEDIA_BYTES)
    return `the client's toolResponse for ${tool} has ${bytes} bytes of supplementalMedia, more than the ${MAX_MEDIA_BYTES} one response may carry`;
  return media;
}

/** The `toolCall` frame (§7), with the trajectory it belongs to (`ToolCall.trajectory_id`, localharness.proto @257f843a; left out for a 0.1.14 client). */
function customCall(
  call: ModelToolCall,
  args: Record<string, unknown>,
  trajectoryId: string,
): { id: string; name: string; argumentsJson: string; trajectoryId: string } {
  return { id: call.id, name: call.name, argumentsJson: JSON.stringify(args), trajectoryId };
}
