import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SdkError } from "../errors.js";
import type { HookRunner } from "../hooks/hook-runner.js";
import { toPolicyConfig } from "../policies/policy-config.js";
import type { Policy } from "../policies/policy.js";
import type { ToolRunner } from "../tools/tool-runner.js";
import type { CallOptions } from "../call-options.js";
import type { Step, ToolCall } from "../step.js";
import type { HarnessConfig, HarnessConfigSchema, PolicyConfig, Tool } from "../wire/index.js";
import { cloneMessage, createMessage, isMessageOf } from "../wire/plain-message.js";
import type { Logger } from "../telemetry/logger.js";
import type { SessionTelemetry } from "./session-telemetry.js";
import type { Transport } from "../transport/transport.js";
import type { LocalharnessEra } from "../wire/wire-era.js";

/**
 * Decides a built-in tool waiting for confirmation (§8): `true` runs it, `false` refuses it,
 * `"defer"` leaves it unanswered and ends the turn with an `awaitingConfirmation` outcome
 * (docs/continuations.md), `"manual"` leaves it unanswered and the turn running: the caller
 * answers it with `sendToolConfirmation`.
 */
export type ConfirmTool = (call: ToolCall, step: Step) => ConfirmDecision | Promise<ConfirmDecision>;

/** What a {@link ConfirmTool} answers. */
export type ConfirmDecision = boolean | "defer" | "manual";

/** Options of {@link createHarnessConnection}. `signal`/`timeoutMs` bound connecting and the handshake. */
export interface HarnessConnectionOptions extends CallOptions {
  /** How to reach the harness. */
  transport: Transport;
  /** The session configuration sent as the first frame (§5). */
  config: HarnessConfig | MessageInitShape<typeof HarnessConfigSchema>;
  /** Client tools; declared in `config.tools` unless the config already lists tools. */
  tools?: ToolRunner;
  /** Hooks; declared in `config.enabledHooks` unless the config already lists hooks. */
  hooks?: HookRunner;
  /**
   * Flattened policies, for the harness's dynamic decisions (§12). Serialised into
   * `config.policyConfig` unless the config already has one — then its `rule_<index>` ids must
   * index this same list.
   */
  policies?: readonly Policy[];
  /** Decides built-in tool confirmations (§8). Default: accept (upstream ≥0.1.6; gating is harness-side). */
  confirmTool?: ConfirmTool;
  /** Receives frames that could not be decoded; the reader goes on. Default: `console.warn`. */
  onProtocolError?: (error: SdkError, frame: string) => void;
  /** How long `disconnect()` waits for the session-end hook round trip (§13). Default 5000 ms. */
  sessionEndTimeoutMs?: number;
  /**
   * How long connecting waits for the harness's `initializeConversationResponse` (§5) even when
   * `signal`/`timeoutMs` set no bound. Default 60,000 ms.
   */
  initializeTimeoutMs?: number;
  /** Receives the connection's warnings (ignored frames, failed confirmations, ...). Default: `console.warn`. */
  logger?: Logger;
  /** Spans for turns (`chat`) and client tool calls (`execute_tool`); see docs/agent.md "Observability". */
  telemetry?: SessionTelemetry;
  /**
   * The localharness wire era to write (docs/upstream-differences.md "wire eras"): `"0.1.19"`
   * (default, upstream's newest `localharness.proto`) or `"0.1.14"`. A harness says nothing of
   * its era before it reads the configuration, so the caller chooses; frames of either era are read.
   */
  wireEra?: LocalharnessEra;
}

const HARNESS_CONFIG = "antigravity.localharness.HarnessConfig";

/**
 * The config to send: a copy of `options.config` with tool declarations, enabled hooks and the
 * policy config filled in from the runners where the config leaves them empty.
 */
export function completeConfig(options: HarnessConnectionOptions): HarnessConfig {
  const config = isMessageOf<HarnessConfig>(options.config, HARNESS_CONFIG)
    ? cloneMessage(HARNESS_CONFIG, options.config)
    : createMessage<HarnessConfig>(HARNESS_CONFIG, options.config);
  if (options.tools !== undefined && config.tools.length === 0) {
    config.tools = options.tools
      .declarations()
      .map((tool) => createMessage<Tool>("antigravity.localharness.Tool", tool));
  }
  if (options.hooks !== undefined && config.enabledHooks.length === 0)
    config.enabledHooks = options.hooks.enabledHooks();
  if (options.policies !== undefined && options.policies.length > 0 && config.policyConfig === undefined) {
    config.policyConfig = createMessage<PolicyConfig>(
      "antigravity.localharness.PolicyConfig",
      toPolicyConfig(options.policies),
    );
  }
  return config;
}
