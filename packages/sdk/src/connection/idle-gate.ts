import type { CallOptions } from "../call-options.js";
import type { SdkError } from "../errors.js";
import { linkSignal, raceSignal } from "../util/abort.js";

/**
 * Whether a connection's harness is running a turn, and the callers waiting for it to stop: busy
 * from a `send()` or RUNNING until the main trajectory is idle or cancelled (§6.3), or while a
 * dropped channel is re-opened.
 */
export class IdleGate {
  #busy = false;
  #waiters: { resolve: () => void; reject: (error: SdkError) => void }[] = [];

  get busy(): boolean {
    return this.#busy;
  }

  /** Marks a turn running (`true`) or none (`false`, which releases every waiter). */
  setBusy(busy: boolean): void {
    this.#busy = busy;
    if (!busy) for (const waiter of this.#waiters.splice(0)) waiter.resolve();
  }

  /** Resolves when no turn is running, bounded by `options`; an aborted wait leaves nothing behind. */
  wait(options?: CallOptions): Promise<void> {
    if (!this.#busy) return Promise.resolve();
    const link = linkSignal(options);
    let waiter!: { resolve: () => void; reject: (error: SdkError) => void };
    const idle = new Promise<void>((resolve, reject) => this.#waiters.push((waiter = { resolve, reject })));
    return raceSignal(idle, link.signal).finally(() => {
      link.dispose();
      this.#waiters = this.#waiters.filter((w) => w !== waiter);
    });
  }

  /** Fails every waiter with `reason` (the connection closed): no turn runs any more. */
  fail(reason: SdkError): void {
    this.#busy = false;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(reason);
  }
}
