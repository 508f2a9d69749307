import { ErrorCode, SdkError } from "../errors.js";
import type { ToolCall } from "../step.js";
import { definedProperties } from "../defined-properties.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { PolicyConfigSchema } from "../wire/index.js";

/** What a policy decides for a matching tool call (antigravity-api.md §2.8). */
export const Decision = { Allow: "allow", Deny: "deny", AskUser: "ask_user" } as const;
export type Decision = (typeof Decision)[keyof typeof Decision];

/** Narrows a policy to some calls; a policy whose predicate returns false does not match. */
export type PolicyPredicate = (call: ToolCall) => boolean | Promise<boolean>;

/**
 * Decides an ASK_USER policy: `true` lets the call run, `false` refuses it. `where` is the step
 * that carries the call, when the harness said it (protocol §12 `PreToolArgs.trajectory_id` /
 * `step_index`; the step itself for a confirmation, §8): `where.stepId` is the id steps, chunks
 * and events give a built-in or MCP call (§6.4), so an app can show the question beside the call
 * it already drew. `reason` says why the question is asked, as upstream passes it to its
 * handlers (`_execute_ask_user`, hooks/policy.py, Stars1233 @32f16939): the harness's own reason
 * when it gives one (`PolicyDecisionRequest.reason = 4`, localharness.proto @257f843a, e.g. a
 * safety assessment), else the policy's `reason`; absent when neither says anything.
 */
export type AskUserHandler = (call: ToolCall, where?: ToolCallLocation, reason?: string) => boolean | Promise<boolean>;

/** The step a tool call belongs to. */
export interface ToolCallLocation {
  readonly trajectoryId: string;
  readonly stepIndex: number;
  /** `trajectoryId:stepIndex`, the id of that step (and of its built-in or MCP call, §6.4). */
  readonly stepId: string;
}

/** Options shared by the policy constructors. */
export interface PolicyOptions {
  /** Shown in denial messages and sent as `PolicyRule.name`; defaults to the tool target. */
  name?: string;
  /** Only match calls for which this returns true (makes the rule dynamic, protocol §12). */
  when?: PolicyPredicate;
  /**
   * Text the model sees when this policy denies a call (for `askUser`, when the user refuses);
   * an `askUser` handler also gets it as its `reason`.
   */
  reason?: string;
}

/**
 * One rule about which tools may run. `tool` is a tool name (`"run_command"`), `"*"`, or an MCP
 * target `"server/tool"` / `"server/*"`. Policies are immutable; `when` and `withName` return copies.
 * Static policies are evaluated by the harness; predicates and ASK_USER handlers run in the SDK
 * when the harness asks (protocol §12).
 */
export interface Policy {
  readonly tool: string;
  readonly decision: Decision;
  readonly name: string;
  readonly reason?: string;
  readonly predicate?: PolicyPredicate;
  readonly handler?: AskUserHandler;
  /** Set on `workspaceOnly` markers: enforced by the harness, never evaluated here. */
  readonly workspaces?: readonly string[];
  /** Set on the {@link auto} policy: the harness's safety assessment decides, never evaluated here. */
  readonly auto?: AutoMode;
  /** A copy that only matches calls for which `predicate` returns true. */
  when(predicate: PolicyPredicate): Policy;
  /** A copy with another name. */
  withName(name: string): Policy;
}

/** What an {@link auto} policy asks of the harness (`PolicyConfig.auto_config`, localharness.proto @257f843a). */
export interface AutoMode {
  /** The model of the safety assessment (`AutoPolicyConfig.model`); absent: the harness's default. */
  readonly model?: string;
  /**
   * Sets `config.autoConfig` (what `toPolicyConfig` calls; refuses a second `auto()`). A method of
   * the policy, so that an app that never calls `auto()` does not download it.
   */
  readonly addTo: (config: MessageInitShape<typeof PolicyConfigSchema>) => void;
  /** Refuses, through `refuse`, a wire without auto policy mode (what `assertCapabilities` calls, for the same reason). */
  readonly assertWire: (
    wire: { readonly autoPolicy: boolean },
    refuse: (option: string, what: string) => never,
  ) => void;
}

