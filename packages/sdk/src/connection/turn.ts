import { ErrorCode, SdkError } from "../errors.js";
import type { Step } from "../types.js";
import { AsyncQueue } from "../util/async-queue.js";

/**
 * One turn as the connection tracks it (§6): the queue of its steps, its main trajectory, and
 * how it ended. A turn starts with `send()` (solicited) or with harness activity nobody asked
 * for, e.g. after a trigger (unsolicited). It settles once: ended, or failed with an `SdkError`.
 */
export class Turn {
  readonly queue = new AsyncQueue<Step>();
  /** Aborted when the turn is halted or settles: the signal client tools get. */
  readonly controller = new AbortController();
  /** Main trajectory id (§6.3): the first step's, or the first state update's. */
  main: string | undefined;
  /** True once the harness showed it is working on this turn (a step, RUNNING, a tool or hook request). */
  active = false;
  /** True once `halt()` was sent for this turn. */
  halted = false;
  #settled = false;

  constructor(readonly solicited: boolean) {}

  get settled(): boolean {
    return this.#settled;
  }

  /** Queues a step; false when the turn already settled (the step is dropped). */
  push(step: Step): boolean {
    return !this.#settled && this.queue.push(step);
  }

  /** Marks the turn halted and aborts its tools' signals. */
  halt(): void {
    this.halted = true;
    this.controller.abort(new SdkError(ErrorCode.Canceled, "the turn was halted"));
  }

  /** Ends the turn normally after the queued steps. */
  end(): void {
    if (this.#settle()) this.queue.end();
  }

  /** Ends the turn with `error`, thrown to the reader after the queued steps. */
  fail(error: SdkError): void {
    if (this.#settle(error)) this.queue.fail(error);
  }

  #settle(reason?: SdkError): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    if (!this.controller.signal.aborted) this.controller.abort(reason ?? new SdkError(ErrorCode.Canceled, "the turn is over"));
    return true;
  }
}
