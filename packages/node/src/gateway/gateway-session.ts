import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { IncomingMessage } from "node:http";
import {
  type BuiltinTool,
  ErrorCode,
  SdkError,
  activeBuiltinTools,
  askUser,
  buildHarnessConfig,
  deny,
  toPolicyConfig,
  type HarnessConfigOptions,
} from "@antigravity-ts/sdk";
import { PolicyRuleSchema, create, type HarnessConfig, type PolicyRule } from "@antigravity-ts/sdk/wire";
import { DEFAULT_GATEWAY_TOOLS } from "./gateway-defaults.js";

/** The page behind one connection, as the operator's callbacks see it. */
export interface PageIdentity {
  /** The token the page presented (query or subprotocol). */
  token: string;
  /** The upgrade request (headers, remote address…). */
  request: IncomingMessage;
}

/** A policy target the operator pins: a tool (`"run_command"`), `"*"`, or an MCP target (`"server/tool"`, `"server/*"`). */
export type GatewayRuleTarget = string | { tool: string; reason?: string };

/**
 * The security-relevant half of every page's `HarnessConfig` (protocol §5.1), owned by the operator.
 * Pages configure the rest (their client tools, hooks, instructions, compaction…); what they send
 * for these fields is overridden or refused, as docs/gateway.md tabulates.
 */
export interface GatewaySessionOptions
  extends Pick<
    HarnessConfigOptions,
    "model" | "apiKey" | "models" | "mcpServers" | "systemInstructions" | "skillsPaths" | "appDataDir" | "budget"
  > {
  /** Absolute directories the sessions work in (required). A page may name some of them exactly; any other directory is refused. */
  workspaces: readonly string[];
  /** Keep file tools inside the workspaces (`WORKSPACE_CONTAINMENT_ENABLED`, §12). Default `true`; a page cannot turn it off. */
  workspaceContainment?: boolean;
  /** Built-in tools a page may enable. Default: the read-only ones plus `ask_question`. Others are switched off. */
  tools?: readonly BuiltinTool[];
  /**
   * Ceilings for `run_command`: the longest timeout a page gets (0 = the harness default, 10 min),
   * whether daemon commands are allowed (default no), and whether every page's commands run in the
   * harness's OS sandbox (`enableSandbox`, upstream `enable_sandbox`; default no, and a page may
   * still ask for it: it can only turn the sandbox on).
   */
  runCommand?: { maxTimeoutMs?: number; enableDaemonCommands?: boolean; enableSandbox?: boolean };
  /** Tools no page may run, whatever its policies say (prepended; page rules that could allow them are dropped). */
  deny?: readonly GatewayRuleTarget[];
  /** Tools that must be confirmed on the page before each call (`ASK_USER`, §8); page rules that would allow them outright are dropped. */
  ask?: readonly string[];
  /**
   * Whether the page may resume `cascadeId`, for ids not created through this gateway process with
   * the same token (those are always allowed). Default: refuse.
   */
  authorizeResume?: (cascadeId: string, page: PageIdentity) => boolean | Promise<boolean>;
  /** Called when a page's session is created, e.g. to record its owner for a later {@link authorizeResume}. */
  onSessionCreated?: (cascadeId: string, page: PageIdentity) => void;
}

/** The operator's options, validated and resolved once, at gateway creation. */
export interface SessionRules {
  /** `HarnessConfig` built from the operator's options by the SDK (§5.1); its pinned fields are copied into every page's config. */
  readonly template: HarnessConfig;
  readonly workspaces: readonly string[];
  readonly containment: boolean;
  readonly tools: ReadonlySet<BuiltinTool>;
  readonly runCommand: { maxTimeoutMs: number; enableDaemonCommands: boolean; enableSandbox: boolean };
  /** Static floor rules (§12): denies go before the page's rules, asks after them. */
  readonly denyRules: readonly PolicyRule[];
  readonly askRules: readonly PolicyRule[];
  readonly pinsSystemInstructions: boolean;
  readonly authorizeResume: GatewaySessionOptions["authorizeResume"];
  readonly onSessionCreated: GatewaySessionOptions["onSessionCreated"];
}

/**
 * Checks the operator's options and resolves them. Throws `SdkError` `InvalidArgument` naming the
 * option: no workspace, a relative or missing workspace directory, an unknown tool, a bad target.
 */
export async function resolveSessionRules(options: GatewaySessionOptions | undefined): Promise<SessionRules> {
  if (options === undefined || !Array.isArray(options.workspaces) || options.workspaces.length === 0) {
    invalid(
      "createHarnessGateway needs session.workspaces: the directories pages' sessions work in (a page cannot choose them)",
    );
  }
  const workspaces = await Promise.all(options.workspaces.map(checkedDirectory("session.workspaces")));
  const skillsPaths = await Promise.all((options.skillsPaths ?? []).map(checkedDirectory("session.skillsPaths")));
  const tools = activeBuiltinTools({ enabledTools: options.tools ?? DEFAULT_GATEWAY_TOOLS });
  const maxTimeoutMs = options.runCommand?.maxTimeoutMs ?? 0;
  if (!Number.isInteger(maxTimeoutMs) || maxTimeoutMs < 0)
    invalid(`session.runCommand.maxTimeoutMs must be an integer >= 0, got ${String(maxTimeoutMs)}`);
  const template = buildHarnessConfig({
    workspaces,
    skillsPaths,
    ...pick(options, ["model", "apiKey", "models", "mcpServers", "systemInstructions", "appDataDir", "budget"]),
  });
  return {
    template,
    workspaces,
    containment: options.workspaceContainment ?? true,
    tools,
    runCommand: {
      maxTimeoutMs,
      enableDaemonCommands: options.runCommand?.enableDaemonCommands ?? false,
      enableSandbox: options.runCommand?.enableSandbox ?? false,
    },
    denyRules: floorRules(
      (options.deny ?? []).map((target) =>
        typeof target === "string" ? deny(target) : deny(target.tool, target.reason),
      ),
    ),
    askRules: floorRules((options.ask ?? []).map((target) => askUser(target, () => false))),
    pinsSystemInstructions: template.systemInstructions !== undefined,
    authorizeResume: options.authorizeResume,
    onSessionCreated: options.onSessionCreated,
  };
}

/** Serialises floor policies with the SDK (§12) as static rules: the harness decides them, never a page. */
function floorRules(policies: Parameters<typeof toPolicyConfig>[0]): PolicyRule[] {
  return (toPolicyConfig(policies).rules ?? []).map((rule) =>
    create(PolicyRuleSchema, { ...rule, name: `gateway ${rule.name ?? ""}`.trim(), isDynamic: false, ruleId: "" }),
  );
}

function checkedDirectory(option: string): (directory: string) => Promise<string> {
  return async (directory) => {
    if (typeof directory !== "string" || !isAbsolute(directory))
      invalid(`${option} must be absolute directories, got ${JSON.stringify(directory)}`);
    const info = await stat(directory).catch(() => undefined);
    if (info?.isDirectory() !== true) invalid(`${option}: ${directory} is not a directory`);
    return resolve(directory);
  };
}

function pick<T extends object, K extends keyof T>(object: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (object[key] !== undefined) out[key] = object[key];
  return out;
}

function invalid(message: string): never {
  throw new SdkError(ErrorCode.InvalidArgument, message);
}
