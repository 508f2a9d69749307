import type { CallOptions } from "../call-options.js";
import { LOCALHARNESS_CAPABILITIES, type ConnectionCapabilities } from "../connection/capabilities.js";
import type { Connection } from "../connection/connection.js";
import type { ConfirmTool } from "../connection/harness-connection-options.js";
import { createHarnessConnection } from "../connection/harness-connection.js";
import type { SessionTelemetry } from "../connection/session-telemetry.js";
import type { SdkError } from "../errors.js";
import type { HookRunner } from "../hooks/hook-runner.js";
import type { Policy } from "../policies/policy.js";
import type { Logger } from "../telemetry/logger.js";
import type { ToolRunner } from "../tools/tool-runner.js";
import type { Transport } from "../transport/transport.js";
import type { HarnessConfig } from "../wire/index.js";
import type { LocalharnessEra } from "../wire/wire-era.js";
import type { TransportContext, TransportFactory } from "./agent-options.js";

/** What an agent hands its connection strategy for one session. */
export interface ConnectionRequest {
  /** The session's configuration, resolved from the agent's options (protocol §5.1; other wires translate what they can). */
  readonly config: HarnessConfig;
  readonly tools: ToolRunner;
  readonly hooks: HookRunner | undefined;
  readonly policies: readonly Policy[];
  /** Decides tool confirmations: the agent's policies and hooks (and `agent.resume`'s held call). */
  readonly confirmTool: ConfirmTool;
  readonly logger: Logger | undefined;
  readonly telemetry: SessionTelemetry | undefined;
  readonly onProtocolError: ((error: SdkError, frame: string) => void) | undefined;
  /** For a strategy that makes its transport per session (a {@link TransportFactory}). */
  readonly transportContext: TransportContext;
}

/**
 * How an agent reaches its agent runtime: which wire, what that wire can do, and how to open a
 * session over it. `Agent.builder().connection(strategy)`; `.transport(t)` is the localharness
 * shorthand, `.connection(localHarness(t))`. The builder checks the agent's options against
 * `capabilities` at `build()` and `start()`: an option the wire cannot honour is refused with
 * `Unsupported`, naming the option and the wire.
 */
export interface ConnectionStrategy {
  readonly capabilities: ConnectionCapabilities;
  /** True when the strategy starts the runtime's own harness (the runtime's defaults — workspace, app data dir — then apply). */
  readonly startsHarness?: boolean;
  /** Opens a session; rejects with a typed `SdkError`, leaving nothing running. */
  connect(request: ConnectionRequest, options: CallOptions): Promise<Connection>;
}

/** Options of {@link localHarness}. */
export interface LocalHarnessOptions {
  /**
   * The era of the localharness wire to write: `"0.1.19"` (default; upstream's newest
   * `localharness.proto`) or `"0.1.14"` for a harness of Google's SDK 0.1.14 and before. A harness
   * tells nothing of its version before it reads the configuration (its handshake answers only
   * `{port, api_key}`), so this is the user's choice; an option the era cannot carry is refused
   * with `Unsupported` at `start()`. The choice shows in `agent.info.wireEra`.
   */
  wireEra?: LocalharnessEra;
}

/**
 * The localharness wire (protocol.md) over `transport` — a `Transport`, or a factory called once
 * per session (e.g. `subprocessTransportFactory` of `@antigravity-ts/node`, which spawns the harness).
 *
 * @example
 * Agent.builder().connection(localHarness(new WebSocketTransport({ url, apiKey }))).allowAll().build();
 */
export function localHarness(
  transport: Transport | TransportFactory,
  options: LocalHarnessOptions = {},
): ConnectionStrategy {
  return {
    capabilities: LOCALHARNESS_CAPABILITIES,
    ...(typeof transport === "function" && transport.startsHarness === true ? { startsHarness: true } : {}),
    connect(request, callOptions) {
      return createHarnessConnection({
        transport: typeof transport === "function" ? transport(request.transportContext) : transport,
        config: request.config,
        tools: request.tools,
        policies: request.policies,
        confirmTool: request.confirmTool,
        ...(request.hooks === undefined ? {} : { hooks: request.hooks }),
        ...(request.logger === undefined ? {} : { logger: request.logger }),
        ...(request.telemetry === undefined ? {} : { telemetry: request.telemetry }),
        ...(request.onProtocolError === undefined ? {} : { onProtocolError: request.onProtocolError }),
        ...(options.wireEra === undefined ? {} : { wireEra: options.wireEra }),
        ...callOptions,
      });
    },
  };
}
