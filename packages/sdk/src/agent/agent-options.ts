import type { HarnessConfigOptions } from "../config/harness-config.js";
import type { AgentPreset } from "../config/presets.js";
import type { LocalPathResolver } from "../config/workspace-path.js";
import type { ConnectionStrategy } from "./connection-strategy.js";
import type { ResumeGuard } from "../continuation/consumed-confirmations.js";
import type { ContinuationSecret } from "../continuation/continuation-signing.js";
import type { ConversationStore } from "../conversation/conversation-store.js";
import type { SdkError } from "../errors.js";
import type { Hook } from "../hooks/hook.js";
import type { PolicyLike } from "../policies/policy.js";
import type { Logger } from "../telemetry/logger.js";
import type { OtelContext, OtelTracer } from "../telemetry/otel-shapes.js";
import type { Tool } from "../tools/tool.js";
import type { Transport } from "../transport/transport.js";
import type { Trigger } from "../triggers/trigger.js";

/** Who is connecting: sent to the harness in the stdio handshake (protocol §3 `ClientInfo`). */
export interface ClientInfo {
  language: string;
  version: string;
  languageVersion?: string;
  os?: string;
  osVersion?: string;
}

/** What a {@link TransportFactory} gets to build a transport for one agent session. */
export interface TransportContext {
  clientInfo: ClientInfo;
  /** The agent's `logger` option, for the transport's diagnostics (e.g. the harness's stderr lines). */
  logger?: Logger;
}

/**
 * Builds the transport of a session; `@antigravity-ts/node` supplies one that spawns the harness
 * (`subprocessTransportFactory`, which also takes what only a spawned harness needs: its path,
 * environment and save directory). A factory that starts the runtime's own harness says so with
 * `startsHarness: true`: the agent then sends the runtime's default `appDataDir`, as it does
 * when no transport was set.
 */
export type TransportFactory = ((context: TransportContext) => Transport) & { readonly startsHarness?: boolean };

/** Defaults a runtime package gives {@link Agent.builder} (e.g. `@antigravity-ts/node`). */
export interface AgentBuilderDefaults {
  /** Used when the builder sets no transport. */
  defaultTransport?: TransportFactory;
  /** Used when the builder sets no workspaces and the harness is the runtime's own (no transport, or a factory with `startsHarness`), e.g. the process's working directory. */
  defaultWorkspaces?: () => string[];
  /** Resolves local workspace paths (`~`, relative paths) once `file://` URIs became paths. */
  resolveWorkspace?: LocalPathResolver;
  /** Used when the builder sets no `appDataDir` and the harness is the runtime's own (no transport, or a factory with `startsHarness`). */
  defaultAppDataDir?: () => string;
  /**
   * Fills options from the runtime's environment at `start()` (e.g. Vertex settings, see
   * `vertexFromEnvironment`); what the builder set explicitly must win.
   */
  fromEnvironment?: (options: AgentOptions) => AgentOptions;
}

/**
 * What `new Agent(options)` and `run()` take: {@link AgentOptions} with the policies chosen
 * explicitly, as `build()` requires (`[allowAll()]`, `[readOnly()]`, `[confirmRunCommand()]`, …).
 */
export interface AgentOptionsWithPolicy extends AgentOptions {
  policies: readonly PolicyLike[];
}

/** Everything an agent is configured with (antigravity-api.md §2.1, §3.3). */
export interface AgentOptions extends HarnessConfigOptions {
  tools?: readonly Tool[];
  hooks?: readonly Hook[];
  triggers?: readonly Trigger[];
  /** Policies in declaration order; nested lists are flattened. Unset: `confirmRunCommand()`. */
  policies?: readonly PolicyLike[];
  /** A transport, or a factory called at `start()`: the localharness shorthand of `connection: localHarness(transport)`. Unset: the builder's default. */
  transport?: Transport | TransportFactory;
  /** How the agent reaches its runtime: the wire and what it can do ({@link ConnectionStrategy}). Exclusive with `transport`. */
  connection?: ConnectionStrategy;
  /** Steps kept in the conversation's history (default 10,000; 0 = unlimited). */
  maxHistorySize?: number;
  /** Where the conversation is persisted: restored at `start()`, saved after every turn. */
  conversationStore?: ConversationStore;
  /** Receives frames the SDK could not decode (default: `console.warn`). */
  onProtocolError?: (error: SdkError, frame: string) => void;
  /**
   * Signs the continuations of paused turns and is required to resume them (HMAC-SHA-256 via
   * WebCrypto, at least 32 bytes; docs/continuations.md). Without it continuations are unsigned.
   */
  continuationSecret?: ContinuationSecret;
  /**
   * Refuses a second resume of one continuation (`agent.resume`); default: one guard shared by
   * the agents of this process. Give a {@link ResumeGuard} backed by a shared store to refuse
   * replays across processes too (docs/continuations.md).
   */
  resumeGuard?: ResumeGuard;
  /** Receives the SDK's warnings (and, from `@antigravity-ts/node`, the harness's stderr lines). Default: `console`. */
  logger?: Logger;
  /** An OpenTelemetry `Tracer`: the session gets GenAI spans (`invoke_agent`, `chat`, `execute_tool`). */
  tracer?: OtelTracer;
  /** The context the session's `invoke_agent` span starts in (e.g. `context.active()`); default: a new trace. */
  traceContext?: OtelContext;
  /**
   * Upstream's configuration presets (`eval()`, `lightweight()` of the builder), applied at
   * `start()` in order, each filling only the options still unset.
   */
  presets?: readonly AgentPreset[];
}