/** A policy or a nested list of them (`confirmRunCommand()` and `readOnly()` return lists). */
export type PolicyLike = Policy | readonly PolicyLike[];

/** The name of the `workspaceOnly` marker policy. */
export const WORKSPACE_ONLY = "workspace_only";

/** Built-in tools that cannot change anything (protocol §11.1, upstream read-only set). */
export const READ_ONLY_TOOLS = [
  "list_directory",
  "search_directory",
  "find_file",
  "view_file",
  "read_url_content",
  "finish",
] as const;

interface PolicySpec {
  tool: string;
  decision: Decision;
  name?: string | undefined;
  reason?: string | undefined;
  predicate?: PolicyPredicate | undefined;
  handler?: AskUserHandler | undefined;
  workspaces?: readonly string[] | undefined;
  /** ASK_USER decided later, by whoever resumes the paused turn (no handler). */
  deferred?: boolean;
}

function makePolicy(spec: PolicySpec): Policy {
  // Runtime checks for JavaScript callers, whom no compiler stops (issue 10 item 13).
  if (typeof spec.tool !== "string" || spec.tool.trim() === "")
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `a policy needs a tool name, "*" or "server/tool" as a string, got ${describeValue(spec.tool)}`,
    );
  const target = JSON.stringify(spec.tool);
  if (spec.name !== undefined && typeof spec.name !== "string")
    invalidPolicy(`the name of the policy for ${target} must be a string, got ${describeValue(spec.name)}`);
  if (spec.reason !== undefined && typeof spec.reason !== "string")
    invalidPolicy(
      `the reason of the policy for ${target} must be a string (the model reads it), got ${describeValue(spec.reason)}`,
    );
  if (spec.predicate !== undefined && typeof spec.predicate !== "function")
    invalidPolicy(
      `when(...) of the policy for ${target} takes a function (call) => boolean, got ${describeValue(spec.predicate)}`,
    );
  if (spec.decision === Decision.AskUser && spec.deferred !== true && typeof spec.handler !== "function")
    invalidPolicy(
      `askUser(${target}, handler) needs a function (call) => boolean | Promise<boolean>, got ${describeValue(spec.handler)}`,
    );
  const policy: Policy = {
    tool: spec.tool,
    decision: spec.decision,
    name: spec.name ?? spec.tool,
    ...definedProperties({
      reason: spec.reason,
      predicate: spec.predicate,
      handler: spec.handler,
      workspaces: spec.workspaces,
    }),
    when: (predicate) => makePolicy({ ...spec, predicate }),
    withName: (name) => makePolicy({ ...spec, name }),
  };
  return Object.freeze(policy);
}

/**
 * Lets `tool` run.
 * @example allow("view_file")
 */
export function allow(tool: string, options: PolicyOptions = {}): Policy {
  return makePolicy({ tool, decision: Decision.Allow, name: options.name, predicate: options.when });
}

/**
 * Refuses `tool`; the model sees `reason` (default "Denied by policy '<name>'.").
 * @example deny("run_command", "no shell in CI")
 */
export function deny(tool: string, reason?: string, options: PolicyOptions = {}): Policy {
  return makePolicy({
    tool,
    decision: Decision.Deny,
    name: options.name,
    reason: reason ?? options.reason,
    predicate: options.when,
  });
}

/**
 * Asks `handler` before `tool` runs; `false` refuses the call.
 * @example askUser("run_command", (call) => confirm(`run ${JSON.stringify(call.args)}?`))
 */
export function askUser(tool: string, handler: AskUserHandler, options: PolicyOptions = {}): Policy {
  return makePolicy({
    tool,
    decision: Decision.AskUser,
    name: options.name,
    reason: options.reason,
    predicate: options.when,
    handler,
  });
}

/** Lets every tool run (name `"allow_all"`). */
export function allowAll(): Policy {
  return makePolicy({ tool: "*", decision: Decision.Allow, name: "allow_all" });
}

