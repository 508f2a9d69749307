import type { CallOptions, Transport } from "@antigravity-ts/sdk";
import { linkSignal } from "@antigravity-ts/sdk/internal";
import type { HarnessExit, HarnessProcess } from "./harness-process.js";
import type { SubprocessChannel } from "./subprocess-transport.js";

/** How the prewarmed harness reaches back into its {@link SubprocessTransport}. */
export interface PrewarmHooks {
  /** Opens the WebSocket to the prewarmed harness (it keeps this process alive again from here). */
  open(signal: AbortSignal): Promise<SubprocessChannel>;
  /** A plain `connect()` of the transport: a fresh harness. */
  connectFresh(options: CallOptions): Promise<SubprocessChannel>;
  /** Kills the prewarmed harness and removes its temporary storage. */
  discard(): Promise<void>;
}

/**
 * A harness spawned and handshaken ahead of `start()` ({@link SubprocessTransport.prewarm},
 * `prewarmHarness()`), and the {@link Transport} that adopts it: the first `connect()` opens
 * the WebSocket to this harness instead of spawning one; later ones, or one after the
 * prewarmed harness died, start a fresh harness with the same options. Until adopted it does not
 * keep this process alive; `dispose()` kills it, and so does this process's exit (no orphan).
 */
export class PrewarmedHarness implements Transport, AsyncDisposable {
  #waiting: boolean;
  readonly #harness: HarnessProcess;
  readonly #hooks: PrewarmHooks;

  /** @internal Made by {@link SubprocessTransport.prewarm}. */
  constructor(harness: HarnessProcess, hooks: PrewarmHooks) {
    this.#waiting = true;
    this.#harness = harness;
    this.#hooks = hooks;
  }

  /** OS process id of the prewarmed harness. */
  get pid(): number {
    return this.#harness.pid;
  }

  /** True until a `connect()` adopted the harness or `dispose()` discarded it. */
  get isWaiting(): boolean {
    return this.#waiting;
  }

  /** Resolves with the exit status once the prewarmed harness process is gone. */
  get exited(): Promise<HarnessExit> {
    return this.#harness.exited;
  }

  /**
   * The prewarmed harness's channel the first time (WebSocket open only, protocol §4); a fresh
   * harness when it was adopted before or has exited meanwhile. Rejects like
   * {@link SubprocessTransport.connect}.
   */
  async connect(options: CallOptions = {}): Promise<SubprocessChannel> {
    const waiting = this.#waiting;
    this.#waiting = false;
    if (!waiting) return this.#hooks.connectFresh(options);
    if (this.#harness.exit !== undefined) {
      await this.#hooks.discard();
      return this.#hooks.connectFresh(options);
    }
    const link = linkSignal(options);
    try {
      return await this.#hooks.open(link.signal);
    } finally {
      link.dispose();
    }
  }

  /** Kills the prewarmed harness unless a `connect()` adopted it. Idempotent. */
  async dispose(): Promise<void> {
    const waiting = this.#waiting;
    this.#waiting = false;
    if (waiting) await this.#hooks.discard();
  }

  /** `await using` support: {@link dispose}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}
