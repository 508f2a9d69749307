import type { CallOptions } from "../call-options.js";

/** When a trigger's message reaches the agent: at once (joining a running turn) or once it is idle. */
export type TriggerDelivery = "now" | "whenIdle";

/** Options of {@link TriggerContext.sendTrigger}. */
export interface SendTriggerOptions extends CallOptions {
  /** Default `"now"`. */
  delivery?: TriggerDelivery;
}

/** What a running trigger can do with the session. */
export interface TriggerContext {
  /** The conversation the agent runs. */
  readonly conversationId: string;
  /** Aborted when the agent stops. */
  readonly signal: AbortSignal;
  /** True when no turn is running. */
  isIdle(): boolean;
  /** Resolves when no turn is running. */
  waitForIdle(options?: CallOptions): Promise<void>;
  /** Injects a message into the conversation (protocol §13, `automatedTrigger`). */
  sendTrigger(message: string, options?: SendTriggerOptions): Promise<void>;
}

/**
 * A background source of messages for the agent (antigravity-api.md §2.10): started with the
 * agent, stopped with it. Implement `run` (a loop that ends when `signal` aborts), or
 * `start`/`stop` (for callback-driven sources such as watchers), or both.
 *
 * @example
 * const ping: Trigger = { async run(ctx, signal) { await ctx.sendTrigger("ping"); } };
 */
export interface Trigger {
  /** Called once when the agent starts; may set up listeners that call `context.sendTrigger`. */
  start?(context: TriggerContext): void | Promise<void>;
  /** Called once when the agent stops. */
  stop?(): void | Promise<void>;
  /** A long-running task, started when the agent starts; `signal` aborts when it stops. */
  run?(context: TriggerContext, signal: AbortSignal): Promise<void>;
}