/** Refuses every tool not allowed by a more specific policy (name `"deny_all"`). */
export function denyAll(reason?: string): Policy {
  return makePolicy({ tool: "*", decision: Decision.Deny, name: "deny_all", reason });
}

/** Refuses everything except the read-only built-ins (protocol §11.1). */
export function readOnly(): Policy[] {
  return [denyAll(), ...READ_ONLY_TOOLS.map((tool) => allow(tool, { name: "read_only" }))];
}

/**
 * Asks for a decision on `tool` that the application gives later: the harness holds the call
 * waiting for confirmation (§8), the turn ends with `awaitingConfirmation` and a continuation,
 * and `agent.resume(continuation, { toolCallId, approved })` — in this process or another —
 * continues it (docs/continuations.md). A static ASK_USER rule: no predicate.
 *
 * @example Agent.builder().policies([deferToUser("run_command"), allowAll()])
 */
export function deferToUser(tool: string, options: Omit<PolicyOptions, "when"> = {}): Policy {
  return makePolicy({ tool, decision: Decision.AskUser, name: options.name, reason: options.reason, deferred: true });
}

/**
 * Allows everything but `run_command`, which is refused, or decided by `handler` when given
 * (upstream default policy, protocol §12).
 */
export function confirmRunCommand(handler?: AskUserHandler): Policy[] {
  const name = "confirm_run_command";
  const gate =
    handler === undefined
      ? makePolicy({ tool: "run_command", decision: Decision.Deny, name })
      : makePolicy({ tool: "run_command", decision: Decision.AskUser, name, handler });
  return [gate, makePolicy({ tool: "*", decision: Decision.Allow, name })];
}

/**
 * Marker asking the harness to keep file tools inside the agent's workspaces
 * (`policyConfig.workspaceContainment = ENABLED`, protocol §12). Not evaluated by the SDK.
 */
export function workspaceOnly(workspaces: readonly string[] = []): Policy {
  return makePolicy({ tool: "*", decision: Decision.Allow, name: WORKSPACE_ONLY, workspaces: [...workspaces] });
}

/** Options of {@link auto}. */
export interface AutoOptions {
  /** Asked when the safety assessment flags a call, with the assessor's reason; without one a flagged call is refused. */
  handler?: AskUserHandler;
  /** The Gemini model of the safety assessment; absent: the harness's default. */
  model?: string;
  /** Shown in denial messages; default `"auto"`. */
  name?: string;
}

/**
 * Auto policy mode (upstream 0.1.19 `policy.auto`, hooks/policy.py, Stars1233 @32f16939): the
 * harness assesses calls of tools with execution or network risk (shell commands, URL fetches)
 * before they run and blocks a flagged call, or asks `handler` with its reason. Read-only workspace
 * tools are not assessed; pair it with `workspaceOnly(...)` to contain file writes. Order, as
 * upstream's docstring gives it: specific tool and `server/*` rules first, then the assessment,
 * then the `"*"` rules (`allowAll()`, `denyAll()`) for what it does not assess. Sent as
 * `policyConfig.autoConfig`, not as a rule; at most one per agent. The reference harness has no
 * safety assessor and says so on stderr (docs/upstream-differences.md).
 *
 * @example Agent.builder().policies([auto({ handler: (call, _where, reason) => confirm(`${call.name}: ${reason}`) }), allowAll()])
 */
export function auto(options: AutoOptions = {}): Policy {
  const { handler, model } = options;
  if (model !== undefined && !(typeof model === "string" && model.trim() !== ""))
    invalidPolicy(`auto({ model }) needs a model name, got ${describeValue(model)}`);
  // As upstream's _to_policy_config_proto builds it (hooks/policy.py, Stars1233 @32f16939), which
  // local_connection.py @583e0413 _build_harness_config sends as policy_config: model "" for the default.
  const addTo: AutoMode["addTo"] = (config) => {
    if (config.autoConfig) invalidPolicy("Multiple AutoPolicy rules found: keep one auto()");
    config.autoConfig = { enabled: true, model: model ?? "" };
  };
  // The auto-only parts live here, not in makePolicy, so that only an app that uses auto() downloads them.
  return Object.freeze({
    ...makePolicy({
      tool: "*",
      decision: handler ? Decision.AskUser : Decision.Deny,
      name: options.name ?? "auto",
      handler,
    }),
    auto: Object.freeze({
      ...definedProperties({ model }),
      addTo,
      assertWire: (wire, refuse) => {
        if (!wire.autoPolicy) refuse(`policies (${options.name ?? "auto"}: auto())`, "auto policy mode");
      },
    } satisfies AutoMode),
    when: () => invalidPolicy("auto() takes no when(): the harness chooses what it assesses"),
    withName: (name: string) => auto({ ...options, name }),
  });
}

/** `"server/tool"` targets for an MCP server, or `"server/*"` when `tools` is omitted. */
function mcpTargets(server: string, tools?: readonly string[]): string[] {
  if (server.trim() === "" || server.includes("/")) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `invalid MCP server name ${JSON.stringify(server)}: it must be non-empty and contain no "/"`,
    );
  }
  return tools === undefined || tools.length === 0 ? [`${server}/*`] : tools.map((tool) => `${server}/${tool}`);
}

/** Allows the tools of an MCP server (all of them when `tools` is omitted). */
export function allowMcp(server: string, tools?: readonly string[], options: PolicyOptions = {}): Policy[] {
  return mcpTargets(server, tools).map((target) => allow(target, options));
}

/** Refuses the tools of an MCP server (all of them when `tools` is omitted). */
export function denyMcp(server: string, tools?: readonly string[], options: PolicyOptions = {}): Policy[] {
  return mcpTargets(server, tools).map((target) => deny(target, options.reason, options));
}

/** Asks `handler` before the tools of an MCP server run. */
export function askUserMcp(
  server: string,
  handler: AskUserHandler,
  tools?: readonly string[],
  options: PolicyOptions = {},
): Policy[] {
  return mcpTargets(server, tools).map((target) => askUser(target, handler, options));
}

function invalidPolicy(message: string): never {
  throw new SdkError(ErrorCode.InvalidArgument, message);
}

function describeValue(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : value === null ? "null" : typeof value;
}

/** Flattens nested policy lists, keeping declaration order (rule ids index this list). */
export function flattenPolicies(policies: readonly PolicyLike[]): Policy[] {
  const out: Policy[] = [];
  const visit = (item: PolicyLike): void => {
    if (isPolicyList(item)) item.forEach(visit);
    else if (isPolicy(item)) out.push(item);
    else
      invalidPolicy(
        `policies must be made with allow(), deny(), askUser(), allowAll(), denyAll(), readOnly(), confirmRunCommand(), workspaceOnly() or the *Mcp() helpers (or lists of them), got ${describeValue(item)}`,
      );
  };
  policies.forEach(visit);
  return out;
}

function isPolicy(item: unknown): item is Policy {
  if (typeof item !== "object" || item === null) return false;
  const p = item as Partial<Policy>;
  return (
    typeof p.tool === "string" && typeof p.name === "string" && Object.values(Decision).includes(p.decision as Decision)
  );
}

function isPolicyList(item: PolicyLike): item is readonly PolicyLike[] {
  return Array.isArray(item);
}

/** True for the `workspaceOnly` marker. */
export function isWorkspaceMarker(policy: Policy): boolean {
  return policy.workspaces !== undefined && policy.name === WORKSPACE_ONLY;
}

/** Splits a policy target into tool and MCP server (`"server/tool"`, `"server/*"`). */
export function splitTarget(target: string): { tool: string; serverName?: string } {
  const slash = target.indexOf("/");
  if (slash <= 0) return { tool: target };
  return { tool: target.slice(slash + 1), serverName: target.slice(0, slash) };
}

/** True when the policy must be decided by the SDK (a predicate, or ASK_USER), protocol §12. */
export function isDynamic(policy: Policy): boolean {
  // deferToUser: a static ASK_USER rule, so the harness asks a §8 confirmation the SDK can defer.
  return policy.predicate !== undefined || (policy.decision === Decision.AskUser && policy.handler !== undefined);
}
